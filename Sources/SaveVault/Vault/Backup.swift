import Foundation

/// What `backup` did.
public struct BackupReport: Codable, Sendable, Equatable {
  public enum Outcome: String, Codable, Sendable {
    /// A new archive was stored.
    case uploaded
    /// The save has not changed since the archive this device last agreed on; nothing stored.
    case unchanged
    /// Both sides had changed and the player chose to upload nothing.
    case skipped
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
  /// The cloud's latest archive that this upload went over although this device had never
  /// agreed on it (a conflict the player settled by uploading, or `--force`): it stays in the
  /// container, no longer the latest.
  public var overrodeArchive: String?
}

extension Vault {
  /// Packs the save directory and uploads it, then records the agreement in the agreements.
  ///
  /// Follows the plan of a backup (`Decision.plan` in phase `backup`): it uploads what changed
  /// here, asks on a conflict, and reports an unchanged save (or one whose newer version is
  /// another device's archive) as `unchanged`, uploading nothing. A missing or empty save
  /// directory is refused, so an empty archive never silently becomes latest. On a conflict
  /// `resolver` is asked whether to upload over the cloud's latest (nobody to ask:
  /// `UnansweredQuestion`, nothing changed). `force` uploads whatever the plan says, without
  /// asking, a missing or empty save too. The report names the archive an upload went over.
  public func backup(_ requested: Target, force: Bool, resolver: any ConflictResolver = NobodyToAsk()) throws
    -> BackupReport
  {
    let container = try makeContainer(requested, paths)
    let held = try lock(requested, purpose: "backup")
    defer { withExtendedLifetime(held) {} }
    let target = try recovered(requested)  // local only: before anything can fail on the network
    // The game's listing is the first request and proves the container reachable (`sync`).
    try uploadPending(target, to: container)
    // --force is also the way out of a listing that looks incomplete: no assessment, which
    // would refuse it.
    if force {
      let seen = try look(target, container: container, checkingListing: false)
      return try performBackup(
        target, container: container, seen: seen, force: true, why: "uploading: forced",
        over: Self.unagreedLatest(record: seen.agreement, archives: seen.archives),
        uploadsWithoutMissingLocations: true)
    }
    let found = try assess(target, container: container)
    let plan = found.plan(.backup)
    switch plan.step {
    case .upload:
      return try performBackup(
        target, container: container, seen: found.seen, force: false, why: Self.uploadReason(found))
    case .ask:
      guard let conflict = conflict(found, target: target, choices: [.upload, .skip]) else { break }
      switch ConflictPolicy.prompt.resolve(conflict, resolver: resolver) {
      case .chosen(.upload, _):
        verbose("the player chose to upload over '\(conflict.cloudArchive)'")
        return try performBackup(
          target, container: container, seen: found.seen, force: true, over: found.latest)
      case .chosen:
        noteUnanswered(found, target: target)
        return BackupReport(
          game: target.game, container: target.containerURL, outcome: .skipped,
          archive: found.agreement?.archive ?? conflict.cloudArchive, files: conflict.localFiles,
          bytes: conflict.localBytes, archiveBytes: 0, skipped: found.scan?.skipped.map(\.path) ?? [],
          newerCloudArchive: conflict.cloudArchive)
      case .unanswered(let reason):
        noteUnanswered(found, target: target)
        throw UnansweredQuestion(
          game: target.game, reason: reason, kind: conflict.kind,
          hint:
            "The cloud's latest is \(conflict.cloudArchive), from \(conflict.cloudDevice ?? "another tool"): \(remedy: .forcedBackup) uploads over it (it stays in the container), or \(remedy: .syncWithSomeoneToAsk) asks which save to keep"
        )
      }
    case .nothing, .restore, .restoreAtNextLaunch:
      break  // a backup's plan never restores
    }
    // A location gone with its folder, made anew since (a game installed again), the rest as
    // agreed: nothing to upload, and no agreement either; a sync restores it.
    if let remade = found.remadeFolder, case .bothHaveSaves(.remade(_, onlyRemadeEmpty: true)) = found.facts {
      throw VaultError.locationMissing(game: target.game, path: remade)
    }
    return try nothingToUpload(found, target: target, container: container)
  }

