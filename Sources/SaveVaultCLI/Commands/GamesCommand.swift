import SaveVault

/// `savevault games`: the config file's games with their state.
struct GamesCommand: Command {
  static let json = Option.json("print a list, one object per game")

  static let declaration = CommandDeclaration(
    name: "games", abstract: "list the config file's games with their state",
    discussion: """
      Lists the games of the config file: name, state (as 'savevault status' finds it), save
      directory, container and Steam app id. A game whose container is the embedded default
      is shown as local only: its backups are on this device. A game whose container cannot
      be reached is listed as unavailable, with why; the others are still listed. As
      'savevault status', it then exits with that game's code (4 for an unavailable
      container).
      """,
    options: [json])

  var isJSON: Bool

  init(_ arguments: ParsedArguments) {
    isJSON = arguments.has(Self.json)
  }

  /// Every game is listed; then, as `status` does, the command exits with the status of the
  /// first game whose status failed (4 for an unavailable container).
  func run(_ session: Session) throws -> ExitStatus {
    let console = session.console
    let rows = try GameRow.all(session, selection: TargetSelection(options: TargetOptions()))
    if isJSON {
      console.json(rows)
      try GameRow.throwFirstFailure(of: rows)
      return .success
    }
    guard !rows.isEmpty else {
      console.out(
        "No games in \(session.vault.configPath(session.configFile)). Add one with '\(session.commandLine(["add", "NAME", "--save-dir", "DIR"]))'."
      )
      return .success
    }
    console.out(
      Table.render(
        ["GAME", "STATE", "SAVE DIRECTORY", "CONTAINER", "STEAM"],
        rows.map {
          [
            $0.game, $0.stateText, $0.saveDir ?? "-",
            $0.isLocalOnly == true ? "local only" : $0.container ?? "-",
            $0.steamAppId ?? "-",
          ]
        }))
    if let note = GameRow.localOnlyNote(rows, session: session) { console.out(note) }
    for row in rows { if let error = row.error { console.out("\(row.game): \(error)") } }
    try GameRow.throwFirstFailure(of: rows)
    return .success
  }
}
