import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension RestoreJournal.Move {
  /// Its location's pattern, by name, for a scan of its destination.
  var patterns: [String: FilePattern] { shape.kind.pattern.map { [name: $0] } ?? [:] }
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
    let target = withJournalLocations(target, journal: journal)
    let journal = journal.withShapes(of: target)
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

  /// Puts each move's staged content in place of its save (`LocationShape.swap`: a folder by
  /// two renames, the parent flushed; files one by one), then finishes each location's swap
  /// (`afterSwaps`: registry keys merged). A move already swapped is skipped. A restore
  /// committed at its swap puts the old folder back when the second rename fails.
  func swap(_ journal: RestoreJournal, target: Target) throws {
    let excluded = Self.exclusion(target)
    for (index, move) in journal.moves.enumerated() where Self.exists(move.staging) {
      // A file an earlier location of files names is that location's (`SaveScan`): this one
      // neither sets it aside nor puts it back.
      let earlier = journal.moves[..<index].compactMap { other in
        other.shape.kind.pattern.map { (other.destination, $0) }
      }
      try move.shape.kind.swap(
        move, of: journal,
        isTaken: { path in
          excluded(path)
            || earlier.contains { folder, pattern in
              let full = move.destination + "/" + path
              return full.hasPrefix(folder + "/") && pattern.matches(String(full.dropFirst(folder.count + 1)))
            }
        }, in: self)
    }
    for move in journal.moves { try move.shape.kind.afterSwaps(move, of: journal, target: target, in: self) }
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
      unplaced: journal.unplaced?.map(\.archived) ?? [],
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
  /// (the game ran before SaveVault did again), as each location's shape tells.
  private func isWrittenSince(_ journal: RestoreJournal, target: Target) -> Bool {
    journal.moves.contains { $0.shape.kind.isWrittenSince($0, target: target, in: self) }
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
      if let files = move.shape.kind.pattern,
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
