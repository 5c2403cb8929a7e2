import Foundation
import SaveVault

/// Shell completion scripts for bash, zsh and fish, made from `HelpIndex` (so from the help
/// texts): commands, each command's options, and values where they are cheap to know: game
/// names from the config file (`savevault completions --list-games`), folders, files, the
/// conflict policies, and after `wrap ... --` the game's own command line.
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

  private static var policies: String { ConflictPolicy.allCases.map(\.rawValue).joined(separator: " ") }
  private static var commandNames: String { HelpIndex.commands.map(\.name).joined(separator: " ") }
  /// `--archive|--config|…`: the options whose next word is a value.
  private static var valuePattern: String {
    Arguments.valueOptions.sorted().map { "--" + $0 }.joined(separator: "|")
  }

  /// `--force --json … -q --quiet`: what may follow a command.
  private static func words(_ options: [HelpIndex.Option]) -> String {
    options.flatMap { option in ["--" + option.name] + (option.short.map { ["-\($0)"] } ?? []) }
      .joined(separator: " ")
  }

  static func bash() -> String {
    let cases = HelpIndex.commands.map {
      "    \($0.name)) words=\"\(words(HelpIndex.options(for: $0.name)))\" ;;"
    }
    return """
      # bash completion for savevault (made by 'savevault completions bash')
      _savevault() {
        local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
        local command="" config=() i IFS=$'\\n'
        for ((i = 1; i < COMP_CWORD; i++)); do
          case "${COMP_WORDS[i]}" in
            --)
              # wrap's game command line: a program, then its arguments.
              if ((i + 1 == COMP_CWORD)); then COMPREPLY=($(compgen -c -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
              return 0 ;;
            --config) config=(--config "${COMP_WORDS[i+1]}"); ((i++)) ;;
            \(valuePattern)) ((i++)) ;;
            -*) ;;
            *) [ -z "$command" ] && command="${COMP_WORDS[i]}" ;;
          esac
        done
        case "$prev" in
          --game)
            COMPREPLY=($(compgen -W "$(savevault completions --list-games "${config[@]}" 2>/dev/null)" -- "$cur"))
            return 0 ;;
          --save-dir|--container) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;
          --config) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
          --on-conflict) IFS=$' \\n'; COMPREPLY=($(compgen -W "\(policies)" -- "$cur")); return 0 ;;
          \(valuePattern)) return 0 ;;
        esac
        local words
        case "$command" in
          "") words="\(words(HelpIndex.globalOptions))" ;;
      \(cases.joined(separator: "\n"))
          *) words="" ;;
        esac
        [[ -z "$command" && "$cur" != -* ]] && words="\(commandNames)"
        case "$command:$cur" in
      \(choiceCases("bash"))
        esac
        IFS=$' \\n'
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
        return 0
      }
      complete -F _savevault savevault

      """
  }

  /// `completions:[!-]*) words="bash zsh fish" ;;` for commands that take words (bash), or
  /// `completions) compadd bash zsh fish; return ;;` (zsh).
  private static func choiceCases(_ shell: String) -> String {
    HelpIndex.commands.compactMap { command in
      let choices = HelpIndex.choices(of: command.name)
      guard !choices.isEmpty else { return nil }
      let list = choices.joined(separator: " ")
      return shell == "bash"
        ? "    \(command.name):[!-]*|\(command.name):) words=\"\(list)\" ;;"
        : "    \(command.name)) [[ $PREFIX != -* ]] && { compadd \(list); return } ;;"
    }.joined(separator: "\n")
  }

  /// A zsh word with its description: `backup:pack the save…` (colons escaped).
  private static func described(_ name: String, _ summary: String) -> String {
    "'" + name.replacingOccurrences(of: ":", with: "\\:") + ":"
      + summary.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  static func zsh() -> String {
    let commands = HelpIndex.commands.map { "    " + described($0.name, $0.summary) }
    let cases = HelpIndex.commands.map { command in
      let options = HelpIndex.options(for: command.name).map { described("--" + $0.name, $0.summary) }
      return "    \(command.name)) options=(\(options.joined(separator: " "))) ;;"
    }
    return """
      #compdef savevault
      # zsh completion for savevault (made by 'savevault completions zsh')
      _savevault() {
        local -a commands options config
        local command="" i
        commands=(
      \(commands.joined(separator: "\n"))
        )
        for (( i = 2; i < CURRENT; i++ )); do
          case ${words[i]} in
            --)
              # wrap's game command line, completed as its own.
              words=("${(@)words[i+1,-1]}"); (( CURRENT -= i ))
              _normal; return ;;
            --config) config=(--config ${words[i+1]}); (( i++ )) ;;
            \(valuePattern)) (( i++ )) ;;
            -*) ;;
            *) [[ -z $command ]] && command=${words[i]} ;;
          esac
        done
        case ${words[CURRENT-1]} in
          --game)
            local -a games
            games=(${(f)"$(savevault completions --list-games $config 2>/dev/null)"})
            compadd -a games; return ;;
          --save-dir|--container) _files -/; return ;;
          --config) _files; return ;;
          --on-conflict) compadd \(policies); return ;;
          \(valuePattern)) return ;;
        esac
        if [[ -z $command && $PREFIX != -* ]]; then
          _describe -t commands 'savevault command' commands; return
        fi
        case $command in
      \(choiceCases("zsh"))
        esac
        case $command in
          "") options=(\(HelpIndex.globalOptions.map { described("--" + $0.name, $0.summary) }.joined(separator: " "))) ;;
      \(cases.joined(separator: "\n"))
        esac
        _describe -t options 'option' options
      }
      _savevault "$@"

      """
  }

  static func fish() -> String {
    func quoted(_ text: String) -> String {
      "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
    func line(_ option: HelpIndex.Option, condition: String?) -> String {
      var parts = ["complete -c savevault"]
      if let condition { parts.append("-n " + quoted(condition)) }
      if let short = option.short { parts.append("-s \(short)") }
      parts.append("-l \(option.name)")
      switch option.name {
      case "game": parts.append("-x -a '(savevault completions --list-games 2>/dev/null)'")
      case "save-dir", "container": parts.append("-x -a '(__fish_complete_directories)'")
      case "config": parts.append("-r -F")
      case "on-conflict": parts.append("-x -a " + quoted(policies))
      default: if option.takesValue { parts.append("-x") }
      }
      if !option.summary.isEmpty { parts.append("-d " + quoted(option.summary)) }
      return parts.joined(separator: " ")
    }
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
      "            case \(Arguments.valueOptions.sorted().map { "--" + $0 }.joined(separator: " "))",
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
    for option in HelpIndex.globalOptions { lines.append(line(option, condition: nil)) }
    for command in HelpIndex.commands {
      lines.append(
        "complete -c savevault -n 'not __savevault_command >/dev/null' -a \(command.name) -d \(quoted(command.summary))"
      )
      let choices = HelpIndex.choices(of: command.name)
      if !choices.isEmpty {
        lines.append(
          "complete -c savevault -n '__savevault_using \(command.name)' -a \(quoted(choices.joined(separator: " ")))"
        )
      }
      let global = Set(HelpIndex.globalOptions.map(\.name))
      for option in HelpIndex.options(for: command.name) where !global.contains(option.name) {
        lines.append(line(option, condition: "__savevault_using \(command.name)"))
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
