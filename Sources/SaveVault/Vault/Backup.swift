import Foundation

/// What `backup` did.
public struct BackupReport: Codable, Sendable, Equatable {
  public enum Outcome: String, Codable, Sendable {
    /// A new archive was stored.
    case uploaded
    /// The save has not changed since the archive this device last agreed on; nothing stored.
    case unchanged
  }
  public var game: String
  public var container: String
  public var outcome: Outcome
  /// The archive stored, or the agreed one when unchanged.
  public var archive: String
  public var files: Int
  public var bytes: Int64
  /// The archive's size (0 when nothing was uploaded).
  public var archiveBytes: Int64
  /// Entries left out of the archive, with why.
  public var skipped: [String]
  /// A newer archive from another device that this backup did not include (the player may
  /// want `sync` or `restore`).
  public var newerCloudArchive: String?
}

extension Vault {
  /// Packs the save directory and uploads it, then records the agreement in the ledger.
  ///
  /// When the save is unchanged since the archive this device last agreed on (and that archive
  /// is still in the container), uploads nothing unless `force`. A missing or empty save
  /// directory is refused unless `force`, so an empty archive never silently becomes latest.
  public func backup(_ target: Target, force: Bool) throws -> BackupReport {
    let container = try makeContainer(target, paths)
    let held = try lock(target, purpose: "backup")
    defer { withExtendedLifetime(held) {} }
    recoverInterruptedRestore(target)  // local only: before anything can fail on the network
    try container.probe()
    try uploadPending(target, to: container)
    return try performBackup(target, container: container, force: force)
  }

  /// `backup` with the lock held and the container probed. `known` is what the caller has
  /// already read (a sync's assessment), so the save and the container are not read twice.
  func performBackup(_ target: Target, container: any Container, force: Bool, known: Assessment? = nil) throws
    -> BackupReport
  {
    var snapshot = try known.map(\.snapshot) ?? Snapshot.scan(target.saveDirectory)
    if snapshot == nil || snapshot?.isEmpty == true {
      guard force else {
        if snapshot == nil { throw VaultError.saveDirectoryMissing(path: target.saveDirectory) }
        throw VaultError.saveDirectoryEmpty(path: target.saveDirectory)
      }
      snapshot = snapshot ?? Snapshot(root: target.saveDirectory, entries: [], skipped: [])
    }
    guard let snapshot else { throw VaultError.saveDirectoryMissing(path: target.saveDirectory) }
    for item in snapshot.skipped { context.log.warning("skipped '\(item.path)': \(item.reason)") }
    if let violation = target.limits.violation(of: snapshot) {
      throw VaultError.io(path: snapshot.root, reason: "cannot be backed up: \(violation)")
    }

    let archives = try known?.archives ?? container.archivesNewestFirst(game: target.game)
    let record = known.map(\.record) ?? ledger.load(target)
    let newer = archives.first.flatMap { latest in
      latest.name != record?.archive && latest.device != target.device ? latest.name : nil
    }
    if !force, let record, archives.contains(where: { $0.name == record.archive }),
      try !Fingerprint(snapshot: snapshot).hasChanged(
        since: record, index: { ledger.loadIndex(target) })
    {
      verbose("the save matches '\(record.archive)', agreed \(record.agreedAtMs) ms; nothing to upload")
      return BackupReport(
        game: target.game, container: target.containerURL, outcome: .unchanged, archive: record.archive,
        files: snapshot.fileCount, bytes: snapshot.byteCount, archiveBytes: 0,
        skipped: snapshot.skipped.map(\.path), newerCloudArchive: newer)
    }
    let (stored, manifest, packed) = try storeSettled(
      snapshot, target: target, in: container, notBefore: (archives.first?.modifiedMs ?? Int64.min) + 1)
    try context.failpoints.hit("backup.stored")
    try recordAgreement(target: target, archive: stored.name, snapshot: packed, content: manifest.entries)
    return BackupReport(
      game: target.game, container: target.containerURL, outcome: .uploaded, archive: stored.name,
      files: manifest.files, bytes: manifest.bytes, archiveBytes: stored.size,
      skipped: packed.skipped.map(\.path), newerCloudArchive: newer)
  }

