import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension RestoreJournal.Move {
  /// Its location's pattern, by name, for a scan of its destination.
  var patterns: [String: FilePattern] { files.map { [name: $0] } ?? [:] }
}

extension RestoreJournal {
  /// Whether it is a one-folder game's restore: one folder, the archive's content at its top.
  var isOneFolder: Bool { moves.count == 1 && moves[0].name.isEmpty }
}

/// The end of every restore, from its journal: the swaps, the keeping of what they replaced,
/// the undo point and the agreement. The restore runs it right after writing the journal;
/// the next command of the game runs it again on a journal a kill left, from wherever the kill
/// stopped it.
extension Vault {
  /// Finishes or undoes the restore `journal` describes and removes the journal (but not after
  /// a failure: the next command tries again). A restore committed at its swap and killed
  /// before it is undone (its staging folder removed, a save folder set aside put back); else
  /// every swap is finished, unless the game wrote into its save since (then that save stays as
  /// the game left it, and the one from before the restore is kept). `note` is told each repair.
  /// Returns whether the restore was finished (not undone, nor left as the game wrote it).
  @discardableResult
  func finish(_ journal: RestoreJournal, target: Target, note: (String) -> Void = { _ in }) throws -> Bool {
    // The locations the restore placed are part of the save it restored.
    let target = target.including(journal.added?.compactMap(\.here) ?? [])
    if journal.commit == .swap {
      for move in journal.moves where Self.exists(move.staging) {
        removeTree(move.staging)
        note("removed '\(move.staging)', the unfinished extraction of '\(journal.archive)'")
      }
      // Killed between the renames: the restore did not happen.
      let between = journal.moves.filter { move in
        move.aside.map(Self.exists) == true && !Self.exists(move.destination)
      }
      if !between.isEmpty {
        for move in between where rename(move.aside ?? "", move.destination) == 0 {
          try? Platform.syncDirectory((move.destination as NSString).deletingLastPathComponent)
          note(
            "put back '\(move.destination)': the interrupted restore of '\(journal.archive)' did not happen")
        }
        restoreJournals.remove(game: journal.game)
        return false
      }
    } else if isWrittenSince(journal, target: target) {
      try keepWhatTheGameWrote(journal, target: target)
      restoreJournals.remove(game: journal.game)
      return false
    } else {
      try swap(journal, target: target)
    }
    try complete(journal, target: target, early: nil, content: nil, note: note)
    restoreJournals.remove(game: journal.game)
    return true
  }

  /// Puts each move's folder in place of its save folder by two renames (the old folder to its
  /// aside name, the new one in) and flushes the parent; a move already swapped is skipped. A
  /// restore committed at its swap puts the old folder back when the second rename fails.
  func swap(_ journal: RestoreJournal, target: Target) throws {
    let excluded = Self.exclusion(target)
    for (index, move) in journal.moves.enumerated() where Self.exists(move.staging) {
      if let files = move.files {
        // A file an earlier location of files names is that location's (`SaveScan`): this one
        // neither sets it aside nor puts it back.
        let earlier = journal.moves[..<index].compactMap { other in
          other.files.map { (other.destination, $0) }
        }
        try swapFiles(
          move, files: files,
          isExcluded: { path in
            excluded(path)
              || earlier.contains { folder, pattern in
                let full = move.destination + "/" + path
                return full.hasPrefix(folder + "/")
                  && pattern.matches(String(full.dropFirst(folder.count + 1)))
              }
          })
        continue
      }
      if Self.placesNothing(move, of: journal) {
        // Nothing of the archive's for a location not here: no empty folder made where the
        // game may write a file of that name (a config's one file that no device has yet).
        removeTree(move.staging)
        continue
      }
      if let aside = move.aside, !Self.exists(aside), Self.exists(move.destination) {
        guard rename(move.destination, aside) == 0 else {
          throw VaultError.io(
            path: move.destination, reason: "cannot move it aside: \(Platform.describe(errno: errno))")
        }
      }
      // Only kill and pause act here: nothing may stop between the renames but a real kill.
      if move.aside != nil { context.failpoints.reach("restore.between-renames") }
      guard rename(move.staging, move.destination) == 0 else {
        let code = errno
        if journal.commit == .swap, let aside = move.aside { rename(aside, move.destination) }
        throw VaultError.io(path: move.destination, reason: Platform.describe(errno: code))
      }
      try? Platform.syncDirectory((move.destination as NSString).deletingLastPathComponent)
    }
    try mergeRegistry(journal, target: target)
  }

