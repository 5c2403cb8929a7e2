import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Which archive to restore.
public enum RestoreSelection: Sendable, Equatable {
  case latest
  case named(String)
}

/// What `restore` did.
public struct RestoreReport: Codable, Sendable, Equatable {
  public var game: String
  public var container: String
  public var archive: String
  public var saveDir: String
  /// Whether a manifest vouched for every byte (false for a plain tar from another tool).
  public var verified: Bool
  public var files: Int
  public var bytes: Int64
  /// Where the save that was replaced was kept (nil when there was none).
  public var preRestoreCopy: String?
  /// The cloud's latest archive, when an older one was restored on purpose: the restored save
  /// is the player's choice over it, and the next sync uploads it as the new latest (the newer
  /// archive stays in the container). Nil otherwise.
  public var rolledBackFrom: String?
}

extension Vault {
  /// Restores an archive over the save directory, never destroying anything:
  ///
  /// 1. the archive's listed size is checked against what is read;
  /// 2. it is extracted into a fresh 0700 staging folder beside the save directory, every
  ///    entry checked in Swift and written by libarchive with its secure flags (each file
  ///    written once and hashed on the way, the disk set writing the larger ones at once), and
  ///    verified against its manifest;
  /// 3. the staging folder is flushed to disk, all of it at once (`flushStaging`), and the
  ///    journal written;
  /// 4. the folders are swapped with `rename` and the parent is flushed;
  /// 5. the replaced save is kept as a pre-restore copy under
  ///    `$XDG_DATA_HOME/savevault/pre-restore/<game>/`: the folder itself, moved there, on the
  ///    same filesystem; else a `.tar` (packed on a second thread during step 2 and kept if the
  ///    save did not change meanwhile, else the replaced folder is packed); a moved folder has
  ///    none of its bytes read or written again.
  ///
  /// A refused archive throws `ArchiveError.refused` with the save directory untouched and the
  /// staging folder removed. A save directory reached through a symlink is replaced where it
  /// really is; the link stays.
  public func restore(_ requested: Target, selection: RestoreSelection) throws -> RestoreReport {
    let container = try makeContainer(requested, paths)
    let held = try lock(requested, purpose: "restore")
    defer { withExtendedLifetime(held) {} }
    let target = try recovered(requested)
    return try performRestore(
      target, container: container, selection: selection,
      seen: look(target, container: container, checkingListing: true))
  }

