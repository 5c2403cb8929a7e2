import Foundation

extension Completions {
  /// A zsh word with its description: `backup:pack the save…` (colons escaped).
  private static func described(_ name: String, _ summary: String) -> String {
    "'" + name.replacingOccurrences(of: ":", with: "\\:") + ":"
      + summary.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  private static func described(_ options: [Option]) -> String {
    options.map { described($0.spelling, $0.oneLine) }.joined(separator: " ")
  }

  static func zsh() -> String {
    let commandList = commands.map { "    " + described($0.name, $0.abstract) }
    let cases = commands.map { "    \($0.name)) options=(\(described(options(of: $0)))) ;;" }
    let wordCases = commands.compactMap { command -> String? in
      let taken = words(of: command)
      guard !taken.isEmpty else { return nil }
      return
        "    \(command.name)) [[ $PREFIX != -* ]] && { compadd \(taken.joined(separator: " ")); return } ;;"
    }
    var values: [String] = []
    if let games = pattern(.games) {
      values.append(
        """
            \(games))
              local -a games
              games=(${(f)"$(savevault completions --list-games $config 2>/dev/null)"})
              compadd -a games; return ;;
        """)
    }
    if let directories = pattern(.directories) { values.append("    \(directories)) _files -/; return ;;") }
    if let files = pattern(.files) { values.append("    \(files)) _files; return ;;") }
    values += choiceOptions.map {
      "    \($0.spelling)) compadd \($0.choices.joined(separator: " ")); return ;;"
    }
    return """
      #compdef savevault
      # zsh completion for savevault (made by 'savevault completions zsh')
      _savevault() {
        local -a commands options config
        local command="" i
        commands=(
      \(commandList.joined(separator: "\n"))
        )
        for (( i = 2; i < CURRENT; i++ )); do
          case ${words[i]} in
            --)
              # wrap's game command line, completed as its own.
              words=("${(@)words[i+1,-1]}"); (( CURRENT -= i ))
              _normal; return ;;
            \(GlobalOptions.config.spelling)) config=(\(GlobalOptions.config.spelling) ${words[i+1]}); (( i++ )) ;;
            \(valuePattern)) (( i++ )) ;;
            -*) ;;
            *) [[ -z $command ]] && command=${words[i]} ;;
          esac
        done
        case ${words[CURRENT-1]} in
      \(values.joined(separator: "\n"))
          \(valuePattern)) return ;;
        esac
        if [[ -z $command && $PREFIX != -* ]]; then
          _describe -t commands 'savevault command' commands; return
        fi
        case $command in
      \(wordCases.joined(separator: "\n"))
        esac
        case $command in
          "") options=(\(described(globalOptions))) ;;
      \(cases.joined(separator: "\n"))
        esac
        _describe -t options 'option' options
      }
      _savevault "$@"

      """
  }
}
