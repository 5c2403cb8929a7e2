/// A command line that cannot be understood: exit code 2.
struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
  var message: String
  /// The command whose help to point at, if any.
  var command: String?

  var description: String {
    message + "\n"
      + (command.map { "Run 'savevault \($0) --help' for its usage." } ?? "Run 'savevault --help' for usage.")
  }
}

/// The parsed command line: global flags, the command, its options, and anything after `--`.
struct Arguments: Equatable {
  var command: String?
  var configFile: String?
  var isHelp = false
  var isVersion = false
  var isQuiet = false
  var isVerbose = false
  /// Options by name (without dashes); flags map to "".
  var options: [String: String] = [:]
  var positional: [String] = []
  /// Everything after `--` (for `wrap`).
  var trailing: [String]?

  /// Options that take a value, per command; flags take none.
  static let valueOptions: Set<String> = [
    "game", "save-dir", "container", "archive", "keep", "config", "on-conflict", "endpoint",
    "steam-app-id", "compress", "keep-pre-restore",
  ]
  static let flagOptions: Set<String> = [
    "force", "json", "latest", "all", "help", "version", "quiet", "verbose", "allow-insecure-http",
    "list-games", "replace", "undo", "pre-restore",
  ]
  static let globalShort: [Character: String] = ["h": "help", "q": "quiet", "v": "verbose"]

  /// Parses `words` (without the program name). Throws `UsageError` for unknown options and
  /// missing values.
  static func parse(_ words: [String]) throws(UsageError) -> Arguments {
    var result = Arguments()
    var index = 0
    while index < words.count {
      let word = words[index]
      index += 1
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
      } else if word.hasPrefix("-"), word.count == 2, let long = globalShort[word.last ?? " "] {
        name = long
      } else if word.hasPrefix("-") && word.count > 1 {
        throw UsageError(message: "unknown option '\(word)'", command: result.command)
      } else {
        if result.command == nil { result.command = word } else { result.positional.append(word) }
        continue
      }
      if valueOptions.contains(name) {
        guard let value = inlineValue ?? (index < words.count ? words[index] : nil) else {
          throw UsageError(message: "option '--\(name)' needs a value", command: result.command)
        }
        if inlineValue == nil { index += 1 }
        if name == "config" { result.configFile = value } else { result.options[name] = value }
      } else if flagOptions.contains(name) {
        guard inlineValue == nil else {
          throw UsageError(message: "option '--\(name)' takes no value", command: result.command)
        }
        switch name {
        case "help": result.isHelp = true
        case "version": result.isVersion = true
        case "quiet": result.isQuiet = true
        case "verbose": result.isVerbose = true
        default: result.options[name] = ""
        }
      } else {
        throw UsageError(message: "unknown option '--\(name)'", command: result.command)
      }
    }
    return result
  }

  /// Refuses options that `command` does not take, and more than `positional` plain words.
  func requireOnly(_ allowed: Set<String>, positional count: Int = 0) throws(UsageError) {
    for name in options.keys.sorted() where !allowed.contains(name) {
      throw UsageError(message: "'\(command ?? "")' does not take '--\(name)'", command: command)
    }
    if let extra = positional.dropFirst(count).first {
      throw UsageError(message: "unexpected argument '\(extra)'", command: command)
    }
    if trailing != nil && command != "wrap" {
      throw UsageError(message: "'\(command ?? "")' takes nothing after '--'", command: command)
    }
  }

  func has(_ flag: String) -> Bool { options[flag] != nil }
}
