/// How a game ended.
public enum GameExit: Sendable, Equatable {
  case exited(Int32)
  case signaled(Int32)

  /// The exit code a shell would report: the code, or 128 + the signal.
  public var code: Int32 {
    switch self {
    case .exited(let code): code
    case .signaled(let signal): 128 + signal
    }
  }
}

/// Runs the game: same stdin, stdout, stderr and environment, signals forwarded.
public protocol GameRunner: Sendable {
  /// Runs `command` to its end. Throws `VaultError.gameNotStarted` if it cannot be started.
  func run(_ command: [String]) throws -> GameExit
  /// `run`, calling `started` once the game runs (and before it ends).
  func run(_ command: [String], started: () -> Void) throws -> GameExit
}

extension GameRunner {
  /// `started` is called just before `run`: a runner that starts no process of its own runs
  /// the game as it returns.
  public func run(_ command: [String], started: () -> Void) throws -> GameExit {
    started()
    return try run(command)
  }
}

/// What `wrap` did around the game.
public struct WrapReport: Encodable, Sendable, Equatable {
  public var game: String
  /// The sync before the game (nil when it could not run).
  public var before: SyncReport?
  /// The sync after the game (nil when it could not run).
  public var after: SyncReport?
  /// An archive kept on this device because the container could not be reached after the game.
  public var pendingArchive: String?
  /// Everything that went wrong around the game, which never stops it.
  public var warnings: [String]
  /// The game's exit code (128 + N for a signal).
  public var gameExitCode: Int32
}

extension Vault {
  /// Syncs, runs the game, and backs up what the session changed. Never blocks play: when the
  /// sync before cannot run (container unavailable, an unresolved conflict, another savevault
  /// busy), the game starts anyway with a warning; when the container is unavailable after the
  /// game, the save is kept as a pending archive on this device and uploaded at the next run.
  /// A local save that changed since the last agreement (a previous wrap killed before its
  /// backup) is uploaded or asked about, never restored over.
  ///
  /// `progress` is told of each sync as it ends, with its phase (`.full` before the game,
  /// `.afterGame` after it). Throws only when the game cannot be started,
  /// or `Interrupted` when a signal stops a sync (the game is not started then).
  public func wrap(
    _ requested: Target, policy: ConflictPolicy, resolver: any ConflictResolver, runner: any GameRunner,
    command: [String], progress: (SyncPhase, SyncReport?) -> Void = { _, _ in }
  ) throws -> WrapReport {
    var report = WrapReport(game: requested.game, warnings: [], gameExitCode: 0)
    func warn(_ message: String) {
      context.log.warning(message)
      report.warnings.append(message)
    }
    do {
      let before = try sync(requested, policy: policy, resolver: resolver, phase: .full)
      report.before = before
      if before.action == .unanswered {
        // Nothing was changed for it, and the mark it left keeps the sync after the game from
        // uploading over the cloud's save: the question is asked again then, and at each run
        // until it is answered.
        warn(
          "\(before.unanswered?.reason ?? ConflictAnswer.nobodyAnswered): starting the game on the local save; nothing was changed, and the question stays until you answer it"
        )
      }
      progress(.full, before)
    } catch let interrupted as Interrupted {
      throw interrupted  // asked to stop: no game
    } catch {
      warn("could not sync before the game (\(error)); starting it anyway")
      noteDeletionSeenOffline(requested)
      progress(.full, nil)
    }
    // The sync before may have placed a location the game's list lacks (a restore): part of
    // the save the game plays on, so the sync after it, or the pending archive, holds it.
    let target = resolvedLocations(requested)

    let exit = try runner.run(command)
    report.gameExitCode = exit.code
    waitForPrefixesIdle(target, warn: warn)

    do {
      let after = try sync(target, policy: policy, resolver: resolver, phase: .afterGame)
      report.after = after
      progress(.afterGame, after)
    } catch let interrupted as Interrupted {
      throw interrupted
    } catch let error as ContainerError {
      warn("could not back up after the game (\(error))")
      do {
        report.pendingArchive = try keepPending(target)
        if let pending = report.pendingArchive {
          warn("kept the save as '\(pending)'; it is uploaded at the next run that reaches the container")
        }
      } catch {
        warn(
          "could not keep the save as a pending archive either (\(Self.plainReason(error))); the save directory is as the game left it"
        )
      }
      progress(.afterGame, nil)
    } catch {
      warn("could not back up after the game (\(error)); the save directory is as the game left it")
      progress(.afterGame, nil)
    }
    return report
  }
}

extension Vault {
  /// When the sync before a game could not run: if the save is missing or empty since the last
  /// agreement (a drive not mounted, and no network either), or is on another drive than it
  /// was (a folder left where the drive mounts), notes it as an unanswered deletion, as a sync
  /// would have: a save the game writes now is asked about before it goes anywhere, never
  /// uploaded (nor its pending archive) as if it continued the agreed one.
  func noteDeletionSeenOffline(_ target: Target) {
    guard let held = try? lock(target, purpose: "wrap") else { return }
    withExtendedLifetime(held) { noteSaveNotAsAgreed(target) }
  }

  /// `noteDeletionSeenOffline` with the game's lock held.
  func noteSaveNotAsAgreed(_ target: Target) {
    guard var record = agreements.load(target), record.unanswered == nil,
      record.isAbout(saveDir: target.saveDirectory, realSaveDir: Platform.realPath(target.saveDirectory))
    else { return }
    let scan: SaveScan
    do {
      scan =
        try scanSave(target)
        ?? SaveScan(root: target.saveDirectory, entries: [], skipped: [])
    } catch {
      return  // unreadable: no evidence either way
    }
    let isElsewhere =
      !scan.isEmpty && record.isOnOtherDrive(mount: Platform.mountPoint(of: scan.root))
    // Gone: empty now, and not empty when last seen. That is the agreed save, or a pending
    // archive kept since (only ever of a save with files): an agreed empty save changed offline.
    let keptSince = !pendingArchives(target, since: record).fresh.isEmpty
    let isGone =
      scan.isEmpty
      && (keptSince
        || (try? Fingerprint(scan: scan).hasChanged(since: record, index: { agreements.loadIndex(target) }))
          == true)
    let remade = record.enclosingFolders.flatMap(FolderIdentity.firstReplaced)?.path
    guard isElsewhere || isGone || remade != nil else { return }
    record.unanswered = UnansweredConflict(
      kind: .deletion, cloudLatest: record.cloudLatestWhenAgreed, seenAtMs: context.clock())
    do {
      try agreements.saveRecord(record)
      context.log.warning(
        remade.map {
          "'\($0)', which holds the save directory '\(target.saveDirectory)', was made anew since it last agreed (the game installed again, or its prefix deleted?): what is there is asked about before it is uploaded"
        }
          ?? (isElsewhere
            ? "the save directory '\(target.saveDirectory)' is on another drive than when it last agreed (is its drive mounted?): what is there is asked about before it is uploaded"
            : "the save directory '\(target.saveDirectory)' is missing or empty (is its drive mounted?): a save the game writes now is asked about before it is uploaded")
      )
    } catch {
      context.log.warning("could not note that the save of '\(target.game)' is not as agreed: \(error)")
    }
  }
}
