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
  /// With the restore's journal, exactly (`finish`): a one-folder restore killed before its
  /// swap is undone, the old save put back if the kill came between the two renames; any other
  /// is finished (the replaced save kept as a pre-restore copy, the agreement recorded when the
  /// save still holds exactly the archive's content). Then, for what no journal names:
  /// - a staging folder is an unfinished extraction: removed;
  /// - a set-aside folder with the save directory missing means the kill came between the
  ///   two renames: the old save is put back;
  /// - a set-aside folder with the save directory present is a finished swap whose clean-up
  ///   did not run: kept as a pre-restore copy, like any replaced save;
  /// - a killed undo's scratch archive is removed, and so is a killed upload's extraction of
  ///   the locations it carried forward.
  ///
  /// A restore it cannot finish (nor undo) throws `VaultError.restoreUnfinished`, so that no
  /// command syncs a half-restored save: its journal stays for the next command.
  @discardableResult
  func recoverInterruptedRestore(_ target: Target) throws -> [String] {
    var repaired: [String] = []
    func note(_ message: String) {
      context.log.warning(message)
      repaired.append(message)
    }
    if let journal = restoreJournals.load(game: target.game) {
      do {
        if try finish(journal, target: target, note: note), journal.commit == .journal {
          note(
            "finished the interrupted restore of '\(journal.archive)' in every location of '\(target.game)'")
        }
      } catch {
        let places = journal.moves.flatMap { [$0.aside, $0.staging] }.compactMap { $0 }.filter(Self.exists)
        throw VaultError.restoreUnfinished(
          game: target.game, archive: journal.archive, places: places, reason: "\(error)")
      }
    }
    // While a restore is unfinished, what it left is its journal's to finish: nothing beside
    // the locations is touched.
    if restoreJournals.load(game: target.game) == nil {
      for location in target.locations { recoverNeighbours(of: location.path, target: target, note: note) }
    }
    // A killed undo's scratch archive: only a packed duplicate of a folder copy still there.
    if Self.exists(Self.undoScratch(paths) + "/" + target.game) { removeUndoScratch(game: target.game) }
    // A killed upload's extraction of the locations it carried forward.
    let carried = Self.carryScratch(paths) + "/" + target.game
    if Self.exists(carried) { removeCarried(carried) }
    return repaired
  }

  /// `recoverInterruptedRestore`, then the target as the agreement has it now: a restore it
  /// finished may have placed a location the game's list lacks, part of the save from then on
  /// (`resolvedLocations`), so that what the command goes on to scan, upload or keep holds it.
  func recovered(_ target: Target) throws -> Target {
    try recoverInterruptedRestore(target)
    return resolvedLocations(target)
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
      if !Self.exists(destination) && rename(aside, destination) == 0 {
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
}
