import Foundation
import SaveVault

extension Commands {
  /// What `savevault completions bash|zsh|fish` (a completion script) and `savevault manpage`
  /// (the manual page savevault(1) in roff) print, or nil for other command lines. Needs no
  /// HOME or config, so packagers can run it in a bare build environment.
  static func generatedText(_ arguments: Arguments) throws(UsageError) -> String? {
    switch arguments.command {
    case "manpage":
      try arguments.requireOnly([])
      return Manual.page() + "\n"
    case "completions" where !arguments.has("list-games"):
      try arguments.requireOnly([], positional: 1)
      guard let shell = arguments.positional.first, let script = Completions.script(for: shell) else {
        throw UsageError(
          message: "say which shell: savevault completions \(Completions.shells.joined(separator: "|"))",
          command: "completions")
      }
      return script
    default:
      return nil
    }
  }

  /// `savevault completions --list-games`: the config file's games, one a line (what the
  /// completion scripts offer after --game).
  func listGameNames() throws {
    try arguments.requireOnly(["list-games"])
    let games = try Target.configuredGames(
      configFile: arguments.configFile, paths: vault.paths, context: vault.context)
    for game in games { Console.write(game) }
  }
}
