import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Vault {
  /// The staging folder restore extracts into, beside the save directory. Named by a
  /// fixed-length hash of the game, so that no game's prefix is another's.
  static func stagingPrefix(_ game: String) -> String { ".savevault-staging-\(gameTag(game))-" }
  /// The name the replaced save directory has between the two renames of a restore.
  static func asidePrefix(_ game: String) -> String { ".savevault-old-\(gameTag(game))-" }

  /// A replaced save directory kept as it is (never removed by SaveVault).
  static func keptPrefix(_ game: String) -> String { ".savevault-kept-\(gameTag(game))-" }

  private static func gameTag(_ game: String) -> String { String(SHA256.hex(of: game).prefix(12)) }

  /// Finishes or undoes what a killed restore of this game left, and says what it did (one
  /// sentence per repair, also logged as a warning). Call with the game's lock held.
  ///
  /// With the restore's journal, exactly: the old save is put back if the kill came between
  /// the two renames; a finished swap is completed (the replaced save kept as a pre-restore
  /// copy, the agreement recorded) when the save directory still holds exactly the archive's
  /// content. Then, for what no journal names:
  /// - a staging folder is an unfinished extraction: removed;
  /// - a set-aside folder with the save directory missing means the kill came between the
  ///   two renames: the old save is put back;
  /// - a set-aside folder with the save directory present is a finished swap whose clean-up
  ///   did not run: kept as a pre-restore copy, like any replaced save;
  /// - a killed undo's scratch archive is removed.
  @discardableResult
  func recoverInterruptedRestore(_ target: Target) -> [String] {
    var repaired: [String] = []
    func note(_ message: String) {
      context.log.warning(message)
      repaired.append(message)
    }
    if let journal = restoreJournals.load(game: target.game) {
      finish(journal, target: target, note: note)
    }
    if let journal = locationsJournals.load(game: target.game) {
      do {
        try finishLocations(journal, target: target, early: nil, content: nil)
        locationsJournals.remove(game: target.game)
        note("finished the interrupted restore of '\(journal.archive)' in every location of '\(target.game)'")
      } catch {
        note("could not finish the interrupted restore of '\(journal.archive)' yet: \(error)")
      }
    }
    // While a restore of several locations is unfinished, what it left is its journal's to
    // finish: nothing beside the locations is touched.
    let isUnfinished = locationsJournals.load(game: target.game) != nil
    for path in target.locations.map(\.path)
    where !isUnfinished {
      recoverNeighbours(of: path, target: target, note: note)
    }
    // A killed undo's scratch archive: only a packed duplicate of a folder copy still there.
    if exists(Self.undoScratch(paths) + "/" + target.game) { removeUndoScratch(game: target.game) }
    return repaired
  }

  /// Repairs what an interrupted restore left beside the save folder `path` with no journal
  /// naming it (see `recoverInterruptedRestore`).
  private func recoverNeighbours(of path: String, target: Target, note: (String) -> Void) {
    let destination = Platform.resolvedPath(path)
    let parent = (destination as NSString).deletingLastPathComponent
    let neighbours = (try? Platform.directoryNames(parent)) ?? []
    for name in neighbours.filter({ $0.hasPrefix(Self.stagingPrefix(target.game)) }) {
      removeTree(parent + "/" + name)
      note("removed '\(parent)/\(name)', an unfinished extraction left by an interrupted restore")
    }
    for name in neighbours.filter({ $0.hasPrefix(Self.asidePrefix(target.game)) }).sorted() {
      let aside = parent + "/" + name
      if !exists(destination) && rename(aside, destination) == 0 {
        try? Platform.syncDirectory(parent)
        note("put back '\(destination)' after an interrupted restore")
        continue
      }
      // Its agreement was never rewritten: the agreement still holds the one before it.
      let kept = keepReplaced(aside, target: target) { kept in
        if kept != nil {
          noteUndoPoint(target, kept: kept, restoredArchive: nil, container: target.agreementKey)
        }
      }
      if let kept {
        note("an interrupted restore had replaced the save; the replaced one is kept at '\(kept)'")
      }
    }
  }

  /// Where undo packs a folder copy before restoring it (see `putBack`).
  static func undoScratch(_ paths: Paths) -> String { paths.dataDirectory + "/undo-scratch" }

  /// Removes `game`'s undo scratch archive, and the scratch folder once no game has one.
  func removeUndoScratch(game: String) {
    removeTree(Self.undoScratch(paths) + "/" + game)
    rmdir(Self.undoScratch(paths))
  }

  /// Finishes or undoes the restore `journal` describes, then removes the journal.
  private func finish(_ journal: RestoreJournal, target: Target, note: (String) -> Void) {
    let destination = journal.destination
    let parent = (destination as NSString).deletingLastPathComponent
    if exists(journal.staging) {
      removeTree(journal.staging)
      note("removed '\(journal.staging)', the unfinished extraction of '\(journal.archive)'")
    }
    if let aside = journal.aside, exists(aside), !exists(destination) {
      // Killed between the renames: the restore did not happen.
      if rename(aside, destination) == 0 {
        try? Platform.syncDirectory(parent)
        note("put back '\(destination)': the interrupted restore of '\(journal.archive)' did not happen")
      }
      return restoreJournals.remove(game: journal.game)
    }
    let restored = try? SaveScan.scan(destination)
    let content = restored.flatMap { try? Fingerprint(scan: $0).contentEntries() }
    let isRestored = content.map(ContentDigest.of) == journal.contentDigest
    if let aside = journal.aside, exists(aside) {
      let kept = keepReplaced(aside, target: target) { kept in
        // Before the agreement below changes: undo returns to the one from before the restore.
        // A restore that never swapped (an empty folder set aside) leaves the undo point alone.
        guard kept != nil || isRestored else { return }
        noteUndoPoint(
          target, kept: kept, restoredArchive: isRestored && journal.undoing == nil ? journal.archive : nil,
          container: journal.undoing?.container ?? journal.container)
      }
      if let kept, isRestored {
        note(
          "finished the interrupted restore of '\(journal.archive)'; the replaced save is kept at '\(kept)'")
      } else if let kept {
        note("an interrupted restore had set the save aside; it is kept at '\(kept)'")
      }
    }
    if isRestored, let point = journal.undoing {
      if (try? putBackAgreement(point, knownBefore: point.madeAtMs != 0, target: target)) != nil {
        note("finished the interrupted undo: the agreement from before the undone restore is back")
      }
      return restoreJournals.remove(game: journal.game)
    }
    // Unless the restore recorded its agreement before the kill: the same archive, the same
    // rollback, no mark (a rollback to the archive already agreed on differs only in those).
    let agreed = agreements.load(target)
    if isRestored, let restored, let content, journal.container == target.agreementKey,
      agreed?.archive != journal.archive || agreed?.rolledBackFrom != journal.rolledBackFrom
        || agreed?.unresolved != nil
    {
      do {
        try recordAgreement(
          target: target, archive: journal.archive, scan: restored, content: content,
          rolledBackFrom: journal.rolledBackFrom)
        note("recorded the interrupted restore of '\(journal.archive)' as this device's agreement")
      } catch {
        return context.log.warning("could not record the restore of '\(journal.archive)': \(error)")
      }
    }
    restoreJournals.remove(game: journal.game)
  }

  private func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
  }
}
