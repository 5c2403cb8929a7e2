/// Problems with settings: the config file, the environment, or the target of a command.
public enum ConfigError: AdvisedError, Equatable, Sendable {
  /// The config file exists but cannot be read or parsed.
  case unreadableFile(path: String, reason: String)
  /// `--game NAME` names a game the config file does not have.
  case unknownGame(name: String, configPath: String)
  /// A game has no save directory.
  case missingSaveDirectory(game: String)
  /// A container URL that SaveVault cannot use.
  case invalidContainerURL(String, reason: Advised)
  /// A game's entry in the config file has a key SaveVault does not know (a misspelt
  /// `contianer` would otherwise send the backups to another container).
  case unknownKey(UnknownConfigKey, configPath: String)
  /// A game name that cannot be a folder name (`Target.gameNameRule`); when it was not given
  /// but taken from the save directory's last component, `--game NAME` is the way out.
  case invalidGameName(String, isFromSaveDirectory: Bool = false)
  /// No game and no save directory was named.
  case noTarget
  /// Some other missing or contradictory setting.
  case invalid(Advised)

  public var message: Advised {
    switch self {
    case .unreadableFile(let path, let reason):
      "config file '\(path)' is unusable: \(reason)"
    case .unknownGame(let name, let configPath):
      "no game '\(name)' in config file '\(configPath)': add it there, or \(remedy: .nameSaveDirectory)"
    case .missingSaveDirectory(let game):
      "game '\(game)' has no save directory: set \"saveDir\" in the config file or \(remedy: .nameSaveDirectory)"
    case .invalidContainerURL(let url, let reason):
      "container URL '\(url)' is not usable: \(reason)"
    case .unknownKey(let key, let configPath):
      "game '\(key.game ?? "")' in config file '\(configPath)': \(key); fix the key, or replace the entry with \(remedy: .addGameAgain(key.game))"
    case .invalidGameName(let name, let isFromSaveDirectory):
      isFromSaveDirectory
        ? "\(Self.gameNameProblem(name)); it is the save directory's last component: \(remedy: .nameGame)"
        : Advised(Self.gameNameProblem(name))
    case .noTarget:
      "no game given: \(remedy: .nameGameOrSaveDirectory)"
    case .invalid(let message):
      message
    }
  }

  private static func gameNameProblem(_ name: String) -> String {
    "'\(name)' cannot be a game name: a game name is \(Target.gameNameRule) (this one is \(name.utf8.count) bytes)"
  }
}

extension ConfigError: ExitStatusProviding {
  public var exitStatus: ExitStatus { .usage }
}
