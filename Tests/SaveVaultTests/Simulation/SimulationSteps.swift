import Foundation

@testable import SaveVault

/// The game `wrap` runs in-process: what `play` says, when `wrap` says.
final class SimulatedGame: GameRunner, @unchecked Sendable {
  private let play: () -> Void
  init(_ play: @escaping () -> Void) { self.play = play }
  func run(_ command: [String]) throws -> GameExit {
    play()
    return .exited(0)
  }
}

/// The warnings one in-process command gave.
final class Warnings: @unchecked Sendable {
  private let lock = NSLock()
  private var lines: [String] = []

  var log: Log {
    Log(
      warning: { [self] line in
        lock.lock()
        defer { lock.unlock() }
        lines.append(line)
      }, verbose: { _ in })
  }

  var all: [String] {
    lock.lock()
    defer { lock.unlock() }
    return lines
  }
}

extension SimulationScenario {
  /// Points where `command` can be stopped, in-process (`error`) or in the real binary
  /// (`kill`, which also stops at progress reports). A restore's `backup.packed` is the
  /// pre-restore copy it packs after its swap (`@2` in a sync or wrap that uploaded first).
  /// A restore of several locations also stops once its journal is written, and a kill also
  /// between the renames of the second location; of a game with locations of files, a kill also
  /// before the first and the second file set aside, and before the first and third renamed in.
  static func stopPoints(
    for command: String, killing: Bool, locations: Bool = false, files: Bool = false, registry: Bool = false
  ) -> [String] {
    let backup = ["backup.packed", "backup.stored"] + (killing ? ["progress.packing"] : [])
    let restore =
      ["restore.extracted", "restore.between-renames", "restore.swapped", "restore.kept", "backup.packed"]
      + (killing ? ["progress.extracting"] : [])
      + (locations ? ["restore.journaled"] + (killing ? ["restore.between-renames@2"] : []) : [])
      + (files && killing
        ? [
          "restore.aside-files", "restore.aside-files@2", "restore.between-files", "restore.between-files@3",
        ] : [])
      + (registry ? ["restore.registry-merging"] : [])
    switch command {
    case "backup": return backup
    case "restore": return restore
    default: return backup + restore + ["backup.packed@2"]
    }
  }

  /// `point` as a `SAVEVAULT_FAILPOINTS` setting with `action` (`point@N` → `point=action@N`).
  static func failpoint(_ point: String, _ action: String) -> String {
    let parts = point.split(separator: "@", maxSplits: 1)
    return "\(parts[0])=\(action)" + (parts.count > 1 ? "@\(parts[1])" : "")
  }

  /// `backup`, answered at its conflict question by `answer` (a prompt: upload, skip or nobody).
  func backup(_ device: SimulatedDevice, force: Bool, answer: SimulatedAnswer, failpoint: String? = nil)
    throws
  {
    let what = "backup\(force ? " --force" : ""), \(answer)"
    if force || answer.mayUploadReappearedSave { playerMayUpload(device) }
    let before = stateAfterRecovery(device)
    let warnings = begin(device, what)
    defer { end(device, warnings) }
    let (vault, target) = try device.vault(failpoints: failpoint, log: warnings.log)
    do {
      let report = try vault.backup(target, force: force, resolver: answer.resolver)
      note("\(device.name) \(what): \(report.outcome.rawValue) \(report.archive)")
      if report.outcome != .skipped { try checkAgreement(device, vault: vault, target: target, what) }
    } catch is UnansweredQuestion where answer.isUnattended {
      note("\(device.name) \(what): conflict left unresolved")
      guard before == device.state || before == Self.unknownState else {
        throw SimulationFailure(
          invariant: "(b) unattended conflicts change nothing",
          detail: "\(what) changed the save on \(device.name)")
      }
    } catch {
      note("\(device.name) \(what): " + (try expected(error, device, failpoint)))
    }
  }

  func restore(_ device: SimulatedDevice, failpoint: String? = nil) throws {
    let warnings = begin(device, "restore --latest")
    defer { end(device, warnings) }
    let (vault, target) = try device.vault(failpoints: failpoint, log: warnings.log)
    do {
      let report = try vault.restore(target, selection: .latest)
      note("\(device.name) restore --latest: \(report.archive), kept \(report.preRestoreCopy ?? "nothing")")
      try checkAgreement(device, vault: vault, target: target, "restore")
    } catch {
      note("\(device.name) restore --latest: " + (try expected(error, device, failpoint)))
    }
  }

  @discardableResult
  func sync(_ device: SimulatedDevice, answer: SimulatedAnswer, failpoint: String? = nil) throws
    -> SyncReport?
  {
    if answer.mayUploadReappearedSave { playerMayUpload(device) }
    let before = stateAfterRecovery(device)
    let warnings = begin(device, "sync, \(answer)")
    defer { end(device, warnings) }
    let (vault, target) = try device.vault(failpoints: failpoint, log: warnings.log)
    do {
      let report = try vault.sync(target, policy: answer.policy, resolver: answer.resolver)
      note("\(device.name) sync, \(answer): \(describe(report))")
      try checkUnattended(report, answer: answer, before: before, after: device.state, "sync")
      if isAgreed(report) { try checkAgreement(device, vault: vault, target: target, "sync") }
      return report
    } catch let failure as SimulationFailure {
      throw failure
    } catch {
      note("\(device.name) sync, \(answer): " + (try expected(error, device, failpoint)))
      return nil
    }
  }

