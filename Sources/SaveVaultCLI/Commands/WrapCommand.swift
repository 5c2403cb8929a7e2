import Foundation
import SaveVault

/// `savevault wrap`: sync, run the game, back up after it (for launch scripts).
struct WrapCommand: Command {
  static let onConflict = Option.onConflict(unanswered: "start the game unsynced", skipped: "start the game")
  static let json = Option.json(
    "wrap's messages as JSON, one object per line on stderr: each sync's phase (before, after), state, action and archive, and each warning as {\"warning\": \"...\"}"
  )

  static let declaration = CommandDeclaration(
    name: "wrap", abstract: "sync, run the game, back up after it (for launch scripts)",
    discussion: """
      For launch scripts (Steam: savevault wrap --game celeste -- %command%). With no TARGET,
      the game is the one of the config file whose steamAppId is $SteamAppId (or
      $STEAM_COMPAT_APP_ID), so 'savevault wrap -- %command%' serves every Steam game. With
      no match, the installed game of that id is added to the config file with the container
      the player chose: --container, the config file's, the one every game of it names, or
      $SAVEVAULT_CONTAINER; with none of those, or no such game, the game runs without
      syncing, after a warning.

      Syncs like 'savevault sync', runs COMMAND with the same stdin, stdout, stderr and
      environment (forwarding SIGINT, SIGTERM and SIGHUP), then uploads what the session
      changed and exits with the game's exit code. It never blocks play: if the container is
      unreachable, a conflict cannot be settled, or another savevault is busy, the game starts
      anyway with a warning; a save that cannot be uploaded after the game is kept on this
      device and uploaded at the next run. wrap's own messages go to stderr, since stdout
      belongs to the game, and are also appended, with the time and the game, to
      $XDG_STATE_HOME/savevault/wrap.log (~/.local/state/savevault/wrap.log; renamed
      wrap.log.1 once over 1 MiB).
      """,
    takesTarget: true, options: [onConflict, .compress, json], trailing: "COMMAND [ARG...]",
    noTarget:
      "the game whose steamAppId is $SteamAppId (see above); with no match, the game runs without syncing")

  var selection: TargetSelection
  var policy: ConflictPolicy
  var isJSON: Bool
  /// The game's command line.
  var command: [String]

  init(_ arguments: ParsedArguments) throws(UsageError) {
    guard let command = arguments.trailing, !command.isEmpty else {
      throw UsageError(
        message: "say which game to run: savevault wrap [TARGET] -- COMMAND [ARG...]", command: "wrap")
    }
    self.command = command
    selection = TargetSelection(arguments)
    policy = arguments.choice(Self.onConflict, as: ConflictPolicy.self) ?? .prompt
    isJSON = arguments.has(Self.json)
  }

  var warnsInJSON: Bool { isJSON }
  var reportsLateSignal: Bool { false }
  var logFileName: String? { "wrap.log" }

  func run(_ session: Session) throws -> ExitStatus {
    let console = session.console
    // The log's lines name the game, or the Steam app id until the game is known.
    console.logFile?.subject =
      selection.options.game ?? Self.steamAppId(session.vault.context.environment).map { "Steam app \($0)" }
    // wrap never blocks play: a target it cannot use (the config file, a refused save
    // directory) is not synced, and the game runs; the launch line's own flags were checked
    // before anything ran.
    let found: Target?
    do {
      found = try target(session)
    } catch let error as ConfigError {
      console.log.warning("\(Advice.text(for: error)); running the game without syncing")
      return try runUnwrapped(session)
    }
    guard let target = found else { return try runUnwrapped(session) }  // Steam: by app id
    console.logFile?.subject = target.game
    let report = try session.vault.wrap(
      target, policy: policy, resolver: session.resolver, runner: gameRunner(session), command: command
    ) { phase, sync in
      // The game owns stdout: wrap's own messages go to stderr.
      guard let sync else { return }
      if isJSON {
        console.jsonLine([
          "phase": phase.aroundGame, "state": sync.state.rawValue, "action": sync.action.rawValue,
          "archive": sync.archive ?? "",
        ])
      } else if !console.isQuiet {
        console.note("\(phase.aroundGame) the game: " + SyncCommand.describe(sync))
      }
    }
    return .game(report.gameExitCode)
  }

  /// Runs the game as wrap would, with nothing synced: its exit code is wrap's.
  private func runUnwrapped(_ session: Session) throws -> ExitStatus {
    .game(try gameRunner(session).run(command).code)
  }

  /// The game's runner, how the game ended kept in the log. Once the game runs, a stale copy
  /// of the manifest is refreshed by a process of its own, never in front of the launch.
  private func gameRunner(_ session: Session) -> any GameRunner {
    LoggedGame(runner: session.gameRunner(session.vault.context.interruption), console: session.console) {
      if session.vault.startManifestRefresh(configFile: session.configFile) {
        session.console.logOnly("the save-location manifest is being refreshed in the background")
      }
    }
  }

