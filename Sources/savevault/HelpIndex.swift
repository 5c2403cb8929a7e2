import Foundation

/// The commands and options read out of the help texts (`Help.main`, `Help.commands`,
/// `Help.target`, `Help.global`), so that completions and the manual page follow the help
/// as soon as a command or an option is described there.
struct HelpIndex {
  struct Option: Equatable {
    /// The long name, without dashes.
    var name: String
    /// The short letter (`q` for `-q, --quiet`), if any.
    var short: Character?
    /// Whether it takes a value (`Arguments.valueOptions`).
    var takesValue: Bool
    /// Its one-line description from the help text (may be empty).
    var summary: String
  }

  /// Every command with its one-line summary from `Help.main` (or its help's first sentence).
  static var commands: [(name: String, summary: String)] {
    let summaries = describedLines(in: Help.main, pattern: #"^  ([a-z][a-z-]*)\s{2,}(.+)$"#)
    return Help.commands.keys.sorted().map { name in
      (name, summaries[name] ?? firstSentence(Help.commands[name] ?? ""))
    }
  }

  /// The options `command` takes (every `--name` its help text mentions), in order of first
  /// mention, with the global options last.
  static func options(for command: String) -> [Option] {
    options(in: Help.commands[command] ?? "") + globalOptions
  }

  /// `--config`, `--quiet`, `--verbose`, `--help`, `--version`.
  static var globalOptions: [Option] { options(in: Help.global) }

  /// Every `--name` of `text`, described by the line that starts with it.
  static func options(in text: String) -> [Option] {
    let summaries = describedLines(
      in: text, pattern: #"^\s+(?:-[a-zA-Z], )?--([a-z][a-z-]*)(?: [A-Z]+)?\s{2,}(.+)$"#)
    let shorts = describedLines(in: text, pattern: #"^\s+-([a-zA-Z]), --([a-z][a-z-]*)"#, swap: true)
    var seen: Set<String> = []
    var result: [Option] = []
    for name in matches(of: #"(?<![\w-])--([a-z][a-z-]*[a-z])"#, in: text) where seen.insert(name).inserted {
      result.append(
        Option(
          name: name, short: shorts[name].flatMap(\.first), takesValue: Arguments.valueOptions.contains(name),
          summary: summaries[name] ?? ""))
    }
    return result
  }

  /// The first sentence of a help text's description (after its usage line).
  static func firstSentence(_ text: String) -> String {
    let body = text.components(separatedBy: "\n\n").dropFirst().first ?? ""
    let flat = body.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
      .joined(separator: " ")
    return flat.components(separatedBy: ". ").first.map { $0.hasSuffix(".") ? String($0.dropLast()) : $0 }
      ?? ""
  }

  /// The usage line of a command's help (`savevault backup [TARGET] ...`).
  static func usage(of command: String) -> String {
    let first = (Help.commands[command] ?? "").split(whereSeparator: \.isNewline).first ?? ""
    return first.hasPrefix("Usage: ") ? String(first.dropFirst("Usage: ".count)) : "savevault \(command)"
  }

  /// The words a command takes in place of options, from its usage line
  /// (`savevault completions bash|zsh|fish` gives bash, zsh and fish).
  static func choices(of command: String) -> [String] {
    let tokens = usage(of: command).split(separator: " ").filter { $0.contains("|") && !$0.contains("-") }
    return tokens.flatMap { $0.split(separator: "|").map(String.init) }.filter {
      $0.allSatisfy { $0.isLowercase || $0.isNumber }
    }
  }

  /// Lines matching `pattern` as capture 1 → capture 2 (or 2 → 1 with `swap`).
  private static func describedLines(in text: String, pattern: String, swap: Bool = false) -> [String: String]
  {
    guard let expression = try? NSRegularExpression(pattern: pattern) else { return [:] }
    var result: [String: String] = [:]
    for line in text.split(whereSeparator: \.isNewline).map(String.init) {
      let range = NSRange(line.startIndex..., in: line)
      guard let match = expression.firstMatch(in: line, range: range), match.numberOfRanges >= 3,
        let one = Range(match.range(at: 1), in: line), let two = Range(match.range(at: 2), in: line)
      else { continue }
      let (key, value) =
        swap ? (String(line[two]), String(line[one])) : (String(line[one]), String(line[two]))
      if result[key] == nil { result[key] = firstLine(value) }
    }
    return result
  }

  /// A description cut where its help line wraps: no unclosed parenthesis, no trailing "or".
  private static func firstLine(_ text: String) -> String {
    var line = text.trimmingCharacters(in: .whitespaces)
    if line.filter({ $0 == "(" }).count > line.filter({ $0 == ")" }).count, let open = line.lastIndex(of: "(")
    {
      line = String(line[..<open])
    }
    for ending in [", or", " or", ","] where line.hasSuffix(ending) {
      line = String(line.dropLast(ending.count))
    }
    return line.trimmingCharacters(in: .whitespaces)
  }

  private static func matches(of pattern: String, in text: String) -> [String] {
    guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
    return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
      Range($0.range(at: 1), in: text).map { String(text[$0]) }
    }
  }
}
