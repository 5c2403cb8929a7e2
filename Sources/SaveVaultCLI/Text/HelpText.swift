import SaveVault

/// The help texts, made from the commands' declarations: `savevault --help` and each
/// command's.
enum HelpText {
  /// `savevault --version`: the version, the commit and the libarchive it runs with.
  static var version: String {
    "savevault \(BuildInfo.version) (commit \(BuildInfo.commit), libarchive \(BuildInfo.libarchiveVersion))"
  }

  static let title = "savevault: cloud saves for any game, with the player in charge."

  /// The rows of an option table for `options` (a choice's words, when they have their own
  /// meanings, below it).
  static func rows(_ options: [Option]) -> [String] {
    let hasShort = options.contains { $0.short != nil }
    return options.filter { !$0.isHidden }.flatMap { option in
      let label = option.short.map { "-\($0), \(option.label)" } ?? (hasShort ? "    " : "") + option.label
      var lines = TextLayout.table([(label, option.help)])
      if case .choice(_, let choices) = option.kind {
        let described = choices.compactMap { choice in choice.help.map { (choice.name, $0) } }
        lines += TextLayout.table(described, indent: 6, column: 16)
      }
      return lines
    }
  }

  /// The Target block, with what no target means (`noTarget`) last.
  static func target(noTarget: String?) -> String {
    let none = noTarget.map { TextLayout.table([("(none)", $0)]) } ?? []
    return (["Target:"] + rows(TargetOptions.declared) + none).joined(separator: "\n")
  }

  static var global: String {
    (["Global options:"] + rows(GlobalOptions.declared)).joined(separator: "\n")
  }

  /// What the exit codes mean, as one paragraph.
  static var exitCodes: String {
    let codes = ExitStatus.table.map { "\($0.code) \($0.meaning)" }.joined(separator: ", ")
    return "Exit codes: \(codes); wrap otherwise exits with the game's own code."
  }

  /// `savevault --help`.
  static var main: String {
    let commands = Commands.declarations.map { command in
      "  " + command.name + String(repeating: " ", count: max(2, 10 - command.name.count)) + command.abstract
    }
    let noTarget =
      "backup, status, sync and doctor: every game of the config file; wrap: the game of $SteamAppId; the others need a target"
    return [
      title,
      "Usage: savevault COMMAND [TARGET] [OPTIONS]",
      (["Commands:"] + commands).joined(separator: "\n"),
      target(noTarget: noTarget),
      global,
      TextLayout.fill(exitCodes, lead: "", indent: 0).joined(separator: "\n"),
      "Run 'savevault COMMAND --help' for a command's options.",
    ].joined(separator: "\n\n")
  }

  /// Where a command's help puts the Target block.
  enum TargetBlock {
    case full
    /// A pointer to a block printed elsewhere (the manual's TARGET section).
    case reference
  }

  /// `savevault COMMAND --help`.
  static func help(for command: CommandDeclaration, target block: TargetBlock = .full) -> String {
    var parts = ["Usage: " + command.usage, command.discussion]
    let options = rows(command.options)
    if !options.isEmpty { parts.append(options.joined(separator: "\n")) }
    if command.takesTarget {
      switch block {
      case .full:
        parts.append(target(noTarget: command.noTarget))
      case .reference:
        let none = command.noTarget.map { TextLayout.table([("(none)", $0)]) } ?? []
        parts.append((["(TARGET: see TARGET below)"] + none).joined(separator: "\n"))
      }
    }
    return parts.joined(separator: "\n\n")
  }
}
