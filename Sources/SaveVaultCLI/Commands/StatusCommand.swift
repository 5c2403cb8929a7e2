import SaveVault

/// `savevault status`: where the local save, the container and the last agreement stand.
struct StatusCommand: Command {
  static let json = Option.json("print one JSON object (with no TARGET: a list, one object per game)")

  static let declaration = CommandDeclaration(
    name: "status", abstract: "compare the local save, the container and the last agreement",
    discussion: """
      Shows the local save (newest modification in ms, files, bytes), the container's latest
      archive (time in ms, device, count) and the state: in-sync, local-changed,
      cloud-changed, conflict, cloud-empty or local-missing. A game whose container is the
      embedded default is said to be local only: its backups are on this device. Changes
      nothing, except to finish or undo what a killed savevault left (listed under
      "repaired") when no other savevault is working on the game. With no TARGET, one line
      per game of the config file: game, state, local newest change, cloud latest and the
      device that made it.
      """,
    takesTarget: true, options: [json], noTarget: "every game of the config file, one line each")

  var selection: TargetSelection
  var isJSON: Bool

  init(_ arguments: ParsedArguments) {
    selection = TargetSelection(arguments)
    isJSON = arguments.has(Self.json)
  }

  func run(_ session: Session) throws -> ExitStatus {
    // With no target and no --json: one line per game.
    if !selection.options.namesGame && !isJSON, try statusTable(session) { return .success }
    try session.forEachReport(selection, isJSON: isJSON) { target in
      try session.vault.status(target)
    } text: { report, target in
      session.console.out(
        StatusText(session: session, options: selection.options).describe(report, target: target))
    }
    return .success
  }

  /// One line per configured game. False when the config has no games (the caller then says
  /// how to name one). A game whose status fails shows it and the command exits with that
  /// error's status once every game is listed.
  private func statusTable(_ session: Session) throws -> Bool {
    let rows = try GameRow.all(session, selection: selection)
    guard !rows.isEmpty else { return false }
    session.console.out(
      Table.render(
        ["GAME", "STATE", "LOCAL NEWEST CHANGE", "CLOUD LATEST", "DEVICE"],
        rows.map { row in
          guard let report = row.report else { return [row.game, row.stateText, "-", "-", "-"] }
          let local =
            !report.local.exists
            ? "missing" : report.local.modifiedMs.map(Format.shortTime) ?? "empty"
          let cloud = report.cloud.modifiedMs.map(Format.shortTime) ?? "none"
          let device = report.cloud.latest == nil ? "-" : report.cloud.device ?? "another tool"
          return [row.game, row.stateText, local, cloud, device]
        }))
    if let note = GameRow.localOnlyNote(rows, session: session) { session.console.out(note) }
    for row in rows { if let failure = row.failure { session.console.error(failure, game: row.game) } }
    try GameRow.throwFirstFailure(of: rows)
    return true
  }
}