  /// `backup`'s answer when its plan uploads nothing: the save is `unchanged`, on the cloud's
  /// latest when the save is its content (that agreement recorded first), else on the archive
  /// this device agreed on, checked as an upload of it would be (a missing or empty save, a
  /// missing location or a save over the limits is refused; what is skipped is warned about).
  private func nothingToUpload(_ found: Assessment, target: Target, container: any Container) throws
    -> BackupReport
  {
    if let identical = try agreeOnIdentical(found, target: target, container: container) {
      verbose("the save is the content of '\(identical)'; nothing to upload")
      return BackupReport(
        game: target.game, container: target.containerURL, outcome: .unchanged, archive: identical,
        files: found.scan?.fileCount ?? 0, bytes: found.scan?.byteCount ?? 0, archiveBytes: 0,
        skipped: found.scan?.skipped.map(\.path) ?? [])
    }
    let scan = try checkedSave(found.scan, target: target, force: false)
    let record = found.agreement
    if let record {
      verbose("the save matches '\(record.archive)', agreed \(record.agreedAtMs) ms; nothing to upload")
    }
    return BackupReport(
      game: target.game, container: target.containerURL, outcome: .unchanged,
      archive: record?.archive ?? found.latest?.name ?? "", files: scan.fileCount, bytes: scan.byteCount,
      archiveBytes: 0, skipped: scan.skipped.map(\.path),
      newerCloudArchive: Self.unagreedLatest(record: record, archives: found.archives)
        .flatMap { $0.device != target.device ? $0.name : nil })
  }

  /// The save to upload, from its scan: a missing or empty one is refused unless `force` (then it
  /// is an empty archive), as are a missing location and a location discovery finds that the
  /// game's locations leave out (unless `uploadsWithoutMissingLocations`), and a save over the
  /// limits; what the scan skipped is warned about.
  func checkedSave(
    _ scanned: SaveScan?, target: Target, force: Bool, uploadsWithoutMissingLocations: Bool = false
  ) throws -> SaveScan {
    try refuseLeftOutLocations(target, force: uploadsWithoutMissingLocations)
    var scan = scanned
    if scan == nil || scan?.isEmpty == true {
      guard force else {
        if scan == nil { throw VaultError.saveDirectoryMissing(path: target.saveDirectory) }
        throw VaultError.saveDirectoryEmpty(path: target.saveDirectory)
      }
      scan = scan ?? SaveScan(root: target.saveDirectory, entries: [], skipped: [])
    }
    guard let scan else { throw VaultError.saveDirectoryMissing(path: target.saveDirectory) }
    if !uploadsWithoutMissingLocations, let missing = missingLocation(target) {
      throw VaultError.locationMissing(game: target.game, path: missing.path)
    }
    for item in scan.skipped { context.log.warning("skipped '\(item.path)': \(item.reason)") }
    if let violation = target.limits.violation(of: scan) {
      throw VaultError.io(path: scan.root, reason: "cannot be backed up: \(violation)")
    }
    return scan
  }

  /// The cloud's latest, when this device never agreed on it (another device's newer save).
  static func unagreedLatest(record: Agreement?, archives: [StoredArchive]) -> StoredArchive? {
    archives.first.flatMap { latest in
      latest.name != (record?.cloudLatestWhenAgreed ?? record?.archive) ? latest : nil
    }
  }

  /// `backup` with the lock held, from what `seen` saw (so that a sync reads the save and the
  /// container once): uploads the save, as a plan or the player decided. `force`: a missing or
  /// empty save is uploaded too (as an empty archive), else refused. `why` is what the log says
  /// (nil: the caller has said it). `over`: the cloud's latest, when the player chose to
  /// upload over it (a conflict answered, `--force`): the new archive descends from it too.
  func performBackup(
    _ target: Target, container: any Container, seen: Seen, force: Bool, why: String? = nil,
    over chosen: StoredArchive? = nil, uploadsWithoutMissingLocations: Bool = false
  )
    throws -> BackupReport
  {
    let scan = try checkedSave(
      seen.scan, target: target, force: force, uploadsWithoutMissingLocations: uploadsWithoutMissingLocations)
    let record = seen.agreement
    let archives = seen.archives
    let unagreed = Self.unagreedLatest(record: record, archives: archives)
    if let why { verbose(why) }
    try context.checkpoint("backup.listed")  // decided from `archives`; nothing stored yet
    let ancestry = uploadAncestry(record: record, over: chosen?.name, container: container, game: target.game)
    let carried = try carryForward(
      target, seen: seen, container: container, uploadsWithout: uploadsWithoutMissingLocations)
    defer { carried.map { removeCarried($0.folder) } }
    let (stored, manifest, packed) = try storeSettled(
      scan, target: target, in: container, notBefore: (archives.first?.modifiedMs ?? Int64.min) + 1,
      ancestry: ancestry, carried: carried)
    try context.failpoints.hit("backup.stored")  // not a checkpoint: once stored, the agreement is recorded
    for location in carried?.locations ?? [] {
      context.log.warning(
        "kept '\(location.portable.template)' from \(carried?.archive ?? ""): it has no place on this device")
    }
    // No listing after the upload: another device's upload made at the same moment is seen by
    // whichever device's archive is not the latest, at its next run, as a latest that does not
    // descend from its own save (`ancestry`, in `assess`).
    let report = BackupReport(
      game: target.game, container: target.containerURL, outcome: .uploaded, archive: stored.name,
      files: manifest.files, bytes: manifest.bytes, archiveBytes: stored.size,
      skipped: packed.skipped.map(\.path), overrodeArchive: unagreed?.name)
    do {
      try recordAgreement(
        target: target, archive: stored.name, scan: packed, content: manifest.entries, ancestry: ancestry,
        unplaced: carried?.locations ?? [])
    } catch {
      throw VaultError.io(
        path: paths.agreementsDirectory,
        reason:
          "'\(stored.name)' was uploaded, but the agreement could not be recorded (\(Self.plainReason(error))); the next sync compares the save with the cloud by content"
      )
    }
    return report
  }