  /// Whether `move` brings nothing to a location that was not there when the restore began
  /// (and is not now), while another location of the save is or gets content: its folder is
  /// then not made. (When none is, the empty folders are the save restored: an empty save.)
  static func placesNothing(_ move: RestoreJournal.Move, of journal: RestoreJournal) -> Bool {
    guard !journal.isOneFolder, move.files == nil, move.aside == nil, !exists(move.destination),
      move.digest == nil || move.digest == ContentDigest.of([]),
      (try? FileManager.default.contentsOfDirectory(atPath: move.staging))?.isEmpty == true
    else { return false }
    return journal.moves.contains { other in
      other.destination != move.destination
        && (exists(other.destination)
          || (try? FileManager.default.contentsOfDirectory(atPath: other.staging))?.isEmpty == false)
    }
  }

  /// Puts a location of files in place, its folder staying: every file there that the
  /// pattern names goes aside (all of them first, so that a kill midway is resumed by doing
  /// that again), then each staged file is renamed in. A file that appears meanwhile goes aside
  /// too: a rename never replaces one. One whose name the aside folder holds already (the game
  /// wrote it after a kill, where a file set aside is to be replaced) is the newest save of
  /// all: it goes aside under a free name (`laterName`), kept with the save the restore replaced.
  private func swapFiles(_ move: RestoreJournal.Move, files: FilePattern, isExcluded: (String) -> Bool) throws
  {
    guard let aside = move.aside else {
      throw VaultError.io(path: move.destination, reason: "no folder to set its files aside in")
    }
    func setAside(_ path: String) throws {
      let from = move.destination + "/" + path
      try? Platform.makeFolders(((aside + "/" + path) as NSString).deletingLastPathComponent)
      var code = Self.moveIn(from, to: aside + "/" + path)
      if code == EEXIST, let later = Self.laterName(path, in: aside, files: files) {
        code = Self.moveIn(from, to: aside + "/" + later)
        if code == nil {
          context.log.warning(
            "'\(from)' was written after the restore set the save aside: it is kept with the save the restore replaced, as '\(later)' (restore --undo puts it back)"
          )
        }
      }
      if let code {
        throw VaultError.io(path: from, reason: "cannot move it aside: \(Platform.describe(errno: code))")
      }
    }
    // Its files and links, as the scan of the location finds them.
    let staged = ((try? SaveScan.scan(move.staging)?.entries) ?? []).filter { $0.kind != .directory }.map(
      \.path)
    if staged.count >= (move.stagedFiles ?? 0) {
      try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: true)
      let entries = try SaveScan.scan(move.destination, files: files)?.entries ?? []
      var setAsideAlready = Set<String>()
      for entry in entries where !isExcluded(entry.path) {
        // A folder the pattern names goes aside whole (what it holds besides files too),
        // unless something in it is excluded and so stays.
        let named = files.matchedPath(entry.path) ?? entry.path
        let holdsExcluded =
          named != entry.path && entries.contains { isExcluded($0.path) && $0.path.hasPrefix(named + "/") }
        let path = holdsExcluded ? entry.path : named
        guard setAsideAlready.insert(path).inserted else { continue }
        context.failpoints.reach("restore.aside-files")
        try setAside(path)
      }
      try? Platform.syncDirectory(aside)
    }
    var folders = Set<String>()
    for path in staged {
      context.failpoints.reach("restore.between-files")
      let to = move.destination + "/" + path
      let folder = (to as NSString).deletingLastPathComponent
      do throws(SystemError) {
        try Platform.makeFolders(folder)
      } catch {
        throw Self.folderNotMade(folder, error: error)
      }
      var code = Self.moveIn(move.staging + "/" + path, to: to)
      if code == EEXIST {
        try setAside(path)
        code = Self.moveIn(move.staging + "/" + path, to: to)
      }
      if let code { throw VaultError.io(path: to, reason: Platform.describe(errno: code)) }
      folders.insert(folder)
    }
    for folder in folders { try? Platform.syncDirectory(folder) }
    removeTree(move.staging)
  }

  /// A name free in `aside` for a file at `path` written after a restore set aside the one of
  /// that name: `top (written after the restore).sav`, numbered when that is taken too, one
  /// the location's pattern names when there is one (so that undo puts the copy back).
  static func laterName(_ path: String, in aside: String, files: FilePattern) -> String? {
    let folder = (path as NSString).deletingLastPathComponent
    let name = (path as NSString).lastPathComponent
    let dot = name.dropFirst().lastIndex(of: ".") ?? name.endIndex
    let (stem, suffix) = (String(name[..<dot]), String(name[dot...]))
    let names = (1...99).map { n in
      (folder.isEmpty ? "" : folder + "/") + stem + " (written after the restore\(n == 1 ? "" : " \(n)"))"
        + suffix
    }
    let free = names.filter { !exists(aside + "/" + $0) }
    return free.first(where: files.matches) ?? free.first
  }

  /// Why `folder` could not be made, in words: the file in its way when there is one.
  private static func folderNotMade(_ folder: String, error: SystemError) -> VaultError {
    var path = folder
    while !exists(path), path.count > 1 {
      path = (path as NSString).deletingLastPathComponent
    }
    if !Platform.isFolder(path) {
      return VaultError.io(
        path: path, reason: "a file is in the way of a folder the restore puts there; move it away")
    }
    return VaultError.io(
      path: folder, reason: "cannot make this folder: \(Platform.describe(errno: error.code))")
  }

  /// Renames `from` to `to` unless something is there; the error code, nil when done.
  private static func moveIn(_ from: String, to: String) -> Int32? {
    do throws(SystemError) {
      try Platform.moveNoReplace(from: from, to: to)
      return nil
    } catch {
      return error.code
    }
  }

  /// The steps after the swaps: keeps the save they replaced (a one-folder save's folder as it
  /// is, `keepReplaced`; the folders of several as one pre-restore copy, the early one when it
  /// holds them), notes the undo point before anything of it goes, and records the agreement
  /// (an undo's is put back by its caller, or here after a kill). Run by the restore itself,
  /// with the `content` it restored, and by recovery, which records an agreement only when the
  /// save still holds exactly the restored content and none is recorded yet. Returns the copy's
  /// path. A signal does not cut this short: the swap is done, finishing is quicker than undoing.
  @discardableResult
  func complete(
    _ journal: RestoreJournal, target: Target, early: EarlyPreRestoreCopy?, content: [ManifestEntry]?,
    stamps: RestoredStamps? = nil, note: (String) -> Void = { _ in }
  ) throws -> String? {
    let isLive = content != nil
    // Recovery after a one-folder restore reaches no fail point (it never did).
    let reachesFailpoints = isLive || journal.commit == .journal
    if reachesFailpoints { try context.failpoints.hit("restore.swapped") }
    let restored = isLive ? try scanSave(target) : (try? scanSave(target)) ?? nil
    let entries = content ?? restored.flatMap { try? Fingerprint(scan: $0).contentEntries() }
    let isRestored = isLive || entries.map(ContentDigest.of) == journal.contentDigest
    // A restore of several locations is committed by its journal: finished, it is the restore,
    // even when the save's digest cannot show it (a location the archive added, which this
    // device's list of the game lacks).
    let isCommitted = isRestored || journal.commit == .journal
    // Before the agreement below changes: undo returns to the one from before the restore. A
    // restore that never swapped (recovered with nothing set aside) leaves the undo point alone.
    let noteUndo = { (kept: String?) in
      guard isLive || kept != nil || isCommitted else { return }
      self.noteUndoPoint(
        target, kept: kept, restoredArchive: isCommitted && journal.undoing == nil ? journal.archive : nil,
        container: journal.undoing?.container ?? journal.container)
    }
    let asides = journal.moves.compactMap { move in move.aside.map { (name: move.name, path: $0) } }
      .filter { Self.exists($0.path) }
    var kept: String?
    if asides.isEmpty, !journal.isOneFolder, let early, let name = early.wait() {
      // Nothing was set aside, yet the save had files: in locations the archive left as they
      // were, beside the ones it filled. The save as it was is kept whole all the same.
      kept = preRestoreStore().root + "/" + target.game + "/" + name
      noteUndo(kept)
    } else if asides.isEmpty {
      discard(early, target: target)
      if isLive { noteUndo(nil) }
    } else if journal.isOneFolder {
      kept = keepReplaced(asides[0].path, target: target, early: early, whenKept: noteUndo)
    } else {
      // Everything set aside is kept, whatever it is (a folder in a staged file's way too).
      kept = try keepTogether(asides, target: target, early: early, whenKept: noteUndo)
    }
    if !isLive, let kept {
      note(
        isRestored
          ? "finished the interrupted restore of '\(journal.archive)'; the replaced save is kept at '\(kept)'"
          : "an interrupted restore had set the save aside; it is kept at '\(kept)'")
    }
    if reachesFailpoints { try context.failpoints.hit("restore.kept") }
    if let point = journal.undoing {
      if !isLive, isRestored,
        (try? putBackAgreement(point, knownBefore: point.madeAtMs != 0, target: target)) != nil
      {
        note("finished the interrupted undo: the agreement from before the undone restore is back")
      }
      return kept
    }
    // Recovery records it unless the restore did before the kill: the same archive, the same
    // rollback, no mark (a rollback to the archive already agreed on differs only in those).
    let agreed = isLive ? nil : agreements.load(target)
    guard isRestored, let restored, let entries,
      isLive
        || journal.container == target.agreementKey
          && (agreed?.archive != journal.archive || agreed?.rolledBackFrom != journal.rolledBackFrom
            || agreed?.unanswered != nil)
    else { return kept }
    try recordAgreement(
      target: target, archive: journal.archive, scan: restored, content: entries,
      rolledBackFrom: journal.rolledBackFrom, ancestry: journal.ancestry,
      notRestored: stamps?.notRestored(restored, content: entries))
    if !isLive { note("recorded the interrupted restore of '\(journal.archive)' as this device's agreement") }
    return kept
  }

  /// Keeps the folders of several locations set aside as one pre-restore copy (under the
  /// locations' names): the early copy when it holds exactly them, else packed now. Then they
  /// are removed. Returns the copy's path (nil when they held nothing).
  private func keepTogether(
    _ asides: [(name: String, path: String)], target: Target, early: EarlyPreRestoreCopy?,
    whenKept: (String?) -> Void
  ) throws -> String? {
    var kept: String?
    if let replaced = try? SaveScan.scan(locations: asides, isExcluded: Self.exclusion(target)),
      !replaced.isEmpty
    {
      if let early, let name = early.wait(), early.holds(replaced) {
        kept = preRestoreStore().root + "/" + target.game + "/" + name
      } else {
        // (The early copy stays: the save as the restore found it, before the game changed it.)
        kept = try packPreRestoreCopy(replaced, target: target)
      }
      verbose("kept the replaced save as '\(kept ?? "")'")
    } else {
      discard(early, target: target)
    }
    whenKept(kept)
    for aside in asides { removeKept(aside.path, game: target.game) }
    return kept
  }

  /// Whether the save was written to after the restore `journal` describes was interrupted
  /// (the game ran before SaveVault did again): a location swapped in that no longer holds
  /// what the archive brought, or one set aside whose folder was made again.
  private func isWrittenSince(_ journal: RestoreJournal, target: Target) -> Bool {
    journal.moves.contains { move in
      if let registry = target.locations.first(where: { location in
        location.registry != nil
          && [location.path, Platform.resolvedPath(location.path)].contains(move.destination)
      })?.registry {
        return Self.isWrittenSince(move, registry: registry)
      }
      // Files still to put in place: finished, and whatever the game wrote meanwhile is moved
      // aside with the rest (kept in the pre-restore copy).
      if move.files != nil && Self.exists(move.staging) { return false }
      if Self.exists(move.staging) {
        // Set aside (or not there at the restore) and made again since.
        return (move.aside.map(Self.exists) ?? true) && Self.exists(move.destination)
      }
      guard let digest = move.digest,
        let live = try? SaveScan.scan(
          locations: [(move.name, move.destination)], patterns: move.patterns,
          isExcluded: Self.exclusion(target)),
        let entries = try? Fingerprint(scan: live).contentEntries()
      else {
        // Missing: written since only when the restore brought it something.
        return move.digest != nil && move.digest != ContentDigest.of([]) && !Self.exists(move.destination)
      }
      return ContentDigest.of(entries) != digest
    }
  }

  /// Whether the game wrote its registry keys in the prefix's file since the restore of
  /// `move`, the location's export, began: they hold neither what they held then (the export
  /// as the restore found it, or as it set it aside) nor, once the export is swapped, what the
  /// restore merges (a restore stopped after its merge, and the game run since, is no merge
  /// to do again over what the game wrote).
  private static func isWrittenSince(_ move: RestoreJournal.Move, registry: RegistrySource) -> Bool {
    func keys(_ folder: String) -> [[UInt8]] {
      RegistryExport.keys(inFile: folder + "/" + registry.key.file.rawValue, of: registry)
    }
    let live = RegistryExport.keys(inFile: registry.file, of: registry)
    // No export folder when the restore began: the prefix had none of the keys.
    guard let aside = move.aside else {
      return exists(move.staging) ? !live.isEmpty : live != keys(move.destination) && !live.isEmpty
    }
    if exists(move.staging) { return live != keys(exists(aside) ? aside : move.destination) }
    if live == keys(move.destination) { return false }
    // Set aside and kept already: the restore merged its keys before that.
    guard exists(aside) else { return true }
    return live != keys(aside)
  }

  /// After an interrupted restore the game wrote into its save: that save stays as the game
  /// left it (no swap is finished over it), the save from before the restore (the folders set
  /// aside and those not swapped yet) is kept whole as a pre-restore copy, and what the restore
  /// staged is removed. The agreement stays as it was, so the next sync sees what changed.
  private func keepWhatTheGameWrote(_ journal: RestoreJournal, target: Target) throws {
    let before = journal.moves.compactMap { move -> (name: String, path: String)? in
      if let aside = move.aside, Self.exists(aside) { return (move.name, aside) }
      // (A location the game made since as a file, where the config named a folder, stays as
      // it is: it was no part of the save before the restore.)
      return Self.exists(move.staging) && Platform.isFolder(move.destination)
        ? (move.name, move.destination) : nil
    }
    // A location of files not set aside yet: its matching files only, not their whole folder.
    let patterns = journal.moves.reduce(into: [String: FilePattern]()) { patterns, move in
      if let files = move.files,
        before.contains(where: { $0.name == move.name && $0.path == move.destination })
      {
        patterns[move.name] = files
      }
    }
    var kept: String?
    if let old = try SaveScan.scan(locations: before, patterns: patterns, isExcluded: Self.exclusion(target)),
      !old.isEmpty
    {
      kept = try packPreRestoreCopy(old, target: target)
    }
    noteUndoPoint(target, kept: kept, restoredArchive: nil, container: journal.container)
    for move in journal.moves {
      if let aside = move.aside, Self.exists(aside) { removeKept(aside, game: target.game) }
      if Self.exists(move.staging) { removeTree(move.staging) }
    }
    context.log.warning(
      "the save was written to after the restore of '\(journal.archive)' was interrupted: it stays as it is; the save from before that restore is kept\(kept.map { " at '\($0)'" } ?? "")"
    )
  }
}
