import Foundation

/// The manual page `savevault(1)`, in roff, made from the help texts: the summary and exit
/// codes of `Help.main`, each command's help, and the target and global option blocks.
enum Manual {
  static func page() -> String {
    let name = Help.main.split(whereSeparator: \.isNewline).first.map(String.init) ?? "savevault"
    var lines = [
      ".\\\" The manual of savevault, made by 'savevault manpage' from its help texts.",
      ".TH SAVEVAULT 1 \"\" \"\(Help.version)\" \"User Commands\"",
      ".SH NAME",
      escape(name.replacingOccurrences(of: "savevault: ", with: "savevault - ")),
      ".SH SYNOPSIS",
      ".nf",
    ]
    lines += HelpIndex.commands.map { escape(HelpIndex.usage(of: $0.name)) }
    lines += [".fi", ".SH DESCRIPTION", escape(name), ".PP", ".nf"]
    lines += section(of: Help.main, from: "Commands:", to: "").map(escape)
    lines.append(".fi")
    lines.append(".SH COMMANDS")
    for command in HelpIndex.commands {
      lines += [".SS \(escape(command.name))", ".nf"]
      let help = Help.commands[command.name] ?? ""
      // The target block follows in its own section.
      let body = help.components(separatedBy: Help.target).joined(separator: "(TARGET: see TARGET below)")
      lines += body.split(separator: "\n", omittingEmptySubsequences: false).map { escape(String($0)) }
      lines.append(".fi")
    }
    lines += [".SH TARGET", ".nf"] + block(Help.target) + [".fi"]
    lines += [".SH OPTIONS", ".nf"] + block(Help.global) + [".fi"]
    lines +=
      [".SH EXIT STATUS"] + paragraphs(section(of: Help.main, from: "Exit codes:", to: "Run 'savevault"))
    lines += [
      ".SH SEE ALSO",
      "\\fBrclone\\fR(1), \\fBzenity\\fR(1), \\fBtar\\fR(1);",
      "the README and docs/json.md (the \\-\\-json output of every command) of the SaveVault sources.",
    ]
    return lines.joined(separator: "\n")
  }

  /// The lines of `text` from the one starting with `start` up to the one starting with `end`.
  private static func section(of text: String, from start: String, to end: String) -> [String] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let first = lines.firstIndex(where: { $0.hasPrefix(start) }) else { return [] }
    let last =
      lines[first...].dropFirst().firstIndex { end.isEmpty ? $0.isEmpty : $0.hasPrefix(end) }
      ?? lines.endIndex
    return Array(lines[first..<last])
  }

  /// Blank-line separated paragraphs as filled roff text.
  private static func paragraphs<Lines: Sequence<String>>(_ lines: Lines) -> [String] {
    var result: [String] = []
    for line in lines {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.isEmpty {
        if result.last != ".PP" && !result.isEmpty { result.append(".PP") }
      } else {
        result.append(escape(trimmed))
      }
    }
    return result.last == ".PP" ? Array(result.dropLast()) : result
  }

  /// A help block without its heading line, unindented by two.
  private static func block(_ text: String) -> [String] {
    text.split(separator: "\n").dropFirst().map {
      escape($0.hasPrefix("  ") ? String($0.dropFirst(2)) : String($0))
    }
  }

  /// Text safe for roff: backslashes escaped, minus signs as `\-`, no line starting a request.
  static func escape(_ text: String) -> String {
    let escaped = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
    return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
  }
}
