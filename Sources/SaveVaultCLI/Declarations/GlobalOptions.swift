/// The options every command takes, wherever they stand on the line.
struct GlobalOptions: Equatable, Sendable {
  var configFile: String?
  var isQuiet = false
  var isVerbose = false
  var isHelp = false
  var isVersion = false
  var steamUser: String?

  static let config = Option(
    name: "config", kind: .value(placeholder: "FILE"),
    help: "config file (default: $SAVEVAULT_CONFIG or $XDG_CONFIG_HOME/savevault/config.json)",
    summary: "config file", completion: .files)
  static let quiet = Option(name: "quiet", short: "q", kind: .flag, help: "print only errors")
  static let verbose = Option(
    name: "verbose", short: "v", kind: .flag, help: "explain each decision on stderr")
  static let help = Option(name: "help", short: "h", kind: .flag, help: "show help")
  static let version = Option(name: "version", kind: .flag, help: "show the version")
  static let steamUser = Option(
    name: "steam-user", kind: .value(placeholder: "ID"),
    help:
      "the Steam account whose folders <storeUserId> names when Steam here has several: its account id or 64-bit SteamID (default: $SAVEVAULT_STEAM_USER or the config file)",
    summary: "which Steam account's saves")

  static let declared = [config, quiet, verbose, help, version, steamUser]

  /// Records `option` if it is a global one; false for a command's own.
  mutating func take(_ option: Option, value: String?) -> Bool {
    switch option.name {
    case Self.config.name: configFile = value
    case Self.quiet.name: isQuiet = true
    case Self.verbose.name: isVerbose = true
    case Self.help.name: isHelp = true
    case Self.version.name: isVersion = true
    case Self.steamUser.name: steamUser = value
    default: return false
    }
    return true
  }
}
