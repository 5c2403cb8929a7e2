import Foundation

/// What a restore is about to do, written to `$XDG_STATE_HOME/savevault/restores/<game>.json`
/// before the first rename and removed when the restore is done: which folder is the new
/// save, which holds the old one, and what the new one holds. A restore killed anywhere
/// between leaves it behind, and the next command of that game finishes or undoes the restore
/// exactly (`Vault.recoverInterruptedRestore`).
struct RestoreJournal: Codable, Equatable {
  var game: String
  /// The ledger's container key of the target the restore ran for.
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

  static func path(game: String, paths: Paths) -> String {
    paths.stateDirectory + "/restores/" + game + ".json"
  }

  /// The journal a killed restore of `game` left, if any (nil for an unreadable one too).
  static func load(game: String, paths: Paths) -> RestoreJournal? {
    guard let data = FileManager.default.contents(atPath: path(game: game, paths: paths)),
      let journal = try? JSONDecoder().decode(RestoreJournal.self, from: data), journal.game == game
    else { return nil }
    return journal
  }

  /// Writes the journal durably (before the swap it describes).
  func save(paths: Paths) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    try AtomicFile.write(try encoder.encode(self), to: Self.path(game: game, paths: paths))
  }

  /// Removes the journal: the restore it describes is done or undone.
  static func remove(game: String, paths: Paths) {
    try? FileManager.default.removeItem(atPath: path(game: game, paths: paths))
  }
}
