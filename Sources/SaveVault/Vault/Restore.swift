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
  public func restore(_ target: Target, selection: RestoreSelection) throws -> RestoreReport {
    let container = try makeContainer(target, paths)
    let held = try lock(target, purpose: "restore")
    defer { withExtendedLifetime(held) {} }
    recoverInterruptedRestore(target)
    return try performRestore(
      target, container: container, selection: selection,
      seen: look(target, container: container, checkingListing: true))
  }

  /// `restore` with the lock held, from what `seen` saw (so that a sync reads the save and the
  /// container once).
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
    if !target.locations.isEmpty {
      return try performLocationsRestore(
        target, container: container, chosen: chosen, seen: seen,
        rolledBackFrom: undoing == nil && chosen.name != archives.first?.name ? archives.first?.name : nil,
        undoing: undoing, beforeDone: beforeDone)
    }

    let current = seen.scan
    let destination = current?.root ?? Platform.resolvedPath(target.saveDirectory)
    if current != nil && Platform.isMountPoint(destination) {
      throw VaultError.saveDirectoryIsMountPoint(path: target.saveDirectory)
    }
    try checkDriveMounted(target, destination: destination)
    let parent = (destination as NSString).deletingLastPathComponent
    do {
      try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
    } catch {
      throw VaultError.io(path: parent, reason: "cannot create it: \(error.localizedDescription)")
    }
    let staging = try makeTemporaryDirectory(in: parent, prefix: Self.stagingPrefix(target.game))
    var isStagingInUse = true
    // Packed while the archive is extracted only when the replaced folder cannot simply be
    // moved into the pre-restore folder (another filesystem).
    let early = keepsByMoving(parent) ? nil : startPreRestoreCopy(of: current, target: target)
    defer {
      if isStagingInUse {
        removeTree(staging)
        discard(early, target: target)
      }
    }
    let extraction = try extract(chosen, from: container, target: target, into: staging)
    if !extraction.isVerified {
      context.log.warning(
        "'\(chosen.name)' has no SaveVault manifest: its structure was checked, its content could not be verified"
      )
    }
    try context.checkpoint("restore.extracted")
    // The current save must be kept before it is replaced: with no room for its copy, refuse now.
    if let early, early.wait() == nil {
      throw VaultError.preRestoreCopyFailed(
        game: target.game, folder: preRestoreStore().root + "/" + target.game,
        reason: early.failure.map(Self.plainReason) ?? "it could not be packed")
    }
    if early == nil, current.map({ !$0.isEmpty || !$0.skipped.isEmpty }) == true {
      try preparePreRestoreFolder(target)
    }
    // What no archive holds stays in the save: from the folder an undo puts back, then from the
    // save replaced.
    var made: [String] = []
    if let carrying { made += carryOver(carrying.skipped, from: carrying.folder, into: staging) }
    if let current { made += carryOver(current.skipped, from: destination, into: staging) }
    // Folders made to hold them are part of the restored save's content.
    let restoredContent = extraction.entries + made.map { ManifestEntry(path: $0, kind: .directory) }
    // Every folder, also those an archive implies without listing them (`a/b/f` alone).
    let folders = Set(
      extraction.entries.flatMap { entry in
        EntryPolicy.ancestors(of: entry.path) + (entry.kind == .directory ? [entry.path] : [])
      })
    // Its mode too is durable before it is renamed into place.
    chmod(staging, current.map { _ in Self.mode(of: destination) } ?? 0o755)
    try flushStaging(staging) {
      (extraction.entries.filter { $0.kind == .file }.map(\.path), folders.sorted())
    }

    // From here on the journal says which folder is which, so that a kill anywhere is
    // finished or undone exactly by the next run.
    let aside = try current.map { _ in
      try makeTemporaryDirectory(in: parent, prefix: Self.asidePrefix(target.game))
    }
    // An older archive restored on purpose is the player's choice over the latest: a rollback,
    // which the next sync uploads rather than undoes.
    let rolledBackFrom = undoing == nil && chosen.name != archives.first?.name ? archives.first?.name : nil
    let journal = RestoreJournal(
      game: target.game, container: target.agreementKey, archive: chosen.name, destination: destination,
      staging: staging, aside: aside, contentDigest: ContentDigest.of(restoredContent), undoing: undoing,
      rolledBackFrom: rolledBackFrom)
    do {
      try restoreJournals.save(journal)
    } catch {
      if let aside { rmdir(aside) }
      throw error
    }
    do {
      try swap(staging: staging, into: destination, aside: aside, parent: parent)
    } catch {
      restoreJournals.remove(game: target.game)
      throw error
    }
    isStagingInUse = false
    // The swap is done: a signal no longer stops the restore, which finishes (a kill leaves the
    // journal, from which the next run finishes it).
    try context.failpoints.hit("restore.swapped")
    let noteUndo = { (kept: String?) in
      noteUndoPoint(
        target, kept: kept, restoredArchive: undoing == nil ? chosen.name : nil,
        container: undoing?.container ?? target.agreementKey)
    }
    let preRestoreCopy = aside.flatMap { keepReplaced($0, target: target, early: early, whenKept: noteUndo) }
    if aside == nil { noteUndo(nil) }
    try context.failpoints.hit("restore.kept")

    // An undo puts back the agreement it undoes (Undo.swift); a restore records a new one.
    if undoing == nil, let restored = try SaveScan.scan(destination) {
      try recordAgreement(
        target: target, archive: chosen.name, scan: restored, content: restoredContent,
        rolledBackFrom: rolledBackFrom)
    }
    try beforeDone()  // an undo's agreement: while the journal still lets recovery finish it
    context.failpoints.reach("restore.agreed")
    restoreJournals.remove(game: target.game)
    let files = extraction.entries.filter { $0.kind == .file }
    return RestoreReport(
      game: target.game, container: target.containerURL, archive: chosen.name, saveDir: target.saveDirectory,
      verified: extraction.isVerified, files: files.count, bytes: files.reduce(0) { $0 + ($1.size ?? 0) },
      preRestoreCopy: preRestoreCopy, rolledBackFrom: rolledBackFrom)
  }

  /// Puts the staging folder where the save directory is: the old folder (if any) is renamed
  /// to `aside` and the staging folder renamed in, and the parent flushed. On failure the old
  /// folder is put back.
  private func swap(staging: String, into destination: String, aside: String?, parent: String) throws {
    guard let aside else {
      guard rename(staging, destination) == 0 else {
        throw VaultError.io(path: destination, reason: Platform.describe(errno: errno))
      }
      try? Platform.syncDirectory(parent)
      return
    }
    guard rename(destination, aside) == 0 else {
      let code = errno
      rmdir(aside)
      throw VaultError.io(
        path: destination, reason: "cannot move it aside: \(Platform.describe(errno: code))")
    }
    // Only kill and pause act here: nothing may stop between the renames but a real kill.
    context.failpoints.reach("restore.between-renames")
    guard rename(staging, destination) == 0 else {
      let code = errno
      rename(aside, destination)
      throw VaultError.io(path: destination, reason: Platform.describe(errno: code))
    }
    try? Platform.syncDirectory(parent)
  }

  /// Keeps the save a restore replaced (the set-aside folder, which nothing else writes to, so
  /// it holds everything the game had written up to the swap): moved into the pre-restore
  /// folder as it is when both are on one filesystem (`keepByMoving`); else packed into a
  /// pre-restore copy and removed. When the folder holds what an archive cannot (symlinks
  /// leading outside, FIFOs, sockets), or the copy cannot be made, the folder itself is kept
  /// beside the save directory as `.savevault-kept-…` and a warning says where. A packed copy
  /// is always a plain `.tar`, whatever the backups' compression: any tar reads it back.
  /// Returns the copy's path.
  /// A signal does not cut this short (the swap is done; finishing is quicker than undoing).
  /// `whenKept` runs once the replaced save is safe (with where it is, nil when it was empty)
  /// and before the set-aside folder goes, so a kill cannot fall between the two.
  func keepReplaced(_ aside: String, target: Target, whenKept: (String?) -> Void = { _ in }) -> String? {
    let scanned = Result { try SaveScan.scan(aside) }
    let save = Platform.resolvedPath(target.saveDirectory)
    // Whether everything an archive cannot hold is in the restored save too (`carryOver`).
    let isWhole = { (found: SaveScan) in self.isCarried(found.skipped, from: aside, into: save) }
    if case .success(let found) = scanned, found.map({ $0.isEmpty && isWhole($0) }) ?? true {
      whenKept(nil)
      removeKept(aside, game: target.game)
      return nil
    }
    // nil: the folder could not be read, so it is kept whole, never removed.
    let replaced = (try? scanned.get()) ?? nil
    // What an archive cannot hold and the restored save lacks would point elsewhere from the
    // pre-restore folder: such a folder stays beside the save (below).
    if replaced.map(isWhole) ?? true, let moved = keepByMoving(aside, target: target, whenKept: whenKept) {
      return moved
    }
    var copyPath: String?
    if let replaced {
      do {
        copyPath = try packPreRestoreCopy(replaced, target: target)
        verbose("kept the replaced save as '\(copyPath ?? "")'")
      } catch {
        context.log.warning("could not pack the replaced save into a pre-restore copy: \(error)")
      }
    }
    if let copyPath, replaced.map(isWhole) == true {
      whenKept(copyPath)
      removeKept(aside, game: target.game)
      return copyPath
    }
    let parent = (aside as NSString).deletingLastPathComponent
    let kept = parent + "/" + Self.keptPrefix(target.game) + String(context.clock())
    // The folder holds everything (what no archive can, too): undo puts back the folder. Noted
    // before the rename, as a move into the pre-restore folder is: a kill between the two leaves
    // the folder set aside, and the next run keeps it (and notes it) again.
    whenKept(kept)
    let place = rename(aside, kept) == 0 ? kept : aside
    let undoCopy = place == kept ? kept : copyPath ?? place
    if place != kept { whenKept(undoCopy) }
    let why =
      replaced == nil
      ? "it could not be read"
      : copyPath == nil ? "no pre-restore copy could be made" : "it holds entries an archive cannot"
    context.log.warning(
      "kept the replaced save directory itself at '\(place)' (\(why)); 'savevault list --pre-restore' lists it and 'savevault restore --undo' puts it back"
    )
    return undoCopy
  }

  /// Packs `replaced`, a save a restore replaced, into a new pre-restore copy (a plain
  /// `.tar`), named after every copy before it so that the newest copy is the last one kept,
  /// whatever the clock. Finished even after a signal: it is the only copy. Returns its path.
  func packPreRestoreCopy(_ replaced: SaveScan, target: Target) throws -> String {
    let keeper = preRestoreStore(creating: true)
    let newest = preRestoreCopies(game: target.game).first?.modifiedMs
    var finishing = self
    finishing.context.interruption = Interruption()
    let (copy, _) = try finishing.store(
      replaced, game: target.game, device: target.device, in: keeper,
      notBefore: newest.map { $0 + 1 } ?? Int64.min, locations: target.archiveLocations)
    return keeper.root + "/" + target.game + "/" + copy.name
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

  /// Makes a restored tree written at `staging` durable before any rename puts it in place:
  /// one flush of its filesystem, after every file is written (`Platform.syncFilesystem`), or
  /// where that is not available each file and folder `listing` names (`Platform.syncEach`).
  /// Throws when the tree cannot be flushed; nothing was swapped then.
  func flushStaging(_ staging: String, listing: () throws -> (files: [String], folders: [String])) throws {
    guard !Platform.syncFilesystem(containing: staging) else { return }
    let (files, folders) = try listing()
    do {
      try Platform.syncEach(staging, files: files, folders: folders)
    } catch {
      throw VaultError.io(
        path: error.path, reason: "cannot flush it to disk: \(Platform.describe(errno: error.code))")
    }
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

  private func makeTemporaryDirectory(in parent: String, prefix: String) throws -> String {
    do {
      return try Platform.makeTemporaryDirectory(prefix: parent + "/" + prefix)
    } catch {
      throw VaultError.io(
        path: parent, reason: "cannot create a folder there: \(Platform.describe(errno: error.code))")
    }
  }

  private static func mode(of path: String) -> mode_t {
    var info = stat()
    return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0o755
  }

  /// Removes a set-aside folder whose save is kept elsewhere now: renamed first to a staging
  /// name, which recovery removes without keeping, so a kill halfway through the removal can
  /// never have a half-removed folder packed as a newer pre-restore copy.
  func removeKept(_ aside: String, game: String) {
    let parent = (aside as NSString).deletingLastPathComponent
    let doomed = parent + "/" + Self.stagingPrefix(game) + "kept-" + String(context.clock())
    let isRenamed = rename(aside, doomed) == 0
    context.failpoints.reach("restore.removing-replaced")
    removeTree(isRenamed ? doomed : aside)
  }

  /// Removes a folder SaveVault made (staging or set aside), making read-only folders
  /// writable first.
  func removeTree(_ path: String) { Platform.removeTree(path) }
}
