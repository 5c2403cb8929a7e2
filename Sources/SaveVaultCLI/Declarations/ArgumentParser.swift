/// Reads a command line against the commands' declarations: first the words (which are
/// options, which take values, what the command is), then the command's own rules, then the
/// command's initialiser. Everything is checked before anything runs.
enum ArgumentParser {
  /// What a command line asks for.
  enum Invocation {
    case version
    /// A help text to print.
    case help(String)
    case run(any Command, GlobalOptions)
  }

  /// The words of a command line sorted out, before any command's rules.
  struct Words {
    struct Given {
      var option: Option
      var value: String?
    }

    var command: String?
    /// In the order given, the global ones too.
    var options: [Given] = []
    var positionals: [String] = []
    /// Everything after `--`.
    var trailing: [String]?
    var global = GlobalOptions()
  }

  /// Parses `words` (without the program name). Throws `UsageError` for anything the
  /// command's declaration does not allow.
  static func parse(_ words: [String]) throws(UsageError) -> Invocation {
    let split = try self.split(words)
    if split.global.isVersion { return .version }
    guard let name = split.command, name != "help" else {
      guard split.global.isHelp || split.command == "help" else {
        throw UsageError(message: "no command given", command: nil)
      }
      let command = split.positionals.first.flatMap(Commands.named)
      return .help(command.map { HelpText.help(for: $0.declaration) } ?? HelpText.main)
    }
    guard let command = Commands.named(name) else {
      throw UsageError(message: "unknown command '\(name)'", command: nil)
    }
    if split.global.isHelp { return .help(HelpText.help(for: command.declaration)) }
    return .run(try command.init(try command.declaration.parse(split)), split.global)
  }

  /// Options looked up by name and by letter (`-q`): a few dozen at most, so a plain search,
  /// which costs a short command less than making a dictionary type's metadata.
  struct OptionTable {
    var options: [Option]

    init(_ options: [Option]) { self.options = options }

    func named(_ name: String) -> Option? { options.first { $0.name == name } }
    func lettered(_ letter: Character) -> Option? { options.first { $0.short == letter } }
  }

  /// Every option any command declares. Made only when a word is not the command's own or a
  /// global option (to name the command it belongs to in the error): making every command's
  /// declaration costs a short command a noticeable part of its run.
  static let known = OptionTable(Commands.all.flatMap { $0.declaration.acceptedOptions })

  /// The options every command takes, for words before the command.
  static let global = OptionTable(GlobalOptions.declared)

  /// Sorts `words` into the command, options with their values, plain words and what follows
  /// `--`. Throws for an option no command has, a missing value, and a value given to a flag.
  static func split(_ words: [String]) throws(UsageError) -> Words {
    var result = Words()
    var index = 0
    // The command's own options once its name has been read, the global ones before.
    var accepted = global
    while index < words.count {
      let word = words[index]
      index += 1
      // A usage error points at the command's help once the command is known.
      let hint = result.command.flatMap { Commands.named($0) == nil ? nil : $0 }
      if word == "--" {
        result.trailing = Array(words[index...])
        break
      }
      var name: String
      var inlineValue: String?
      if word.hasPrefix("--") {
        name = String(word.dropFirst(2))
        if let equals = name.firstIndex(of: "=") {
          inlineValue = String(name[name.index(after: equals)...])
          name = String(name[..<equals])
        }
      } else if word.hasPrefix("-"), word.count == 2,
        let option = accepted.lettered(word.last ?? " ") ?? known.lettered(word.last ?? " ")
      {
        name = option.name
      } else if word.hasPrefix("-") && word.count > 1 {
        throw UsageError(message: "unknown option '\(word)'", command: hint)
      } else {
        if result.command == nil {
          result.command = word
          if let command = Commands.named(word) {
            accepted = OptionTable(command.declaration.acceptedOptions)
          }
        } else {
          result.positionals.append(word)
        }
        continue
      }
      guard let option = accepted.named(name) ?? known.named(name) else {
        throw UsageError(message: "unknown option '--\(name)'", command: hint)
      }
      var value: String?
      if option.takesValue {
        guard let given = inlineValue ?? (index < words.count ? words[index] : nil) else {
          throw UsageError(message: "option '--\(name)' needs a value", command: hint)
        }
        if inlineValue == nil { index += 1 }
        value = given
      } else if inlineValue != nil {
        throw UsageError(message: "option '--\(name)' takes no value", command: hint)
      }
      _ = result.global.take(option, value: value)
      result.options.append(Words.Given(option: option, value: value))
    }
    return result
  }
}

extension CommandDeclaration {
  /// Checks `words` against this command's rules: options it does not take, an option given
  /// twice, choices and numbers, plain words beyond its own, `--`, its groups and what it
  /// requires.
  func parse(_ words: ArgumentParser.Words) throws(UsageError) -> ParsedArguments {
    let accepted = Dictionary(acceptedOptions.map { ($0.name, $0) }) { first, _ in first }
    for given in words.options where accepted[given.option.name] == nil {
      throw UsageError(message: "'\(name)' does not take '\(given.option.spelling)'", command: name)
    }
    var result = ParsedArguments(command: name, positionals: words.positionals, trailing: words.trailing)
    for given in words.options {
      let option = accepted[given.option.name] ?? given.option
      if option.takesValue && result.values[option.name] != nil {
        throw UsageError(message: "option '\(option.spelling)' is given more than once", command: name)
      }
      if let value = given.value { try option.check(value, command: name) }
      result.values[option.name] = given.value ?? ""
    }
    if let extra = words.positionals.dropFirst(positionals.count).first {
      throw UsageError(message: "unexpected argument '\(extra)'", command: name)
    }
    if words.trailing != nil && trailing == nil {
      throw UsageError(message: "'\(name)' takes nothing after '--'", command: name)
    }
    for group in groups {
      let given = group.names.filter { result.values[$0] != nil }
      if group.isExclusive && given.count > 1 {
        throw UsageError(message: group.conflict(given), command: name)
      }
      if given.isEmpty, let missing = group.missing { throw UsageError(message: missing, command: name) }
    }
    for positional in positionals.dropFirst(words.positionals.count) {
      if let missing = positional.missing { throw UsageError(message: missing, command: name) }
    }
    for option in options where result.values[option.name] == nil {
      if let missing = option.missing { throw UsageError(message: missing, command: name) }
    }
    return result
  }
}

/// A command line checked against its command's declaration: what a command's initialiser
/// reads.
struct ParsedArguments: Equatable, Sendable {
  var command: String
  var positionals: [String] = []
  var trailing: [String]?
  /// The options given, by name; a flag's value is "".
  var values: [String: String] = [:]

  func has(_ option: Option) -> Bool { values[option.name] != nil }

  func value(_ option: Option) -> String? { values[option.name] }

  /// A number option's value (checked against its minimum by the parser).
  func number(_ option: Option) -> Int? { values[option.name].flatMap { Int($0) } }

  /// A choice option's value as the type whose raw values are its choices.
  func choice<Value: RawRepresentable<String>>(_ option: Option, as type: Value.Type) -> Value? {
    values[option.name].flatMap(Value.init(rawValue:))
  }
}
