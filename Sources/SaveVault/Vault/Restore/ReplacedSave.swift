import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Keeping the save a restore replaced: a one-folder save's folder as it is, a save of several
/// folders as one pre-restore copy.
extension Vault {
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
