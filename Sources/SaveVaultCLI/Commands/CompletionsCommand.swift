import SaveVault

/// `savevault completions bash|zsh|fish`: a completion script; `--list-games` (for the
/// scripts): the config file's games, one a line.
struct CompletionsCommand: Command {
  static let listGames = Option(
    name: "list-games", kind: .flag, help: "print the config file's games, one a line", isHidden: true)

  static let declaration = CommandDeclaration(
    name: "completions", abstract: "print a bash, zsh or fish completion script",
    discussion: """
      Prints a completion script for the shell: commands, their options, the games of the
      config file as game names, folders as save directories. 'make install' installs all
      three; by hand, for example:

        savevault completions bash > ~/.local/share/bash-completion/completions/savevault
        savevault completions zsh > ~/.zfunc/_savevault      (with ~/.zfunc in $fpath)
        savevault completions fish > ~/.config/fish/completions/savevault.fish
      """,
    positionals: [CommandDeclaration.Positional(name: "SHELL", values: Completions.shells, missing: nil)],
    options: [listGames])

  /// What it prints.
  enum Output: Equatable, Sendable {
    case script(String)
    /// The config file's games.
    case games
  }

  var output: Output

  init(_ arguments: ParsedArguments) throws(UsageError) {
    if arguments.has(Self.listGames) {
      if let extra = arguments.positionals.first {
        throw UsageError(message: "unexpected argument '\(extra)'", command: "completions")
      }
      output = .games
      return
    }
    guard let shell = arguments.positionals.first, let script = Completions.script(for: shell) else {
      throw UsageError(
        message: "say which shell: savevault completions \(Completions.shells.joined(separator: "|"))",
        command: "completions")
    }
    output = .script(script)
  }

  var standaloneText: String? {
    guard case .script(let script) = output else { return nil }
    return script
  }

  var warnsAboutUnknownConfigKeys: Bool { false }

  func run(_ session: Session) throws -> ExitStatus {
    let games = try Target.configuredGames(
      configFile: session.configFile, paths: session.vault.paths, context: session.vault.context)
    for game in games { Console.write(game) }
    return .success
  }
}

/// `savevault manpage`: the manual page savevault(1).
struct ManpageCommand: Command {
  static let declaration = CommandDeclaration(
    name: "manpage", abstract: "print the manual page savevault(1)",
    discussion: """
      Prints the manual page savevault(1) in roff, made from these help texts
      (man -l <(savevault manpage) shows it).
      """)

  init(_ arguments: ParsedArguments) {}

  var standaloneText: String? { Manual.page() + "\n" }

  func run(_ session: Session) throws -> ExitStatus { .success }
}