  /// What the archive `name` in `container` says it descends from (`ArchiveHeader.lineage`, read
  /// from its first 256 KiB); nil when it says nothing or cannot be read.
  func archiveLineage(_ name: String, game: String, in container: any Container) -> [String]? {
    let header = try? container.readStart(game: game, name: name, count: ArchiveContents.headerBytes) {
      fd in ArchiveContents.header(fd: fd, archiveName: name)
    }
    return header?.lineage
  }

  /// What an upload's save descends from (`ArchiveHeader.ancestry`): the archive this device
  /// agreed on (and the newer latest a rollback chose over it) and `chosen`, the cloud's latest
  /// the player chose to upload over, each with what it descends from. What the agreement does
  /// not know is read from the archive's header (one ranged read; with no `container`, or an
  /// archive that cannot be read, taken as nothing).
  func uploadAncestry(record: Agreement?, over chosen: String?, container: (any Container)?, game: String)
    -> [String]
  {
    func read(_ name: String) -> [String]? {
      container.flatMap { archiveLineage(name, game: game, in: $0) }
    }
    var parents: [(name: String, ancestry: [String]?)] = []
    if let chosen, chosen != record?.archive { parents.append((chosen, read(chosen))) }
    if let record {
      if let newer = record.rolledBackFrom, newer != chosen { parents.append((newer, read(newer))) }
      parents.append((record.archive, record.ancestry ?? read(record.archive)))
    }
    return ArchiveHeader.ancestry(parents: parents)
  }

  /// Packs a live save: when a file changes while it is read (the game is still writing), the
  /// half-made archive is dropped (the container never shows it), the save is scanned again
  /// and packed again, up to `attempts` times; then the backup fails naming the file. What
  /// `carried` holds is packed with it, under its own names. Returns the scan of the save that
  /// was packed (without what was carried).
  func storeSettled(
    _ scan: SaveScan, target: Target, in container: any Container, notBefore: Int64, ancestry: [String],
    carried: CarriedLocations? = nil, attempts: Int = 4
  ) throws -> (StoredArchive, Manifest, SaveScan) {
    var current = scan
    for attempt in 1...attempts {
      do {
        let (stored, manifest) = try store(
          current.merging(carried?.scan), game: target.game, device: target.device, in: container,
          notBefore: notBefore, compression: target.compression,
          locations: target.archiveLocations.map { $0 + (carried?.locations ?? []) }, ancestry: ancestry)
        return (stored, manifest, current)
      } catch ArchiveError.changedWhileReading(let path) where attempt < attempts {
        verbose("'\(path)' changed while it was read; packing again (attempt \(attempt + 1))")
        usleep(UInt32(100_000 * attempt))
        guard let again = try scanSave(target) else {
          throw VaultError.saveDirectoryMissing(path: target.saveDirectory)
        }
        current = again
      }
    }
    throw ArchiveError.changedWhileReading(path: target.saveDirectory)
  }

