import Foundation

/// Changes the games of a config file while keeping everything else in it: the file is read
/// as plain JSON (so keys this version does not know survive), changed, checked to still be a
/// valid config, and written atomically (a crash leaves the old file or the new one). A
/// symlinked config file (dotfile managers) is written where it really is; the link stays.
struct ConfigEditor {
  /// The config file's absolute path.
  var path: String

  /// The file's top-level object; an empty one when the file does not exist. Throws
  /// `ConfigError.unreadableFile` for a file that is not a valid config.
  func load() throws(ConfigError) -> [String: Any] {
    _ = try ConfigFile.load(path: path, isRequired: false)  // refuses what is not a valid config
    guard let data = FileManager.default.contents(atPath: path) else { return [:] }
    guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
      throw .unreadableFile(path: path, reason: "not a JSON object")
    }
    return object
  }

  /// The `games` object of `config`.
  static func games(of config: [String: Any]) -> [String: Any] {
    config["games"] as? [String: Any] ?? [:]
  }

  /// Writes `config` (sorted keys, indented), after checking that it is still a valid config.
  func save(_ config: [String: Any]) throws {
    let data: Data
    do {
      data = try JSONSerialization.data(
        withJSONObject: config, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
      _ = try JSONDecoder().decode(ConfigFile.self, from: data)
    } catch {
      throw ConfigError.unreadableFile(path: path, reason: "the changed config would not be valid: \(error)")
    }
    try AtomicFile.write(data + Data("\n".utf8), to: Platform.resolvedPath(path))
  }
}

/// What `add` wrote into the config file.
public struct AddGameReport: Codable, Sendable, Equatable {
  public var game: String
  /// The save directory, absolute.
  public var saveDir: String
  /// The game's own container (nil: the file's, `SAVEVAULT_CONTAINER` or the default).
  public var container: String?
  public var steamAppId: String?
  public var configFile: String
  /// Whether an entry of the same name was replaced (`--replace`).
  public var replaced: Bool
  /// Whether the save directory exists yet (a new device may not have one).
  public var saveDirExists: Bool
  /// A detected game's locations as written (with placeholders); nil for a save directory.
  public var locations: [String]? = nil
  /// A detected game's title, when the name is its safe form.
  public var title: String? = nil
}

/// What `remove` took out of the config file, and the agreements it forgot. No save, archive
/// or pre-restore copy is touched.
public struct RemoveGameReport: Codable, Sendable, Equatable {
  public var game: String
  public var configFile: String
  /// The removed entry's save directory and container, as they were written.
  public var saveDir: String?
  public var container: String?
  /// Whether the game was in the config file (false: only in this device's agreements).
  public var isInConfig = true
  /// The save directories of this device's agreements about the game, which it forgot.
  public var forgotten: [String] = []
}

/// A game to add, as the flags give it (paths as typed).
public struct NewGame: Sendable, Equatable {
  public var name: String
  public var saveDirectory: String
  public var containerURL: String?
  public var steamAppId: String?

  public init(name: String, saveDirectory: String, containerURL: String? = nil, steamAppId: String? = nil) {
    self.name = name
    self.saveDirectory = saveDirectory
    self.containerURL = containerURL
    self.steamAppId = steamAppId
  }
}
