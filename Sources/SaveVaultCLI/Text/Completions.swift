/// Shell completion scripts for bash, zsh and fish, made from the commands' declarations:
/// commands, each command's options, and values where they are cheap to know: game names
/// from the config file (`savevault completions --list-games`), folders, files, the words of
/// a choice, and after `wrap ... --` the game's own command line.
enum Completions {
  static let shells = ["bash", "zsh", "fish"]

  static func script(for shell: String) -> String? {
    switch shell {
    case "bash": bash()
    case "zsh": zsh()
    case "fish": fish()
    default: nil
    }
  }

  static var commands: [CommandDeclaration] { Commands.declarations }

  /// What completes after `command`: its options, the TARGET ones, the global ones.
  static func options(of command: CommandDeclaration) -> [Option] {
    command.acceptedOptions.filter { !$0.isHidden }
  }

  static var globalOptions: [Option] { GlobalOptions.declared }

  /// Every option that takes a value, once each.
  static var valueOptions: [Option] {
    var seen: Set<String> = []
    return (commands.flatMap(\.acceptedOptions) + globalOptions).filter {
      $0.takesValue && seen.insert($0.name).inserted
    }
  }

  /// `--archive|--config|…`: the options whose next word is a value.
  static var valuePattern: String { valueOptions.map(\.spelling).joined(separator: "|") }

  /// The value options whose values complete the same way, as a shell case pattern.
  static func pattern(_ completion: Option.Completion) -> String? {
    let names = valueOptions.filter { $0.completion == completion && $0.choices.isEmpty }.map(\.spelling)
    return names.isEmpty ? nil : names.joined(separator: "|")
  }

  /// The choice options with their words.
  static var choiceOptions: [Option] { valueOptions.filter { !$0.choices.isEmpty } }

  /// The words a command takes in place of options (`completions`: bash, zsh and fish).
  static func words(of command: CommandDeclaration) -> [String] {
    command.positionals.flatMap(\.values)
  }

  /// `--force --json … -q --quiet`: what may follow a command.
  static func spellings(_ options: [Option]) -> String {
    options.flatMap { option in [option.spelling] + (option.short.map { ["-\($0)"] } ?? []) }
      .joined(separator: " ")
  }

  static var commandNames: String { commands.map(\.name).joined(separator: " ") }
}
