/// The container of a game added without the player naming one (`wrap` under Steam adopting an
/// installed game the config file lacks): a container the player already chose, never the
/// embedded default by omission, which would keep the game's backups on this device while the
/// player's other games go to the cloud.
public enum AdoptionContainer: Sendable, Equatable {
  /// Where the player chose the container.
  public enum Choice: Sendable, Equatable {
    /// `--container` on this run.
    case flag
    /// The config file's top-level `container`.
    case configFile
    /// The one container every game of the config file names.
    case everyGame
    /// `SAVEVAULT_CONTAINER`.
    case environment
  }

  /// Why no container is chosen.
  public enum Unchosen: Sendable, Equatable {
    /// The config file has no game and no `container` (or there is no config file).
    case noGames
    /// The config file's games name different containers, or some name none, and the file
    /// has no `container`.
    case differentContainers
  }

  /// `url` as the player wrote it: `--container` and `SAVEVAULT_CONTAINER` relative to the
  /// current folder, the file's `container` and a game's relative to the config file's folder.
  case chosen(url: String, by: Choice)
  case unchosen(Unchosen)

  /// The rule, in order: `--container` (the container this run uses anyway; the file's own
  /// when both name one location), the config file's `container`, the container every game of
  /// the file names (one location, however spelt), then `SAVEVAULT_CONTAINER`; else none. Pure.
  static func choose(
    flag: String?, config: ConfigFile, environment: String?, configFolder: String, currentDirectory: String,
    home: String
  ) -> AdoptionContainer {
    func canonical(_ url: String?, in folder: String) -> String? {
      url.flatMap { try? ContainerLocation.parse($0, currentDirectory: folder, home: home).canonical }
    }
    let file = config.container.flatMap { $0.isEmpty ? nil : $0 }
    if let flag {
      if let file, let location = canonical(flag, in: currentDirectory),
        location == canonical(file, in: configFolder)
      {
        return .chosen(url: file, by: .configFile)
      }
      return .chosen(url: flag, by: .flag)
    }
    if let file { return .chosen(url: file, by: .configFile) }
    let games = (config.games ?? [:]).sorted { $0.key < $1.key }.map(\.value)
    let named = games.map { canonical($0.container, in: configFolder) }
    if let first = games.first?.container, named.allSatisfy({ $0 != nil && $0 == named[0] }) {
      return .chosen(url: first, by: .everyGame)
    }
    if let environment, !environment.isEmpty { return .chosen(url: environment, by: .environment) }
    return .unchosen(games.isEmpty ? .noGames : .differentContainers)
  }
}
