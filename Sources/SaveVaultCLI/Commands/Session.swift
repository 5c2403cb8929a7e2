import Foundation
import SaveVault

/// What a command runs against: the library, the terminal, the global options and the way
/// to start a game.
struct Session {
  var vault: Vault
  var console: Console
  /// `--config`.
  var configFile: String?
  /// The game process of `wrap`, stopped by the run's `Interruption`.
  var gameRunner: @Sendable (Interruption) -> any GameRunner

  /// Warns once per run of each key outside the game entries that the config file has and
  /// SaveVault does not know (`doctor` lists them as checks instead).
  func warnAboutUnknownConfigKeys() {
    let path = vault.configPath(configFile)
    for key in vault.unknownConfigKeys(configFile: configFile) {
      console.log.warning("config file '\(path)': \(key) is ignored")
    }
  }

  /// Who settles a conflict when the policy is `prompt`.
  var resolver: any ConflictResolver {
    Prompts.resolver(environment: vault.context.environment, interruption: vault.context.interruption)
  }

  /// The target `selection` names (`game` replacing --game), before resolution.
  func request(_ selection: TargetSelection, game: String? = nil) -> TargetRequest {
    let options = selection.options
    var request = TargetRequest(
      game: game ?? options.game, saveDirectory: options.saveDirectory, containerURL: options.container,
      configFile: configFile, endpoint: options.endpoint, allowsInsecureHTTP: options.allowsInsecureHTTP,
      compression: selection.compression)
    request.checksPlacement = selection.checksPlacement
    return request
  }

  func target(_ selection: TargetSelection, game: String? = nil) throws -> Target {
    try vault.resolve(request(selection, game: game))
  }

  /// Runs `body` for the target `selection` names or, with no --game and no --save-dir, for
  /// every game of the config file; one game's failure is reported and the others still run.
  func forEachTarget(_ selection: TargetSelection, _ body: (Target) throws -> Void) throws {
    guard !selection.options.namesGame else { return try body(try target(selection)) }
    let games = try vault.configuredGameEntries(configFile: configFile).map(\.name)
    guard !games.isEmpty else { return try body(try target(selection)) }  // says how to name a game
    var first: (any Error)?
    for game in games {
      do {
        try body(try target(selection, game: game))
      } catch let interrupted as Interrupted {
        throw interrupted  // asked to stop: not the next game either
      } catch {
        console.error(error, game: game)
        first = first ?? error
      }
    }
    if let first { throw AlreadyReported(error: first) }
  }

  /// `forEachTarget` for a command that makes one report per target: with --json, the named
  /// target's report as one JSON object or, with no target, every game's as one JSON list
  /// (those that worked, printed even when another game failed); else `text` prints each.
  /// `then` runs after each report is printed (or kept for the list), and may throw.
  func forEachReport<Report: Encodable>(
    _ selection: TargetSelection, isJSON: Bool, _ make: (Target) throws -> Report,
    text: (Report, Target) -> Void, then check: (Report) throws -> Void = { _ in }
  ) throws {
    let isList = isJSON && !selection.options.namesGame
    var reports: [Report] = []
    defer {
      if isList && !reports.isEmpty { console.json(reports) }
    }
    try forEachTarget(selection) { target in
      let report = try make(target)
      if isList {
        reports.append(report)
      } else if isJSON {
        console.json(report)
      } else {
        text(report, target)
      }
      try check(report)
    }
  }
}

/// An error already printed (one game's, while the others ran on): only its exit status is
/// left.
struct AlreadyReported: Error, ExitStatusProviding {
  var error: any Error
  var exitStatus: ExitStatus { ExitStatus(for: error) }
}
