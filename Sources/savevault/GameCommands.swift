import Foundation
import SaveVault

/// `add`, `games`, `remove`, the one-line-per-game `status`, and `wrap` finding its game
/// under Steam.
extension Commands {
  /// The game NAME a command takes as its one word, with the other options checked.
  private func gameName(_ allowed: Set<String>, usage: String) throws -> String {
    var rest = arguments
    guard let name = rest.positional.first else {
      throw UsageError(message: "say which game: \(usage)", command: arguments.command)
    }
    rest.positional.removeFirst()
    try rest.requireOnly(allowed)
    return name
  }

  func addGame() throws {
    let name = try gameName(
      ["save-dir", "container", "steam-app-id", "replace", "json"],
      usage: "savevault add NAME --save-dir DIR")
    guard let saveDirectory = arguments.options["save-dir"] else {
      throw UsageError(message: "say where the game keeps its saves: --save-dir DIR", command: "add")
    }
    let report = try vault.addGame(
      NewGame(
        name: name, saveDirectory: saveDirectory, containerURL: arguments.options["container"],
        steamAppId: arguments.options["steam-app-id"]),
      configFile: arguments.configFile, replacing: arguments.has("replace"))
    if !report.saveDirExists {
      console.note(
        "'\(report.saveDir)' does not exist yet; '\(commandLine(["sync", "--game", name]))' restores the cloud's save into it"
      )
    }
    if arguments.has("json") { return console.json(report) }
    let steam = report.steamAppId.map { ", Steam app id \($0)" } ?? ""
    console.out(
      "\(report.replaced ? "Replaced" : "Added") \(name) \(report.replaced ? "in" : "to") \(report.configFile): save directory \(report.saveDir), container \(report.container ?? "(the default)")\(steam)."
    )
  }

  func removeGame() throws {
    let name = try gameName(["json"], usage: "savevault remove NAME")
    let report = try vault.removeGame(name, configFile: arguments.configFile)
    if arguments.has("json") { return console.json(report) }
    if report.isInConfig { console.out("Removed \(name) from \(report.configFile).") }
    if !report.forgotten.isEmpty {
      console.out(
        "Forgot this device's agreements about \(name) (\(report.forgotten.joined(separator: ", "))): a sync of it compares the save with the cloud by content."
      )
    }
    console.out(
      "No save was deleted: the save directory\(report.saveDir.map { " \($0)" } ?? ""), the archives in the container and the copies on this device stay as they are; '\(commandLine(["add", name, "--save-dir", "DIR"]))' brings the game back."
    )
  }

