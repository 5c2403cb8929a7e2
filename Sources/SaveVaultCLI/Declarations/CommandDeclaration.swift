/// A command as it is declared once: its name, what it does, the words and options it takes
/// and how they go together. The parser checks a command line against it; the help, the
/// manual page and the completions are made from it.
struct CommandDeclaration: Sendable {
  /// A plain word a command takes (`add NAME`, `completions bash|zsh|fish`).
  struct Positional: Sendable {
    /// Shown in the usage line: `NAME`.
    var name: String
    /// The words it may be, for the usage line and the completions (empty: any word).
    var values: [String] = []
    /// Set when the command refuses to run without it: the usage error saying so.
    var missing: String?

    /// `NAME`, or `bash|zsh|fish` for a word among `values`.
    var usage: String { values.isEmpty ? name : values.joined(separator: "|") }
  }

  /// Options that go together: at most one of them (`isExclusive`), at least one (`missing`),
  /// or both.
  struct Group: Sendable {
    var names: [String]
    var isExclusive = true
    /// Set when one of them must be given: the usage error when none is.
    var missing: String?
    /// The usage error for `given`, more than one of an exclusive group's options.
    var conflict: @Sendable (_ given: [String]) -> String = { _ in "" }
  }

  var name: String
  /// One line, for the list of commands and the completions.
  var abstract: String
  /// The help text's prose, laid out as it is printed.
  var discussion: String
  /// Whether it takes the TARGET options (`--game`, `--save-dir`, `--container`, …).
  var takesTarget = false
  var positionals: [Positional] = []
  /// The command's own options, in the order of its usage line and help.
  var options: [Option] = []
  var groups: [Group] = []
  /// What it takes after `--` (`COMMAND [ARG...]` for wrap), or nil for nothing.
  var trailing: String?
  /// What the command does with no target, for the help's `(none)` line.
  var noTarget: String?

  /// Every option the command accepts: its own, the TARGET options, the global ones.
  var acceptedOptions: [Option] {
    options + (takesTarget ? TargetOptions.declared : []) + GlobalOptions.declared
  }

  /// The group `option` belongs to, if any.
  func group(of option: String) -> Group? {
    groups.first { $0.names.contains(option) }
  }

  /// `savevault backup [TARGET] [--force] [--compress KIND] [--json]`.
  var usage: String {
    var words = ["savevault", name]
    if takesTarget { words.append("[TARGET]") }
    words += positionals.map { $0.missing == nil ? "[\($0.usage)]" : $0.usage }
    var shownGroups: Set<String> = []
    for option in options where !option.isHidden {
      if let group = group(of: option.name) {
        guard shownGroups.insert(group.names.joined()).inserted else { continue }
        let labels = group.names.compactMap { name in options.first { $0.name == name }?.label }
        let inner = labels.joined(separator: " | ")
        words.append(group.missing == nil ? "[\(inner)]" : "(\(inner))")
      } else {
        words.append(option.missing == nil ? "[\(option.label)]" : option.label)
      }
    }
    if let trailing { words += ["--", trailing] }
    return words.joined(separator: " ")
  }
}

extension CommandDeclaration {
  // What a command does with no target, where commands share it.

  /// `restore`, `list`, `verify` and `prune`.
  static let targetRequired = "a usage error (exit 2): name the game with --game or --save-dir"

  /// `backup` and `sync`.
  static let everyGameInTurn = "every game of the config file, one after the other"
}