  /// The Steam app id of the environment: `SteamAppId`, else `STEAM_COMPAT_APP_ID`; nil when
  /// neither is set, or when it is 0.
  static func steamAppId(_ environment: [String: String]) -> String? {
    [environment["SteamAppId"], environment["STEAM_COMPAT_APP_ID"]].lazy
      .compactMap { $0?.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty && $0 != "0" }
  }

  /// wrap's game: the one the flags name or, with none, the configured game whose
  /// `steamAppId` is `SteamAppId` (or `STEAM_COMPAT_APP_ID`), so that one launch-options line
  /// serves every game. Nil (after a warning) when none matches: the game then runs unwrapped.
  private func target(_ session: Session) throws -> Target? {
    guard !selection.options.namesGame else { return try session.target(selection) }
    let vault = session.vault
    let log = session.console.log
    let configFile = session.configFile
    guard let id = Self.steamAppId(vault.context.environment) else {
      log.warning(
        "no --game, no --save-dir and no Steam app id (SteamAppId) to find the game by: running it without syncing"
      )
      return nil
    }
    do {
      var games = try vault.games(steamAppId: id, configFile: configFile)
      var adoption: SteamAdoption?
      if games.isEmpty {
        do {
          adoption = try vault.adoptSteamGame(
            id: id, configFile: configFile, containerURL: selection.options.container)
        } catch {
          // Said, not swallowed: why the game runs unsynced is the player's to know.
          log.warning(
            "Steam app \(id) could not be looked up as an installed game: \(Advice.text(for: error))")
        }
      }
      if let adoption {
        switch adoption {
        case .adopted(let adopted, let container):
          session.console.note(
            "Steam app \(id) is '\(adopted.title ?? adopted.game)' (found with the save-location manifest): syncing its saves in \((adopted.locations ?? []).joined(separator: ", ")) to \(container), and added it to \(adopted.configFile) as '\(adopted.game)'"
          )
          games = [adopted.game]
        case .containerUnchosen(let game, let title, let why):
          log.warning(Self.unchosenContainer(id: id, game: game, title: title, why: why, session: session))
          return nil
        }
      }
      guard games.count == 1, let game = games.first else {
        // A misspelt key in a game's entry (steamAppID) is the likely reason no game matches.
        let misspelt = vault.unknownConfigKeys(configFile: configFile, inGames: true)
          .map { "; the config file has \($0), which is not read" }.joined()
        log.warning(
          games.isEmpty
            ? "no game in \(vault.configPath(configFile)) has Steam app id \(id) (add one with '\(session.commandLine(["add", "NAME", "--save-dir", "DIR", "--steam-app-id", id]))')\(misspelt): running it without syncing"
            : "Steam app id \(id) belongs to several games (\(games.joined(separator: ", "))): running it without syncing"
        )
        return nil
      }
      vault.context.log.verbose("Steam app id \(id) is game '\(game)'")
      return try session.target(selection, game: game)
    } catch {
      log.warning("cannot find the game of Steam app id \(id) (\(error)): running it without syncing")
      return nil
    }
  }
}

extension WrapCommand {
  /// The warning of an installed game found by its Steam app id and not added: the player
  /// chose no container for it, and the embedded default would keep its backups on this device.
  static func unchosenContainer(
    id: String, game: String, title: String?, why: AdoptionContainer.Unchosen, session: Session
  ) -> String {
    let config = session.vault.configPath(session.configFile)
    let reason =
      switch why {
      case .noGames: "\(config) has no game and no \"container\", and SAVEVAULT_CONTAINER is not set"
      case .differentContainers:
        "the games of \(config) name different containers, and it has no top-level \"container\""
      }
    return
      "Steam app \(id) is '\(title ?? game)' (found with the save-location manifest), but no container is chosen for its backups: \(reason) (add it with: \(session.commandLine(["add", game, "--detect", "--container", "URL"])); or set \"container\" in \(config)): running it without syncing"
  }
}

/// A game runner that notes in the log how the game ended (stderr does not say it: the
/// player sees the game end).
private struct LoggedGame: GameRunner {
  var runner: any GameRunner
  var console: Console
  /// What is done once the game runs.
  var whenStarted: @Sendable () -> Void

  func run(_ command: [String]) throws -> GameExit {
    let exit = try runner.run(command, started: whenStarted)
    switch exit {
    case .exited(let code): console.logOnly("the game exited with code \(code)")
    case .signaled(let signal):
      console.logOnly("the game was ended by signal \(signal) (exit code \(exit.code))")
    }
    return exit
  }
}

extension SyncPhase {
  /// When a sync of `wrap` ran, in wrap's words (its JSON's `phase`): `before` or `after` the game.
  var aroundGame: String { self == .afterGame ? "after" : "before" }
}