  /// One configured game: its entry and where it stands (or why that could not be found).
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
  }

  /// Every configured game with its status; one game's failure is its row's, not the list's.
  private func gameRows() throws -> [GameRow] {
    try vault.configuredGameEntries(configFile: arguments.configFile).map { name, entry in
      var row = GameRow(
        game: name, saveDir: entry.saveDir, container: entry.container, steamAppId: entry.steamAppId)
      do {
        let target = try target(game: name)
        row.saveDir = target.saveDirectory
        row.container = target.containerURL
        let report = try vault.status(target)
        row.report = report
        row.state = report.state
      } catch {
        row.error = Advice.text(for: error)
        row.failure = error
      }
      return row
    }
  }

  /// `games`: every game is listed; then, as `status` does, the command exits with the code of
  /// the first game whose status failed (4 for an unavailable container).
  func listGames() throws {
    try arguments.requireOnly(["json"])
    let rows = try gameRows()
    if arguments.has("json") {
      console.json(rows)
      return try throwFirstFailure(of: rows)
    }
    guard !rows.isEmpty else {
      return console.out(
        "No games in \(vault.configPath(arguments.configFile)). Add one with '\(commandLine(["add", "NAME", "--save-dir", "DIR"]))'."
      )
    }
    console.out(
      Table.render(
        ["GAME", "STATE", "SAVE DIRECTORY", "CONTAINER", "STEAM"],
        rows.map { [$0.game, $0.stateText, $0.saveDir ?? "-", $0.container ?? "-", $0.steamAppId ?? "-"] }))
    for row in rows { if let error = row.error { console.out("\(row.game): \(error)") } }
    try throwFirstFailure(of: rows)
  }

  /// Ends a command that listed every game with the first game's failure, already reported.
  private func throwFirstFailure(of rows: [GameRow]) throws {
    if let failure = rows.lazy.compactMap(\.failure).first { throw AlreadyReported(error: failure) }
  }

  /// `status` with no target: one line per configured game. False when the config has no
  /// games (the caller then says how to name one). A game whose status fails shows it and
  /// the command exits with that error's code once every game is listed.
  func statusTable() throws -> Bool {
    let rows = try gameRows()
    guard !rows.isEmpty else { return false }
    console.out(
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
    for row in rows { if let error = row.error { console.error("\(row.game): \(error)") } }
    try throwFirstFailure(of: rows)
    return true
  }

  /// wrap's game: the one the flags name or, with none, the configured game whose
  /// `steamAppId` is `SteamAppId` (or `STEAM_COMPAT_APP_ID`), so that one launch-options line
  /// serves every game. Nil (after a warning) when none matches: the game then runs unwrapped.
  func wrapTarget() throws -> Target? {
    guard arguments.options["game"] == nil, arguments.options["save-dir"] == nil else { return try target() }
    let environment = vault.context.environment
    let id = [environment["SteamAppId"], environment["STEAM_COMPAT_APP_ID"]].lazy
      .compactMap { $0?.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty && $0 != "0" }
    guard let id else {
      console.log.warning(
        "no --game, no --save-dir and no Steam app id (SteamAppId) to find the game by: running it without syncing"
      )
      return nil
    }
    do {
      let games = try vault.games(steamAppId: id, configFile: arguments.configFile)
      guard games.count == 1, let game = games.first else {
        // A misspelt key in a game's entry (steamAppID) is the likely reason no game matches.
        let misspelt = vault.unknownConfigKeys(configFile: arguments.configFile, inGames: true)
          .map { "; the config file has \($0), which is not read" }.joined()
        console.log.warning(
          games.isEmpty
            ? "no game in \(vault.configPath(arguments.configFile)) has Steam app id \(id) (add one with '\(commandLine(["add", "NAME", "--save-dir", "DIR", "--steam-app-id", id]))')\(misspelt): running it without syncing"
            : "Steam app id \(id) belongs to several games (\(games.joined(separator: ", "))): running it without syncing"
        )
        return nil
      }
      vault.context.log.verbose("Steam app id \(id) is game '\(game)'")
      return try target(game: game)
    } catch {
      console.log.warning("cannot find the game of Steam app id \(id) (\(error)): running it without syncing")
      return nil
    }
  }

  /// Runs the game as wrap would, with nothing synced: its exit code is wrap's.
  func runUnwrapped(_ command: [String]) throws -> Int32 {
    try GameProcess(interruption: vault.context.interruption).run(command).code
  }

  /// `restore --undo`.
  func undoRestore() throws {
    guard !arguments.has("latest"), arguments.options["archive"] == nil else {
      throw UsageError(message: "--undo takes no --latest or --archive", command: "restore")
    }
    let target = try target()
    let report = try vault.undoRestore(target)
    if arguments.has("json") { return console.json(report) }
    console.out(
      "Put back \(report.game) as it was before its last restore: \(report.restoredCopy) (\(Format.count(report.files, "file")), \(Format.bytes(report.bytes))) into \(report.saveDir)"
    )
    if let copy = report.preRestoreCopy {
      console.out(
        "The save it replaced is kept in \(copy); '\(commandLine(["restore", "--undo"], for: target))' again puts it back."
      )
    }
    console.out(
      "Agreement with the cloud: \(report.note). Run '\(commandLine(["status"], for: target))' to see where it stands."
    )
  }
}

/// Columns padded to their widest cell, two spaces apart.
enum Table {
  static func render(_ header: [String], _ rows: [[String]]) -> String {
    let all = [header] + rows
    let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
    return all.map { row in
      row.indices.map { column in
        column == row.count - 1
          ? row[column] : row[column].padding(toLength: widths[column], withPad: " ", startingAt: 0)
      }.joined(separator: "  ")
    }.joined(separator: "\n")
  }
}

extension Format {
  /// Local date and time to the second: `2026-11-29 16:03:47`.
  static func shortTime(_ ms: Int64) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone.current
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
    return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
  }
}
