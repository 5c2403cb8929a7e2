/// Problems with settings: the config file, the environment, or the target of a command.
public enum ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The config file exists but cannot be read or parsed.
  case unreadableFile(path: String, reason: String)
  /// `--game NAME` names a game the config file does not have.
  case unknownGame(name: String, configPath: String)
  /// A game has no save directory.
  case missingSaveDirectory(game: String)
  /// A container URL that SaveVault cannot use.
  case invalidContainerURL(String, reason: String)
  /// A game's entry in the config file has a key SaveVault does not know (a misspelt
  /// `contianer` would otherwise send the backups to another container).
  case unknownKey(UnknownConfigKey, configPath: String)
  /// A game name that cannot be a folder name (`Target.gameNameRule`); when it was not given
  /// but taken from the save directory's last component, `--game NAME` is the way out.
  case invalidGameName(String, isFromSaveDirectory: Bool = false)
  /// Some other missing or contradictory setting.
  case invalid(String)

  public var description: String {
    switch self {
    case .unreadableFile(let path, let reason):
      "config file '\(path)' is unusable: \(reason)"
    case .unknownGame(let name, let configPath):
      "no game '\(name)' in config file '\(configPath)': add it there, or pass --save-dir DIR"
    case .missingSaveDirectory(let game):
      "game '\(game)' has no save directory: set \"saveDir\" in the config file or pass --save-dir DIR"
    case .invalidContainerURL(let url, let reason):
      "container URL '\(url)' is not usable: \(reason)"
    case .unknownKey(let key, let configPath):
      "game '\(key.game ?? "")' in config file '\(configPath)': \(key); fix the key, or replace the entry with 'savevault add \(key.game ?? "NAME") --save-dir DIR --replace'"
    case .invalidGameName(let name, let isFromSaveDirectory):
      "'\(name)' cannot be a game name: a game name is \(Target.gameNameRule) (this one is \(name.utf8.count) bytes)"
        + (isFromSaveDirectory
          ? "; it is the save directory's last component: name the game with --game NAME" : "")
    case .invalid(let message):
      message
    }
  }
}
