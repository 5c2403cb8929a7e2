import Foundation

extension Completions {
  private static func quoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
  }

  /// The `complete` line of `option`, offered when `condition` holds (always with none).
  private static func line(_ option: Option, condition: String?) -> String {
    var parts = ["complete -c savevault"]
    if let condition { parts.append("-n " + quoted(condition)) }
    if let short = option.short { parts.append("-s \(short)") }
    parts.append("-l \(option.name)")
    if !option.choices.isEmpty {
      parts.append("-x -a " + quoted(option.choices.joined(separator: " ")))
    } else {
      switch option.completion {
      case .games: parts.append("-x -a '(savevault completions --list-games 2>/dev/null)'")
      case .directories: parts.append("-x -a '(__fish_complete_directories)'")
      case .files: parts.append("-r -F")
      case .nothing: if option.takesValue { parts.append("-x") }
      }
    }
    if !option.oneLine.isEmpty { parts.append("-d " + quoted(option.oneLine)) }
    return parts.joined(separator: " ")
  }

  static func fish() -> String {
    var lines = [
      "# fish completion for savevault (made by 'savevault completions fish')",
      "function __savevault_command --description 'the savevault command on the line, if any'",
      "    set -l skip 0",
      "    for word in (commandline -opc)[2..-1]",
      "        if test $skip = 1",
      "            set skip 0",
      "            continue",
      "        end",
      "        switch $word",
      "            case \(valueOptions.map(\.spelling).joined(separator: " "))",
      "                set skip 1",
      "            case '-*'",
      "            case '*'",
      "                echo $word",
      "                return 0",
      "        end",
      "    end",
      "    return 1",
      "end",
      "function __savevault_using --description 'whether the command on the line is $argv[1]'",
      "    set -l command (__savevault_command)",
      "    test \"$command\" = \"$argv[1]\"",
      "end",
      "complete -c savevault -f",
    ]
    for option in globalOptions { lines.append(line(option, condition: nil)) }
    let global = Set(globalOptions.map(\.name))
    for command in commands {
      lines.append(
        "complete -c savevault -n 'not __savevault_command >/dev/null' -a \(command.name) -d \(quoted(command.abstract))"
      )
      let taken = words(of: command)
      if !taken.isEmpty {
        lines.append(
          "complete -c savevault -n '__savevault_using \(command.name)' -a \(quoted(taken.joined(separator: " ")))"
        )
      }
      for option in options(of: command) where !global.contains(option.name) {
        lines.append(line(option, condition: "__savevault_using \(command.name)"))
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
