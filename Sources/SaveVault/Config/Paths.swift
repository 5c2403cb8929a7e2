/// Where SaveVault keeps its files, from the XDG base directories.
///
/// - config: `$XDG_CONFIG_HOME/savevault/config.json` (or `SAVEVAULT_CONFIG`)
/// - embedded default container: `$XDG_DATA_HOME/savevault/container`
/// - pre-restore copies: `$XDG_DATA_HOME/savevault/pre-restore/<game>/`
/// - agreements, locks and wrap's log: `$XDG_STATE_HOME/savevault/`
/// - the save-location manifest's copy and index: `$XDG_CACHE_HOME/savevault/`
public struct Paths: Sendable, Equatable {
  public var home: String
  public var configFile: String
  public var dataDirectory: String
  public var stateDirectory: String
  /// `$XDG_CACHE_HOME/savevault`: what can be fetched again (the manifest's copy and index).
  public var cacheDirectory: String
  /// `$XDG_CONFIG_HOME`: other programs' settings are found under it (Ludusavi's manifest).
  public var configHome: String
  /// `$XDG_DATA_HOME`: other programs' data are found under it (Steam, Heroic, Lutris).
  public var dataHome: String

  /// Reads `HOME`, `XDG_CONFIG_HOME`, `XDG_DATA_HOME`, `XDG_STATE_HOME`, `XDG_CACHE_HOME` and `SAVEVAULT_CONFIG`.
  /// Relative XDG values are ignored, as the XDG specification says.
  public init(environment: [String: String]) throws(ConfigError) {
    guard let home = environment["HOME"], home.hasPrefix("/") else {
      throw .invalid("HOME is not set to an absolute path; SaveVault needs it to find its files")
    }
    func base(_ name: String, _ fallback: String) -> String {
      if let value = environment[name], value.hasPrefix("/") { return value }
      return home + "/" + fallback
    }
    self.home = home
    let configHome = base("XDG_CONFIG_HOME", ".config")
    self.configFile =
      environment["SAVEVAULT_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
      ?? configHome + "/savevault/config.json"
    self.configHome = configHome
    self.dataHome = base("XDG_DATA_HOME", ".local/share")
    self.dataDirectory = dataHome + "/savevault"
    self.cacheDirectory = base("XDG_CACHE_HOME", ".cache") + "/savevault"
    self.stateDirectory = base("XDG_STATE_HOME", ".local/state") + "/savevault"
  }

  /// The embedded default container, used when no flag, config or variable names one.
  public var defaultContainer: String { dataDirectory + "/container" }
  /// Whether `location` is the embedded default container, whose backups stay on this device
  /// (however its path is spelt).
  public func isDefaultContainer(_ location: ContainerLocation) -> Bool {
    location == .folder(path: absolute(defaultContainer, in: "/", home: home))
  }
  /// Where restore keeps the save it replaces.
  public func preRestoreDirectory(game: String) -> String { dataDirectory + "/pre-restore/" + game }
  /// Where this device's agreements live (a folder named `ledger`, as earlier versions made it).
  public var agreementsDirectory: String { stateDirectory + "/ledger" }
  /// Where per-game locks live.
  public var lockDirectory: String { stateDirectory + "/locks" }
}
