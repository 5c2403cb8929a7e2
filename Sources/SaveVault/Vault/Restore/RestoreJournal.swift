import Foundation

/// What a restore is about to do, written to `$XDG_STATE_HOME/savevault/restores/<game>.json`
/// before the first rename and removed when the restore is done: which folder is the new
/// save, which holds the old one, and what the new one holds. A restore killed anywhere
/// between leaves it behind, and the next command of that game finishes or undoes the restore
/// exactly (`Vault.recoverInterruptedRestore`).
struct RestoreJournal: GameRecord, Equatable {
  var game: String
  /// The agreement's container key of the target the restore ran for.
  var container: String
  var archive: String
  /// The save directory, where it really is.
  var destination: String
  /// The extracted archive, renamed to `destination` by the swap.
  var staging: String
  /// Where the old save goes between the renames (nil when there was none).
  var aside: String?
  /// The content digest of the extracted archive (`ContentDigest`).
  var contentDigest: String
  /// Set when the restore is `restore --undo` putting this undo point back: a finished swap
  /// then puts back the point's agreement instead of agreeing on `archive` (a pre-restore copy,
  /// never a cloud archive).
  var undoing: UndoPoint? = nil
  /// The cloud's latest, when the archive restored is an older one chosen on purpose.
  var rolledBackFrom: String? = nil
}

extension Vault {
  /// The journals of restores under way, one per game.
  var restoreJournals: GameRecordStore<RestoreJournal> {
    GameRecordStore(directory: paths.stateDirectory + "/restores")
  }
}
