extension Completions {
  static func bash() -> String {
    let cases = commands.map { "    \($0.name)) words=\"\(spellings(options(of: $0)))\" ;;" }
    let choices = choiceOptions.map { option in
      "    \(option.spelling)) IFS=$' \\n'; COMPREPLY=($(compgen -W \"\(option.choices.joined(separator: " "))\" -- \"$cur\")); return 0 ;;"
    }
    let wordCases = commands.compactMap { command -> String? in
      let taken = words(of: command)
      guard !taken.isEmpty else { return nil }
      return "    \(command.name):[!-]*|\(command.name):) words=\"\(taken.joined(separator: " "))\" ;;"
    }
    var values: [String] = []
    if let games = pattern(.games) {
      values.append(
        """
            \(games))
              COMPREPLY=($(compgen -W "$(savevault completions --list-games "${config[@]}" 2>/dev/null)" -- "$cur"))
              return 0 ;;
        """)
    }
    if let directories = pattern(.directories) {
      values.append(
        "    \(directories)) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\")); return 0 ;;"
      )
    }
    if let files = pattern(.files) {
      values.append(
        "    \(files)) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\")); return 0 ;;")
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
            \(GlobalOptions.config.spelling)) config=(\(GlobalOptions.config.spelling) "${COMP_WORDS[i+1]}"); ((i++)) ;;
            \(valuePattern)) ((i++)) ;;
            -*) ;;
            *) [ -z "$command" ] && command="${COMP_WORDS[i]}" ;;
          esac
        done
        case "$prev" in
      \((values + choices).joined(separator: "\n"))
          \(valuePattern)) return 0 ;;
        esac
        local words
        case "$command" in
          "") words="\(spellings(globalOptions))" ;;
      \(cases.joined(separator: "\n"))
          *) words="" ;;
        esac
        [[ -z "$command" && "$cur" != -* ]] && words="\(commandNames)"
        case "$command:$cur" in
      \(wordCases.joined(separator: "\n"))
        esac
        IFS=$' \\n'
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
        return 0
      }
      complete -F _savevault savevault

      """
  }
}
