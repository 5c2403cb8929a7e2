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

  /// Finishes what a killed restore of this game left beside its save directory. Call with the
  /// game's lock held.
  ///
  /// - A staging folder is an unfinished extraction: removed.
  /// - A set-aside folder with the save directory missing means the kill came between the two
  ///   renames: the old save is put back (the restore did not happen).
  /// - A set-aside folder with the save directory present is a finished swap whose clean-up
  ///   did not run: kept as a pre-restore copy, like any replaced save.
  func recoverInterruptedRestore(_ target: Target) {
    let destination = Platform.resolvedPath(target.saveDirectory)
    let parent = (destination as NSString).deletingLastPathComponent
    let neighbours = (try? Platform.directoryNames(parent)) ?? []
    for name in neighbours.filter({ $0.hasPrefix(Self.stagingPrefix(target.game)) }) {
      context.log.warning("removing '\(parent)/\(name)', left by an interrupted restore")
      removeTree(parent + "/" + name)
    }
    for name in neighbours.filter({ $0.hasPrefix(Self.asidePrefix(target.game)) }).sorted() {
      let aside = parent + "/" + name
      var info = stat()
      if lstat(destination, &info) != 0 && errno == ENOENT {
        if rename(aside, destination) == 0 {
          context.log.warning("put back '\(destination)' after an interrupted restore")
          try? Platform.syncDirectory(parent)
          continue
        }
      }
      if let kept = keepReplaced(aside, target: target) {
        context.log.warning(
          "an interrupted restore had replaced the save; the replaced one is kept at '\(kept)'")
        // Its agreement was never rewritten: the ledger still holds the one before it.
        noteUndoPoint(target, kept: kept, restoredArchive: nil, container: target.ledgerKey)
      }
    }
  }
}
