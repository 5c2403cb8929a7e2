import Foundation

/// A record kept per game, named by its game.
protocol GameRecord: Codable {
  var game: String { get }
}

/// One JSON record per game in a folder of the state directory (`<directory>/<game>.json`),
/// written atomically: the restore journals and the undo points.
struct GameRecordStore<Record: GameRecord> {
  var directory: String

  private func path(_ game: String) -> String { directory + "/" + game + ".json" }

  /// The game's record; nil when there is none or it is unreadable.
  func load(game: String) -> Record? {
    guard let data = FileManager.default.contents(atPath: path(game)),
      let record = try? JSONDecoder().decode(Record.self, from: data), record.game == game
    else { return nil }
    return record
  }

  /// Writes the record durably.
  func save(_ record: Record) throws {
    try AtomicFile.write(JSONEncoder.stable.encode(record), to: path(record.game))
  }

  func remove(game: String) { unlink(path(game)) }
}