  /// `restore` with the lock held, from what `seen` saw (so that a sync reads the save and the
  /// container once). One transaction for every game: the archive is extracted once beside the
  /// first location and verified whole; each location's content is then put in a folder of
  /// its own beside its save folder (the extraction itself, for a one-folder game; else moved
  /// there, or extracted again when on another filesystem), with what no archive holds carried
  /// over; every folder is flushed, the journal written, and the folders swapped in
  /// (`finish`).
  func performRestore(
    _ target: Target, container: any Container, selection: RestoreSelection, seen: Seen,
    undoing: UndoPoint? = nil, carrying: (folder: String, skipped: [(path: String, reason: String)])? = nil,
    beforeDone: () throws -> Void = {}
  ) throws
    -> RestoreReport
  {
    let archives = seen.archives
    let chosen: StoredArchive
    switch selection {
    case .latest:
      guard let latest = archives.first else {
        throw VaultError.noBackups(game: target.game, container: target.containerURL)
      }
      chosen = latest
    case .named(let name):
      // A name SaveVault did not make is never latest, but restores when named.
      let unrecognized =
        ArchiveName(parsing: name) == nil ? try container.listSorted(game: target.game).unrecognized : []
      guard let named = (archives + unrecognized).first(where: { $0.name == name }) else {
        throw ContainerError.notFound(container: target.containerURL, name: name)
      }
      chosen = named
    }
    verbose("restoring '\(chosen.name)' (\(chosen.size) bytes, made by \(chosen.device ?? "another tool"))")
    // An interrupted restore that could not be finished yet is finished first: a new one
    // would take its journal's place, and what it set aside with it.
    var seen = seen
    if let unfinished = restoreJournals.load(game: target.game) {
      // What stopped it says why (the same cause, most likely, as a moment ago); finished now,
      // the save it left is the one this restore replaces (and keeps).
      try finish(unfinished, target: target)
      verbose("finished the interrupted restore of '\(unfinished.archive)' first")
      seen.scan = try scanSave(target)
    }
    try checkPrefixesIdle(target)
    let current = seen.scan
    let first = Platform.resolvedPath(target.saveDirectory)
    if current != nil && Platform.isMountPoint(first) {
      throw VaultError.saveDirectoryIsMountPoint(path: target.saveDirectory)
    }
    // The agreement's mount is the one-folder save's; a game of several locations records the
    // first of its folders that existed, which need not be this one.
    if target.isOneFolder { try checkDriveMounted(target, destination: first) }
    var createdParents: [String] = []
    let parent = try makeParent(of: first, created: &createdParents)
    let staging = try makeFolder(in: parent, prefix: Self.stagingPrefix(target.game))
    var made = [staging]
    var isCommitted = false
    // A one-folder save is kept by moving its folder into the pre-restore folder when it is on
    // that filesystem; else (and a save of several folders always) it is packed while the
    // archive is extracted.
    let keepsFolder = target.isOneFolder && keepsByMoving(parent)
    let early = keepsFolder ? nil : startPreRestoreCopy(of: current, target: target)
    defer {
      if !isCommitted {
        made.forEach(removeTree)
        removeMadeParents(createdParents)
        discard(early, target: target)
      }
    }
    let extraction = try extract(chosen, from: container, target: target, into: staging)
    if !extraction.isVerified {
      context.log.warning(
        "'\(chosen.name)' has no SaveVault manifest: its structure was checked, its content could not be verified"
      )
    }
    var (plan, added, unplaced, reshaped, merged) = try destinations(
      of: extraction.header?.locations, target: target, archive: chosen.name)
    for location in unplaced where merged[location.name] != nil {
      context.log.warning(
        "'\(location.path)' of '\(chosen.name)' is the folder of another of its locations spelled another way: one folder to the game, restored as one here (and kept in the cloud as it is)"
      )
    }
    for location in unplaced where merged[location.name] == nil {
      context.log.warning(
        "'\(location.portable.template)' of '\(chosen.name)' (made at '\(location.path)') is not restored: its place here is another location of the archive's; it stays in the cloud"
      )
    }
    // The archive's locations this game's own list lacks are part of it from now on, and one
    // of the list that the archive holds in another shape (some files of it, a file not made
    // here yet, the folder whole) is what the archive holds.
    var target = target
    // What this device's list did not take of a folder the archive now holds whole (`*.sav`
    // here, the whole folder there) stays as it is, unless the archive brings it.
    var untaken: [String: [String]] = [:]
    for (listed, here) in reshaped {
      guard let index = target.locations.firstIndex(of: listed) else { continue }
      if let before = listed.pattern, here.shape == .folder {
        untaken[here.name] = ((try? SaveScan.scan(Platform.resolvedPath(here.path))?.entries) ?? [])
          .filter { $0.kind != .directory && !before.matches($0.path) }.map(\.path)
      }
      target.locations[index] = here
    }
    target.locations += added
    // One of the list inside a location the archive brings (a file the list names, not made
    // here yet, in the Steam Cloud folder the archive holds whole) is part of it: left out, and
    // the rest named by position, as the list is named when it is read again.
    let planned = plan.map(\.location)
    let nested = target.locations.filter { own in
      !planned.contains(own) && planned.contains(where: own.isInside)
    }
    if !nested.isEmpty {
      let kept = target.locations.filter { !nested.contains($0) }
      var renamed: [String: SaveLocation] = [:]
      target.locations = kept.enumerated().map { index, location in
        var named = location
        named.name = SaveLocation.name(index: index, path: location.path)
        renamed[location.name] = named
        return named
      }
      plan = plan.map { ($0.archiveName, renamed[$0.location.name] ?? $0.location) }
      added = added.map { renamed[$0.name] ?? $0 }
    }
    try context.checkpoint("restore.extracted")

    let staged = try stage(
      extraction, plan: plan, from: (chosen, container), into: staging, target: target, current: current,
      carrying: carrying, untaken: untaken, merged: merged, made: &made, createdParents: &createdParents)
    // Once every location is written: the first flush of a filesystem leaves the others on it
    // nothing to wait for.
    for move in staged.moves { try flush(move.staging) }
    for move in staged.moves {
      try move.shape.kind.checkBeforeSwap(move, target: target, archive: chosen.name, in: self)
    }
    // What was staged, file by file: a file the game writes after the swap is no part of it.
    let stamps = RestoredStamps(staged: staged.moves.map(\.staging))
    if !staged.moves.contains(where: { $0.staging == staging }) { removeTree(staging) }

    // The save being replaced is safe before anything of it moves: with no room for its copy,
    // refuse now.
    if let early, early.wait() == nil {
      throw VaultError.preRestoreCopyFailed(
        game: target.game, folder: preRestoreStore().root + "/" + target.game,
        reason: early.failure.map(Self.plainReason) ?? "it could not be packed")
    }
    if keepsFolder, current.map({ !$0.isEmpty || !$0.skipped.isEmpty }) == true {
      try preparePreRestoreFolder(target)
    }
    var moves = staged.moves
    // (A location of files always gets one: its files may appear before they are put aside.)
    for index in moves.indices
    where Self.exists(moves[index].destination) || moves[index].shape.kind.setsAsideAlways {
      // A free name beside it: made and removed again, so that the folder exists only once the
      // old save was moved there.
      let aside = try makeFolder(
        in: (moves[index].destination as NSString).deletingLastPathComponent,
        prefix: Self.asidePrefix(target.game))
      rmdir(aside)
      moves[index].aside = aside
    }
    // An older archive restored on purpose is the player's choice over the latest: a rollback,
    // which the next sync uploads rather than undoes.
    let rolledBackFrom = undoing == nil && chosen.name != archives.first?.name ? archives.first?.name : nil
    // From here on the journal says which folder is which, so that a kill anywhere is
    // finished or undone exactly by the next run.
    let journal = RestoreJournal(
      game: target.game, container: target.agreementKey, archive: chosen.name, moves: moves,
      contentDigest: ContentDigest.of(staged.content), commit: target.isOneFolder ? .swap : .journal,
      undoing: undoing, rolledBackFrom: rolledBackFrom, ancestry: extraction.header?.lineage,
      added: added.isEmpty ? nil : added.map(AgreedLocation.init(here:)),
      unplaced: unplaced.isEmpty ? nil : unplaced.map(AgreedLocation.init(unplaced:)))
    try restoreJournals.save(journal)
    // Several folders cannot be swapped at once: from now on the next run finishes them.
    isCommitted = journal.commit == .journal
    do {
      try context.failpoints.hit("restore.journaled")
      try swap(journal, target: target)
    } catch {
      if !isCommitted { restoreJournals.remove(game: target.game) }
      throw error
    }
    isCommitted = true
    let preRestoreCopy = try complete(
      journal, target: target, early: early, content: staged.content, stamps: stamps)
    try beforeDone()  // an undo's agreement: while the journal still lets recovery finish it
    context.failpoints.reach("restore.agreed")
    restoreJournals.remove(game: target.game)
    let files = staged.content.filter { $0.kind == .file }
    return RestoreReport(
      game: target.game, container: target.containerURL, archive: chosen.name, saveDir: target.saveDirectory,
      verified: extraction.isVerified, files: files.count, bytes: files.reduce(0) { $0 + ($1.size ?? 0) },
      preRestoreCopy: preRestoreCopy, rolledBackFrom: rolledBackFrom)
  }

  /// Refuses to restore where the save directory (or, when it is missing, the nearest folder
  /// above it that exists) is on another filesystem than the save was at this device's
  /// agreement: an SD card not mounted, whose save would go onto the internal drive, under
  /// the mount point.
  private func checkDriveMounted(_ target: Target, destination: String) throws {
    guard let record = agreements.load(target),
      record.isAbout(saveDir: target.saveDirectory, realSaveDir: nil),
      record.isOnOtherDrive(mount: Platform.mountPoint(of: destination))
    else { return }
    var nearest = destination
    while Platform.realPath(nearest) == nil, nearest != "/" {
      nearest = (nearest as NSString).deletingLastPathComponent
    }
    throw VaultError.saveDriveNotMounted(path: target.saveDirectory, nearest: nearest)
  }

  /// The text of a failure, without the wrapping that names SaveVault's own folder a
  /// "container".
  static func plainReason(_ error: any Error) -> String {
    switch error {
    case ContainerError.noSpace: "no space left on the device"
    case ContainerError.unavailable(_, let cause): cause.description
    case ContainerError.transferFailed(_, _, let reason): reason
    case ArchiveError.noSpace: "no space left on the device"
    default: String(describing: error)
    }
  }
}
