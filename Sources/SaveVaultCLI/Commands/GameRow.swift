import SaveVault

/// One configured game: its entry and where it stands (or why that could not be found), as
/// `games` and `status` with no target list it.
struct GameRow: Encodable {
  var game: String
  var saveDir: String?
  var container: String?
  var steamAppId: String?
  /// Whether the container is the embedded default, so the backups are on this device only;
  /// nil when the game's settings could not be read.
  var isLocalOnly: Bool?
  /// Nil when the status could not be read (`error` says why).
  var state: SyncState?
  var error: String?
  /// Not encoded: the status, for the table.
  var report: StatusReport?
  var failure: (any Error)?

  enum CodingKeys: String, CodingKey { case game, saveDir, container, steamAppId, localOnly, state, error }

  func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(game, forKey: .game)
    try c.encode(saveDir, forKey: .saveDir)
    try c.encode(container, forKey: .container)
    try c.encode(steamAppId, forKey: .steamAppId)
    try c.encode(isLocalOnly, forKey: .localOnly)
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
        row.isLocalOnly = session.vault.paths.isDefaultContainer(target.container)
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

  /// The line under a table of games that names those whose backups are on this device only;
  /// nil when there is none.
  static func localOnlyNote(_ rows: [GameRow], session: Session) -> String? {
    let games = rows.filter { $0.isLocalOnly == true }.map(\.game)
    guard !games.isEmpty else { return nil }
    return "local only: \(games.joined(separator: ", ")): \(session.localOnlyAdvice)"
  }

  /// Ends a command that listed every game with the first game's failure, already reported.
  static func throwFirstFailure(of rows: [GameRow]) throws {
    if let failure = rows.lazy.compactMap(\.failure).first { throw AlreadyReported(error: failure) }
  }
}

extension Session {
  /// What is said of a game whose container is the embedded default: where its backups are,
  /// and how to keep them off this device.
  var localOnlyAdvice: String {
    "the backups are on this device (\(vault.paths.defaultContainer)); add a container to keep them off it (\"container\" in \(vault.configPath(configFile)), for every game or in the game's entry)"
  }
}
