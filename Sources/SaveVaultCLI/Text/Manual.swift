import Foundation
import SaveVault

/// The manual page `savevault(1)`, in roff, made from the commands' declarations: the
/// synopsis, the list of commands, each command's help, the target and global options and
/// the exit codes.
enum Manual {
  static func page() -> String {
    let commands = Commands.declarations
    var lines = [
      ".\\\" The manual of savevault, made by 'savevault manpage' from its help texts.",
      ".TH SAVEVAULT 1 \"\" \"savevault \(BuildInfo.version)\" \"User Commands\"",
      ".SH NAME",
      escape(HelpText.title.replacingOccurrences(of: "savevault: ", with: "savevault - ")),
      ".SH SYNOPSIS",
      ".nf",
    ]
    lines += commands.map { escape($0.usage) }
    lines += [".fi", ".SH DESCRIPTION", escape(HelpText.title), ".PP", ".nf"]
    lines += section(of: HelpText.main, from: "Commands:").map(escape)
    lines.append(".fi")
    lines.append(".SH COMMANDS")
    for command in commands {
      lines += [".SS \(escape(command.name))", ".nf"]
      let help = HelpText.help(for: command, target: .reference)
      lines += help.split(separator: "\n", omittingEmptySubsequences: false).map { escape(String($0)) }
      lines.append(".fi")
    }
    lines += [".SH TARGET", ".nf"] + block(HelpText.target(noTarget: nil)) + [".fi"]
    lines += [".SH OPTIONS", ".nf"] + block(HelpText.global) + [".fi"]
    lines += [".SH EXIT STATUS", escape(HelpText.exitCodes)]
    lines += [
      ".SH SEE ALSO",
      "\\fBrclone\\fR(1), \\fBzenity\\fR(1), \\fBtar\\fR(1);",
      "the README and docs/json.md (the \\-\\-json output of every command) of the SaveVault sources.",
    ]
    return lines.joined(separator: "\n")
  }

  /// The lines of `text` from the one starting with `start` up to the next empty one.
  private static func section(of text: String, from start: String) -> [String] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let first = lines.firstIndex(where: { $0.hasPrefix(start) }) else { return [] }
    let last = lines[first...].firstIndex { $0.isEmpty } ?? lines.endIndex
    return Array(lines[first..<last])
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
