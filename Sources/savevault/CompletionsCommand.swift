import Foundation
import SaveVault

extension Commands {
  /// `savevault completions bash|zsh|fish`: the completion script on stdout.
  /// `savevault completions --list-games`: the config file's games, one a line (what the
  /// scripts offer after --game).
  func completions() throws {
    for name in arguments.options.keys.sorted() where name != "list-games" {
      throw UsageError(message: "'completions' does not take '--\(name)'", command: "completions")
    }
    if arguments.has("list-games") {
      let games = try Target.configuredGames(
        configFile: arguments.configFile, paths: vault.paths, context: vault.context)
      for game in games { Console.write(game) }
      return
    }
    guard arguments.positional.count == 1, let script = Completions.script(for: arguments.positional[0]) else {
      throw UsageError(
        message: "say which shell: savevault completions \(Completions.shells.joined(separator: "|"))",
        command: "completions")
    }
    FileHandle.standardOutput.write(Data(script.utf8))
  }

  /// `savevault manpage`: the manual page savevault(1) in roff, for `make install`.
  func manpage() throws {
    try arguments.requireOnly([])
    Console.write(Manual.page())
  }
}
