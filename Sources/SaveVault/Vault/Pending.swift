import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Vault {
  /// Keeps the save as an archive on this device when the container cannot be reached (a
  /// `wrap` after the game, offline): `$XDG_DATA_HOME/savevault/pending/<game>/`, compressed as
  /// the target says, since it is uploaded as it is. The agreement is not touched: the cloud has
  /// not agreed to anything yet. Under the game's lock, like every command that writes: the
  /// sync before it gave the lock back when it failed.
  func keepPending(_ requested: Target) throws -> String? {
    let held = try lock(requested, purpose: "wrap")
    defer { withExtendedLifetime(held) {} }
    let target = try recovered(requested)
    guard let scan = try scanSave(target), !scan.isEmpty else { return nil }
    try refuseLeftOutLocations(target, force: false)
    // A folder on another drive than the agreed save (its drive not mounted) is kept too, but
    // noted, so that it waits for the player instead of being uploaded as the save.
    noteSaveNotAsAgreed(target)
    let record = agreements.load(target)
    // What the agreed archive holds that this device has no place for is carried forward by an
    // upload, from the container: a pending archive would go up without it. (So would one
    // with such a location the game's list has gained since, whose content here the agreement
    // does not vouch for: the next sync compares it by content.)
    let unplaced = record?.unplacedLocations.map(\.archived) ?? []
    if let record, !unplaced.isEmpty {
      throw VaultError.locationNotCarried(
        game: target.game, archive: record.archive, locations: unplaced.map(\.portable.template),
        reason: "the container cannot be reached; the save is uploaded by the next sync that reaches it")
    }
    let store = pendingStore(creating: true)
    let agreed = record?.newestKnownMs
    // Named after the agreement, and never with the time of a pre-restore copy: a pending
    // archive retired there had the name the next one would get, and one name must never stand
    // for two saves of this device.
    let (archive, _) = try self.store(
      scan, game: target.game, device: target.device, in: store, notBefore: (agreed ?? Int64.min) + 1,
      avoiding: Set(preRestoreCopies(game: target.game).map(\.modifiedMs)), compression: target.compression,
      locations: target.archiveLocations,
      // It goes up only while the cloud's latest is still the one agreed (`uploadPending`).
      ancestry: uploadAncestry(record: record, over: nil, container: nil, game: target.game))
    return store.root + "/" + target.game + "/" + archive.name
  }

  /// Uploads the archives kept while the container was unavailable, oldest first, and removes
  /// each from this device once the container holds it. Only when the cloud has not changed
  /// since this device last agreed with it: otherwise the pending archives would silently win
  /// over another device's newer work, so they wait for the conflict to be resolved. Pending
  /// archives older than the agreement were overtaken (the player resolved since): they become
  /// pre-restore copies, never uploaded.
  /// Returns the newest archive uploaded (nil when none was).
  @discardableResult
  func uploadPending(_ target: Target, to container: any Container) throws -> String? {
    let store = pendingStore()
    let record = agreements.load(target)
    let (fresh, overtaken) = pendingArchives(target, since: record)
    retirePending(overtaken, target: target)
    guard let newest = fresh.first else { return nil }
    let archives = try listArchives(target, container: container, record: record)
    let isCloudAsAgreed = archives.first == nil || archives.first?.name == record?.cloudLatestWhenAgreed
    let isElsewhere = record?.isOnOtherDrive(mount: Platform.mountPoint(of: target.saveDirectory)) == true
    guard isCloudAsAgreed, record?.unanswered == nil, !isElsewhere else {
      let why =
        !isCloudAsAgreed
        ? "the cloud changed meanwhile"
        : isElsewhere
          ? "the save folder is on another drive than agreed" : "a conflict seen before is still unanswered"
      context.log.warning(
        "\(fresh.count) archive(s) of '\(target.game)' wait in '\(store.root)/\(target.game)': \(why), so they are not uploaded until you resolve it"
      )
      return nil
    }
    // The newest one's content, read here rather than downloaded back once it is uploaded
    // (which is still done if it cannot be read here, so that it does not stay behind).
    let local = try? store.read(game: target.game, name: newest.name) { fd in
      try contentDigest(fd: fd, archiveName: newest.name, game: target.game, limits: target.limits)
    }
    for archive in fresh.reversed() {
      _ = try store.read(game: target.game, name: archive.name) { source in
        try container.upload(game: target.game, name: archive.name) { destination in
          try Self.copy(from: source, to: destination, name: archive.name)
        }
      }
      try store.delete(game: target.game, name: archive.name)
      verbose("uploaded '\(archive.name)', kept while the container was unavailable")
    }
    // The cloud agrees with this device only if its newest archive is now this device's (no
    // other device uploaded meanwhile). Its metadata is not known here: an empty index makes
    // the next decision compare content.
    guard try container.archivesNewestFirst(game: target.game).first?.name == newest.name else {
      return newest.name
    }
    let digest =
      try local
      ?? container.read(game: target.game, name: newest.name) { fd in
        try contentDigest(fd: fd, archiveName: newest.name, game: target.game, limits: target.limits)
      }
    // What it descends from is in its header; the folders that held its save are the ones the
    // agreement it was made under recorded (they may have been made anew since: a new save).
    let header = try? store.readStart(
      game: target.game, name: newest.name, count: ArchiveContents.headerBytes
    ) {
      fd in ArchiveContents.header(fd: fd, archiveName: newest.name)
    }
    let agreement = Agreement(
      game: target.game, container: target.agreementKey, archive: newest.name, metadataDigest: "",
      contentDigest: digest, files: 0, bytes: 0, agreedAtMs: context.clock(), saveDir: target.saveDirectory,
      realSaveDir: Platform.realPath(target.saveDirectory) ?? target.saveDirectory,
      saveMount: Platform.mountPoint(of: target.saveDirectory), ancestry: header?.lineage,
      enclosingFolders: record?.enclosingFolders, archiveLocations: Self.agreedLocations(target))
    try agreements.save(agreement, index: [])
    return newest.name
  }

  /// The archives kept on this device while the container was unavailable, newest first:
  /// `fresh`, made since `record` agreed, and `overtaken`, the older ones (the player settled
  /// with the container since they were made).
  func pendingArchives(_ target: Target, since record: Agreement?) -> (
    fresh: [StoredArchive], overtaken: [StoredArchive]
  ) {
    let pending = (try? pendingStore().archivesNewestFirst(game: target.game)) ?? []
    let agreedMs = record?.newestKnownMs ?? Int64.min
    return (pending.filter { $0.modifiedMs > agreedMs }, pending.filter { $0.modifiedMs <= agreedMs })
  }

  /// Turns pending archives into pre-restore copies: kept on this device, never uploaded.
  /// For archives an agreement overtook (the player settled with the container since they
  /// were made), which must not be uploaded over it.
  func retirePending(_ archives: [StoredArchive], target: Target) {
    guard !archives.isEmpty else { return }
    let from = pendingStore().root + "/" + target.game
    let folder = preRestoreStore(creating: true).root + "/" + target.game
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for archive in archives {
      let kept: String
      do throws(SystemError) {
        kept = try Self.moveUnderFreeName(from + "/" + archive.name, into: folder)
      } catch {
        // Never left under its name, from where a later sync would upload it over the agreement.
        let aside = from + "/" + Self.overtakenPrefix + archive.name
        let outcome =
          rename(from + "/" + archive.name, aside) == 0
          ? "it is kept as '\(aside)', never uploaded"
          : "it stays in '\(from)': move it out of there, or a later sync uploads it over the save agreed on since"
        context.log.warning("could not make '\(archive.name)' a pre-restore copy (\(error)); \(outcome)")
        continue
      }
      let renamed = kept == archive.name ? "" : " (as '\(kept)': a copy of that name was there)"
      context.log.warning(
        "'\(archive.name)' was kept while the container was unreachable, but the save was agreed on since; it is now a pre-restore copy in '\(folder)'\(renamed)"
      )
    }
  }

  /// The name an overtaken pending archive gets when it cannot become a pre-restore copy: not
  /// an archive name, so nothing lists or uploads it.
  static let overtakenPrefix = ".overtaken-"

  /// Moves the archive `source` into `folder`, under its own name or, when a copy of that name
  /// is there already (a name taken again after its first holder was retired), one millisecond
  /// later each time until one is free. Returns the name it got.
  static func moveUnderFreeName(_ source: String, into folder: String) throws(SystemError) -> String {
    var name = (source as NSString).lastPathComponent
    for _ in 1..<nameAttempts {
      do throws(SystemError) {
        try Platform.moveNoReplace(from: source, to: folder + "/" + name)
        return name
      } catch {
        guard error.code == EEXIST, let parsed = ArchiveName(parsing: name) else { throw error }
        name =
          ArchiveName(createdMs: parsed.createdMs + 1, device: parsed.device, ending: parsed.ending)
          .description
      }
    }
    try Platform.moveNoReplace(from: source, to: folder + "/" + name)
    return name
  }

  /// Copies a whole file between descriptors; returns the byte count.
  static func copy(from source: Int32, to destination: Int32, name: String) throws -> Int64 {
    do {
      return try Platform.forEachChunk(of: source, path: name) { chunk in
        if let code = Platform.writeAll(destination, chunk) {
          if code == ENOSPC || code == EDQUOT { throw ArchiveError.noSpace(path: name) }
          throw ArchiveError.writeFailed(path: name, reason: Platform.describe(errno: code))
        }
      }
    } catch let error as SystemError {
      throw ArchiveError.unreadable(path: error.path, reason: Platform.describe(errno: error.code))
    }
  }
}
