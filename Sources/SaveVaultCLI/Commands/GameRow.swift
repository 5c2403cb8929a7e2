import SaveVault

/// One configured game: its entry and where it stands (or why that could not be found), as
/// `games` and `status` with no target list it.
struct GameRow: Encodable {
  var game: String
  var saveDir: String?
  var container: String?
  var steamAppId: String?
  /// Nil when the status could not be read (`error` says why).
  var state: SyncState?
  var error: String?
  /// Not encoded: the status, for the table.
  var report: StatusReport?
  var failure: (any Error)?

  enum CodingKeys: String, CodingKey { case game, saveDir, container, steamAppId, state, error }

  func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(game, forKey: .game)
    try c.encode(saveDir, forKey: .saveDir)
    try c.encode(container, forKey: .container)
    try c.encode(steamAppId, forKey: .steamAppId)
    try c.encode(state, forKey: .state)
    try c.encode(error, forKey: .error)
  }

  /// The state column: the state, or why there is none.
  var stateText: String {
    if let state { return state.rawValue }
    if case .unavailable? = failure as? ContainerError { return "unavailable" }
    return "error"
  }

  /// Every configured game with its status; one game's failure is its row's, not the list's.
  static func all(_ session: Session, selection: TargetSelection) throws -> [GameRow] {
    try session.vault.configuredGameEntries(configFile: session.configFile).map { name, entry in
      var row = GameRow(
        game: name, saveDir: entry.saveDir, container: entry.container, steamAppId: entry.steamAppId)
      do {
        let target = try session.target(selection, game: name)
        row.saveDir = target.saveDirectory
        row.container = target.containerURL
        let report = try session.vault.status(target)
        row.report = report
        row.state = report.state
      } catch {
        row.error = Advice.text(for: error)
        row.failure = error
      }
      return row
    }
  }

  /// Ends a command that listed every game with the first game's failure, already reported.
  static func throwFirstFailure(of rows: [GameRow]) throws {
    if let failure = rows.lazy.compactMap(\.failure).first { throw AlreadyReported(error: failure) }
  }
}