  /// `wrap` with a game that plays (most of the time) and sometimes loses the network while it runs.
  /// `atGameStart` runs as the game starts, before it plays.
  func wrap(
    _ device: SimulatedDevice, answer: SimulatedAnswer, failpoint: String? = nil,
    atGameStart: @escaping () -> Void = {}, atGameEnd: @escaping (String?) -> Void = { _ in }
  ) throws {
    if answer.mayUploadReappearedSave { playerMayUpload(device) }
    let before = stateAfterRecovery(device)
    let warnings = begin(device, "wrap, \(answer)")
    defer { end(device, warnings) }
    var atStart: String?
    var atEnd: String?
    let game = SimulatedGame { [self] in
      atGameStart()
      device.refreshLacking()  // the sync before the game may have placed the second location
      atStart = device.state
      if random.chance(85) {
        gameOverwrites(device)
        note("  the game plays on \(device.name): " + played(device, tag: "s\(step)"))
      }
      if device.isOnline && random.chance(15) {
        device.goOffline()
        counts.offlinePeriods += 1
        note("  \(device.name) goes offline during the game")
      }
      atEnd = device.state
      atGameEnd(atEnd)
      if let atEnd, owed[atEnd] == nil {
        owed[atEnd] = "\(device.name)'s save after the game of step \(step)"
      }
    }
    let (vault, target) = try device.vault(failpoints: failpoint, log: warnings.log)
    let report: WrapReport
    do {
      report = try vault.wrap(
        target, policy: answer.policy, resolver: answer.resolver, runner: game, command: ["game"])
    } catch {
      throw SimulationFailure(invariant: "unexpected error", detail: "wrap on \(device.name): \(error)")
    }
    note(
      "\(device.name) wrap, \(answer): before \(report.before.map(describe) ?? "failed"); after \(report.after.map(describe) ?? "failed")\(report.pendingArchive.map { "; pending \(($0 as NSString).lastPathComponent)" } ?? "")"
    )
    if let first = report.before {
      try checkUnattended(first, answer: answer, before: before, after: atStart, "wrap (before the game)")
    }
    if let after = report.after {
      try checkUnattended(after, answer: answer, before: atEnd, after: device.state, "wrap (after the game)")
      if isAgreed(after) { try checkAgreement(device, vault: vault, target: target, "wrap") }
    }
    if let pending = report.pendingArchive {
      let kept = states.archiveFacts(pending)
      if (device.lacksSecond ? kept?.lackingState : kept?.state) != device.state {
        throw SimulationFailure(
          invariant: "pending archive",
          detail: "\(pending) does not hold \(device.name)'s save after the game")
      }
    }
  }

  /// A command stopped in-process by a failpoint that throws: the command's `defer` clean-ups
  /// run, so this is an interrupted command, not a crash (`kill` is the crash).
  func interrupted(_ device: SimulatedDevice) throws {
    let command = random.pick(["backup", "restore", "sync", "wrap"]) ?? "sync"
    let point =
      random.pick(
        Self.stopPoints(
          for: command, killing: false, locations: device.hasLocations, registry: device.hasRegistry))
      ?? "backup.packed"
    let failpoint = Self.failpoint(point, "error")
    counts.interruptionAttempts += 1
    note("\(device.name): the next command stops with an error at \(failpoint)")
    switch command {
    case "backup":
      try backup(device, force: random.chance(50), answer: .prompt(.upload), failpoint: failpoint)
    case "restore": try restore(device, failpoint: failpoint)
    case "sync": try sync(device, answer: SimulatedAnswer.random(&random), failpoint: failpoint)
    default: try wrap(device, answer: SimulatedAnswer.random(&random), failpoint: failpoint)
    }
  }

  func isAgreed(_ report: SyncReport) -> Bool {
    report.action == .uploaded || report.action == .restored
      || (report.action == SyncAction.none && report.state == .inSync)
  }

  func describe(_ report: SyncReport) -> String {
    "\(report.state.rawValue) → \(report.action.rawValue)\(report.archive.map { " " + $0 } ?? "")"
      + (report.decidedBy.map { " (by \($0))" } ?? "")
  }

  /// The failures a step explains (offline, a failpoint, nothing to restore, nothing to back
  /// up); anything else fails the scenario.
  func expected(_ error: any Error, _ device: SimulatedDevice, _ failpoint: String?) throws -> String {
    switch error {
    case ContainerError.unavailable where !device.isOnline: return "container unavailable (offline)"
    case is FailpointError where failpoint != nil:
      isStopped = true
      return "stopped: \(error)"
    case VaultError.preRestoreCopyFailed where failpoint != nil && "\(error)".contains("failpoint '"):
      // A restore of several locations packs its pre-restore copy before the swaps, and
      // says so when that copy failed.
      isStopped = true
      return "stopped: \(error)"
    case VaultError.restoreUnfinished where failpoint != nil && "\(error)".contains("failpoint '"):
      // The failpoint fired while the command finished a stopped restore: it syncs nothing
      // over the half-restored save, and the next command finishes it.
      isStopped = true
      return "stopped: \(error)"
    case VaultError.noBackups: return "no backups yet"
    case VaultError.saveDirectoryMissing, VaultError.saveDirectoryEmpty: return "no save to back up"
    case VaultError.locationMissing where device.isMissingFirstLocation:
      return "a location gone (the game installed again, not started yet)"
    default:
      throw SimulationFailure(invariant: "unexpected error", detail: "on \(device.name): \(error)")
    }
  }
}