  /// Packs a live save: when a file changes while it is read (the game is still writing), the
  /// half-made archive is dropped (the container never shows it), the save is scanned again
  /// and packed again, up to `attempts` times; then the backup fails naming the file. Returns
  /// the snapshot that was packed.
  func storeSettled(
    _ snapshot: Snapshot, target: Target, in container: any Container, notBefore: Int64, attempts: Int = 4
  ) throws -> (StoredArchive, Manifest, Snapshot) {
    var current = snapshot
    for attempt in 1...attempts {
      do {
        let (stored, manifest) = try store(
          current, game: target.game, device: target.device, in: container, notBefore: notBefore)
        return (stored, manifest, current)
      } catch ArchiveError.changedWhileReading(let path) where attempt < attempts {
        verbose("'\(path)' changed while it was read; packing again (attempt \(attempt + 1))")
        usleep(UInt32(100_000 * attempt))
        guard let again = try Snapshot.scan(target.saveDirectory) else {
          throw VaultError.saveDirectoryMissing(path: target.saveDirectory)
        }
        current = again
      }
    }
    throw ArchiveError.changedWhileReading(path: target.saveDirectory)
  }

  /// Packs `snapshot` into a new archive in `container`, named for now and `device`.
  ///
  /// The name's time is never before `notBefore` (the newest archive the uploader has seen,
  /// plus 1 ms): a device whose clock is behind still names its new archive after every
  /// archive it knew of, so "latest" stays the last one uploaded, and clock skew between
  /// devices can never turn an upload into an older-looking archive.
  func store(
    _ snapshot: Snapshot, game: String, device: String, in container: any Container,
    notBefore: Int64 = Int64.min, reportsProgress: Bool = true
  ) throws -> (StoredArchive, Manifest) {
    var createdMs = max(context.clock(), notBefore)
    while true {
      let name = ArchiveName(createdMs: createdMs, device: device)
      let header = ArchiveHeader(format: 1, game: game, device: name.device, createdMs: createdMs)
      var manifest = Manifest(header: header, entries: [])
      do {
        let stored = try container.upload(game: game, name: name.description) { fd in
          let meter =
            reportsProgress
            ? ProgressMeter(.packing, total: snapshot.byteCount, sink: context.reportProgress) : nil
          // A folder flushes the archive when it is written: start the disk on it meanwhile.
          let packer = Packer(header: header, meter: meter, startsWriteback: container is FolderContainer)
          let result = try packer.pack(snapshot, to: fd, outputName: name.description)
          manifest = result.manifest
          try context.failpoints.hit("backup.packed")
          return result.byteCount
        }
        verbose("stored '\(stored.name)' (\(stored.size) bytes) in '\(container.displayName)'")
        return (stored, manifest)
      } catch ContainerError.alreadyExists {
        createdMs += 1  // two backups in one millisecond: the next name is free
      }
    }
  }

  /// Writes the ledger: this device and the container agree on `archive`, which holds the
  /// save as `snapshot` shows it.
  func recordAgreement(target: Target, archive: String, snapshot: Snapshot, content: [ManifestEntry]) throws {
    let index = LedgerIndexEntry.entries(snapshot: snapshot, content: content)
    var known: [String: LedgerIndexEntry] = [:]
    for entry in index { known[entry.path] = entry }
    let record = LedgerRecord(
      game: target.game, container: target.ledgerKey, archive: archive,
      metadataDigest: snapshot.metadataDigest,
      contentDigest: try Fingerprint(snapshot: snapshot).contentDigest(known: known),
      files: snapshot.fileCount, bytes: snapshot.byteCount, agreedAtMs: context.clock())
    try ledger.save(record, index: index)
  }
}