  /// Packs `scan` into a new archive in `container`, named for now and `device`, ending
  /// in `.tar` or, compressed, `.tar.zst`.
  ///
  /// The name's time is never before `notBefore` (the newest archive the uploader has seen,
  /// plus 1 ms): a device whose clock is behind still names its new archive after every
  /// archive it knew of, so "latest" stays the last one uploaded, and clock skew between
  /// devices can never turn an upload into an older-looking archive. Nor is it one of the
  /// times in `avoiding`. `ancestry` goes into the header (`ArchiveHeader.ancestry`).
  func store(
    _ scan: SaveScan, game: String, device: String, in container: any Container,
    notBefore: Int64 = Int64.min, avoiding: Set<Int64> = [], compression: ArchiveCompression = .none,
    locations: [ArchiveLocation]? = nil, ancestry: [String]? = nil, reportsProgress: Bool = true
  ) throws -> (StoredArchive, Manifest) {
    var createdMs = max(context.clock(), notBefore)
    while avoiding.contains(createdMs) { createdMs += 1 }
    for attempt in 1...Self.nameAttempts {
      let name = ArchiveName(createdMs: createdMs, device: device, compression: compression)
      let header = ArchiveHeader(
        format: ArchiveHeader.currentFormat, game: game, device: name.device, createdMs: createdMs,
        locations: locations,
        ancestry: ancestry)
      var manifest = Manifest(header: header, entries: [])
      do {
        let stored = try container.upload(game: game, name: name.description) { fd in
          let meter =
            reportsProgress ? ProgressMeter(.packing, total: scan.byteCount, context: context) : nil
          // A folder flushes the archive when it is written: start the disk on it meanwhile.
          let packer = Packer(
            header: header, compression: compression, meter: meter,
            startsWriteback: container.flushesUploadsToLocalDisk)
          let result = try packer.pack(scan, to: fd, outputName: name.description)
          manifest = result.manifest
          try context.checkpoint("backup.packed")
          return result.byteCount
        }
        verbose("stored '\(stored.name)' (\(stored.size) bytes) in '\(container.displayName)'")
        return (container.archive(stored), manifest)
      } catch ContainerError.alreadyExists(let container, let name) where attempt == Self.nameAttempts {
        throw ContainerError.transferFailed(
          container: container, name: name,
          reason: "the container says \(Self.nameAttempts) fresh names in a row already exist; is it working?"
        )
      } catch ContainerError.alreadyExists {
        createdMs += 1  // two backups in one millisecond: the next name is free
        while avoiding.contains(createdMs) { createdMs += 1 }
      }
    }
    throw ContainerError.transferFailed(container: container.displayName, name: "", reason: "no free name")
  }

  /// How many names `store` tries (one millisecond apart) before giving up: a bound, so that
  /// a container that answers "already exists" to everything cannot hold a command forever.
  static let nameAttempts = 32

  /// Writes the agreement: this device and the container agree on `archive`, which holds the
  /// save as `scan` shows it.
  /// Archives still pending were made before this agreement: they become pre-restore copies
  /// first, so that no later run uploads them over it (whatever the devices' clocks say).
  /// `rolledBackFrom` is the cloud's newer latest when the player restored an older archive;
  /// `ancestry`, what `archive` descends from (nil when unknown); `unplaced`, the archive's
  /// locations this device has no place for.
  func recordAgreement(
    target: Target, archive: String, scan: SaveScan, content: [ManifestEntry],
    rolledBackFrom: String? = nil, ancestry: [String]?, unplaced: [ArchiveLocation] = [],
    notRestored: Set<String>? = nil
  ) throws {
    retirePending((try? pendingStore().archivesNewestFirst(game: target.game)) ?? [], target: target)
    var index = AgreedFile.entries(scan: scan, content: content)
    // A save written after a restore put it in place: the agreement is the archive's content,
    // and no file written since is vouched for by its metadata.
    for position in index.indices where notRestored?.contains(index[position].path) == true {
      index[position].detail = ""
    }
    var known: [String: AgreedFile] = [:]
    for entry in index { known[entry.path] = entry }
    let record = Agreement(
      game: target.game, container: target.agreementKey, archive: archive,
      metadataDigest: notRestored == nil ? scan.metadataDigest : "",
      contentDigest: notRestored == nil
        ? try Fingerprint(scan: scan).contentDigest(known: known) : ContentDigest.of(content),
      files: scan.fileCount, bytes: scan.byteCount, agreedAtMs: context.clock(),
      scannedAtMs: scan.scannedAtMs,
      saveDir: target.saveDirectory, realSaveDir: scan.root,
      saveMount: Platform.mountPoint(of: scan.root),
      rolledBackFrom: rolledBackFrom, ancestry: ancestry, enclosingFolders: Self.enclosingFolders(target),
      archiveLocations: Self.agreedLocations(target, unplaced: unplaced))
    try agreements.save(record, index: index)
  }
}

extension Vault {
  /// The folders that hold the target's locations now, each once (`Agreement.enclosingFolders`).
  static func enclosingFolders(_ target: Target) -> [FolderIdentity] {
    var seen = Set<String>()
    return target.locations.flatMap { FolderIdentity.enclosing($0.path) }.filter {
      seen.insert($0.path).inserted
    }
  }

  /// Why a backup that follows its plan uploads, for the log.
  static func uploadReason(_ found: Assessment) -> String {
    guard let record = found.agreement else { return "uploading: this device has agreed on nothing yet" }
    var isListed = found.latest != nil
    if case .bothHaveSaves(.recorded(let since)) = found.facts { isListed = since.agreedArchiveIsListed }
    return isListed
      ? "uploading: the save changed since '\(record.archive)'"
      : "uploading: the agreed '\(record.archive)' is no longer in the container"
  }
}
