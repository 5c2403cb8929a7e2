import Foundation

/// One option as a command declares it: its name, how it takes a value, and what its help
/// says. Parsing, the help texts, the manual page and the completions all read it from here.
struct Option: Sendable {
  /// How an option takes its value.
  enum Kind: Sendable, Equatable {
    /// No value: given or not.
    case flag
    /// Any word, shown as `placeholder` (`--game NAME`).
    case value(placeholder: String)
    /// One of fixed words (`--compress none|zstd`), each with what it means.
    case choice(placeholder: String, [Choice])
    /// A whole number of at least `minimum` (`--keep N`).
    case number(placeholder: String, minimum: Int)
  }

  /// One word a choice option takes, with what it means (nil: the option's help says it).
  struct Choice: Sendable, Equatable {
    var name: String
    var help: String?
  }

  /// What the completion scripts offer as the option's value.
  enum Completion: Sendable {
    case nothing, games, directories, files
  }

  /// The long name, without dashes.
  var name: String
  /// The one-letter spelling (`q` for `-q`), if any.
  var short: Character?
  var kind: Kind
  /// The help text's description, as one paragraph (it is wrapped where it is shown).
  var help: String
  /// The one-line description of the completion scripts (default: the help up to its first
  /// `;`, `:` or parenthesis).
  var summary: String?
  var completion: Completion = .nothing
  /// Not in the help or the completions (an option for the scripts themselves).
  var isHidden = false
  /// Set when the command refuses to run without the option: the usage error saying so.
  var missing: String?

  /// `--name`.
  var spelling: String { "--" + name }

  /// `--name PLACEHOLDER`, or `--name` for a flag.
  var label: String {
    switch kind {
    case .flag: spelling
    case .value(let placeholder), .choice(let placeholder, _), .number(let placeholder, _):
      spelling + " " + placeholder
    }
  }

  var takesValue: Bool { kind != .flag }

  /// The words a choice option takes (none for other kinds).
  var choices: [String] {
    guard case .choice(_, let choices) = kind else { return [] }
    return choices.map(\.name)
  }

  /// The completion scripts' one-line description.
  var oneLine: String {
    if let summary { return summary }
    let cut = help.firstRange(of: #/[;:]| \(/#).map { help[..<$0.lowerBound] } ?? help[...]
    return String(cut).trimmingCharacters(in: .whitespaces)
  }

  /// The same option, with another help text.
  func described(_ help: String) -> Option {
    var option = self
    option.help = help
    return option
  }

  /// The same option, required: without it the command is a usage error saying `message`.
  func required(_ message: String) -> Option {
    var option = self
    option.missing = message
    return option
  }

  /// Checks a value given to the option: a choice it offers, a number in range.
  func check(_ value: String, command: String) throws(UsageError) {
    switch kind {
    case .flag, .value:
      return
    case .choice(_, let choices):
      guard !choices.contains(where: { $0.name == value }) else { return }
      throw UsageError(
        message: "\(spelling) must be one of \(choices.map(\.name).joined(separator: ", ")), not '\(value)'",
        command: command)
    case .number(_, let minimum):
      guard let number = Int(value), number >= minimum else {
        throw UsageError(
          message: "\(spelling) needs a whole number of at least \(minimum), not '\(value)'", command: command
        )
      }
    }
  }
}

extension Option {
  /// `--json`, described as the command prints it.
  static func json(_ help: String) -> Option {
    Option(name: "json", kind: .flag, help: help, summary: "print the result as JSON")
  }
}
