import Foundation

@testable import SaveVault

/// One seeded scenario: three devices sharing one folder container, random steps, and the
/// invariants checked after every step (see `SimulationTests`).
final class SimulationScenario {
  let seed: UInt64
  let root: String
  let stepCount: Int
  let isVerbose: Bool
  var random: SplitMix64
  /// Starts at the machine's time, which the real binary's clock reads: its commands run as
  /// if on a device whose clock is right.
  let time = SimulatedTime(startMs: Int64(Date().timeIntervalSince1970 * 1000))
  var devices: [SimulatedDevice] = []
  let states = RecoverableStates()
  /// Every state that existed on a device at the start of a command, with where it was first
  /// seen: each must stay recoverable.
  var owed: [String: String] = [:]
  /// States owed either as they are or as another (keyed by the first): a half-swapped save
  /// played on, and the save its recovery keeps.
  var owedEither: [String: (kept: String, origin: String)] = [:]
  var log: [String] = []
  var counts = SimulationCounts()
  var step = 0
  /// Whether the running command was stopped by its failpoint.
  var isStopped = false
  /// Saves a game wrote while its drive was unmounted, with where they came from: no
  /// container may ever hold one unless the player chose to upload it.
  var newGameSaves: [String: String] = [:]
  /// Saves a game wrote in folders made anew (the game uninstalled and installed again), with
  /// the device and where they came from: no container may hold one unless the player chose
  /// to upload on that device since (at the prompt, or a forced backup).
  var reinstalledSaves: [String: (device: String, origin: String)] = [:]
  /// Whether the game keeps its save in two locations (see `SimulatedDevice`).
  let hasLocations: Bool
  /// Every state a player (or the game) made on any device: the only states a save of several
  /// locations may have once no restore is half-done (never a mix of one location from one
  /// save and another from another).
  var madeStates: Set<String> = []

  var container: String { root + "/shared/cloud" }

  /// The state a save has before its command's recovery has finished a restore of several
  /// locations: not known here, so no check compares it.
  static let unknownState = "(a restore of several locations still to finish)"

  init(seed: UInt64, root: String, steps: Int, isVerbose: Bool, locationsPercent: Int = 0) {
    self.seed = seed
    self.root = root
    self.stepCount = steps
    self.isVerbose = isVerbose
    self.random = SplitMix64(seed: seed)
    // Drawn from a generator of its own, so that the steps of a one-folder scenario are the
    // same whatever the share of scenarios of several locations.
    var layout = SplitMix64(seed: seed ^ 0x5A5E_10CA_7105)
    self.hasLocations = layout.chance(locationsPercent)
  }

  /// Runs the scenario; returns the failure, if an invariant broke.
  func run() -> SimulationFailure? {
    do {
      try setUp()
      for number in 1...stepCount {
        step = number
        try randomStep()
        try checkRecoverable()
      }
      step = stepCount + 1
      try converge()
      counts.scenarios = 1
      counts.locationScenarios = hasLocations ? 1 : 0
      counts.steps = stepCount
      counts.statesOwed = owed.count + owedEither.count
      return nil
    } catch let failure as SimulationFailure {
      return failure
    } catch {
      return SimulationFailure(invariant: "harness", detail: "\(error)")
    }
  }

  private func setUp() throws {
    try FileManager.default.createDirectory(atPath: container, withIntermediateDirectories: true)
    for (index, name) in ["pc", "deck", "laptop"].enumerated() {
      let offset = Int64(random.int(-172_800_000..<172_800_001))
      let device = try SimulatedDevice(
        index: index, name: name, root: root + "/" + name, sharedFolder: root + "/shared",
        clock: DeviceClock(time: time, offsetMs: offset), hasLocations: hasLocations)
      devices.append(device)
      note("\(name): clock offset \(offset) ms" + (hasLocations ? ", the game in \(device.locations)" : ""))
      if index == 0 || random.chance(50) {
        note("\(name): starts with its own save: " + played(device, tag: "initial"))
      }
    }
  }

  private func randomStep() throws {
    guard let device = random.pick(devices) else { return }
    time.advance(byMs: Int64(random.int(1..<120_000)))
    switch random.int(0..<100) {
    case 0..<18:
      gameOverwrites(device)
      note("\(device.name) plays: " + played(device, tag: "s\(step)"))
    case 18..<20: try unmountedWrap(device, answer: SimulatedAnswer.random(&random))
    case 20: try rollback(device)
    case 21: try sameNamedFolder(device)
    case 92..<94: try reinstall(device)
    case 94..<97:
      if let other = random.pick(devices.filter { $0 !== device }) { try concurrentBackups(device, other) }
    case 22..<24:
      gameOverwrites(device)
      note("\(device.name): the player deletes " + device.wipe(&random))
      made(device.state)
    case 24..<34:
      let answer =
        random.pick([SimulatedAnswer.prompt(.upload), .prompt(.skip), .prompt(nil)]) ?? .prompt(nil)
      try backup(device, force: random.chance(10), answer: answer)
    case 34..<41: try restore(device)
    case 41..<59: _ = try sync(device, answer: SimulatedAnswer.random(&random))
    case 59..<74: try wrap(device, answer: SimulatedAnswer.random(&random))
    case 74..<85: try interrupted(device)
    case 85..<92: try kill(device)
    default:
      if device.isOnline {
        device.goOffline()
        counts.offlinePeriods += 1
        note("\(device.name) goes offline")
      } else {
        device.comeBack()
        note("\(device.name) comes back online")
      }
    }
  }

  /// Invariant (c): with every device online and no more play, everyone syncs, settling
  /// conflicts with upload or restore (a policy or a prompt answer), until a whole round
  /// changes nothing; then all saves are one state, the container's latest, and each device
  /// is in sync with no pending archive and no restore left half-done.
  private func converge() throws {
    for device in devices where !device.isOnline {
      device.comeBack()
      note("\(device.name) comes back online")
    }
    var isQuiet = false
    for round in 1...6 where !isQuiet {
      isQuiet = true
      note("convergence round \(round)")
      for device in devices {
        time.advance(byMs: Int64(random.int(1..<60_000)))
        // Answers that settle any conflict: a policy never uploads a save that went missing
        // or came back after it was seen missing, and nothing uploads a missing one.
        let answers: [SimulatedAnswer] =
          device.state == nil
          ? [.policy(.restore), .prompt(.restore)]
          : [.policy(.restore), .prompt(.upload), .prompt(.restore)]
        counts.convergenceSyncs += 1
        let report = try sync(device, answer: random.pick(answers) ?? .policy(.restore))
        let isNothing =
          report?.action == SyncAction.none
          && (report?.state == .inSync || (report?.state == .cloudEmpty && device.state == nil))
        if !isNothing { isQuiet = false }
        try checkRecoverable()
      }
    }
    guard isQuiet else {
      throw SimulationFailure(invariant: "(c) convergence", detail: "still changing after 6 rounds of sync")
    }
    let latest = ((try? Platform.directoryNames(container + "/" + SimulatedDevice.game)) ?? [])
      .filter { ArchiveName.isBackupName($0) }.max()
    let cloud = latest.flatMap { states.archiveDigest(container + "/" + SimulatedDevice.game + "/" + $0) }
    for device in devices {
      let (vault, target) = try device.vault()
      let status = try vault.status(target)
      guard device.state == cloud, status.state == .inSync || (cloud == nil && status.state == .cloudEmpty)
      else {
        throw SimulationFailure(
          invariant: "(c) convergence",
          detail:
            "\(device.name) is \(status.state.rawValue) with state \(device.state ?? "none"); the container's latest \(latest ?? "none") holds \(cloud ?? "none")"
        )
      }
      guard status.pending.count == 0, device.leftovers.isEmpty else {
        throw SimulationFailure(
          invariant: "(c) convergence",
          detail:
            "\(device.name) still has \(status.pending.archives) pending and \(device.leftovers) beside its save"
        )
      }
    }
    note("converged on \(latest ?? "nothing")")
  }

  // MARK: - Invariants

  /// A command starts on `device`: its save state is owed from now on. Returns the sink for
  /// the command's warnings.
  @discardableResult
  func begin(_ device: SimulatedDevice, _ what: String) -> Warnings {
    counts.commands += 1
    device.pendingAtStart = device.pendingNames
    device.agreedAtStart = device.agreedArchive
    // A save of several locations that a stopped restore left half-swapped is no state of its
    // own (the state it started from is owed already). Played on since, it is owed as it is or
    // as its recovery keeps it (the folders set aside and the rest as left): recovery either
    // leaves the save as the game wrote it, or finishes the restore and keeps that.
    let isHalfDone = stateAfterRecovery(device) == Self.unknownState
    if let state = device.state, owed[state] == nil, owedEither[state] == nil,
      !isHalfDone || state != device.halfSwappedState
    {
      let origin = "\(device.name)'s save at the start of step \(step) (\(what))"
      if isHalfDone, let kept = device.stateRecoveryKeeps, kept != state {
        owedEither[state] = (kept, origin)
      } else {
        owed[state] = origin
      }
    }
    return Warnings()
  }

  /// A command on `device` ended. Its warnings go to the step log, and it counts as stopped
  /// when its failpoint fired (thrown, or caught and warned about inside the command). When it
  /// made a new agreement other than by uploading the pending archives, the ones still
  /// pending were overtaken (the player settled since, or uploaded a newer save that holds
  /// their progress).
  func end(_ device: SimulatedDevice, _ warnings: Warnings? = nil) {
    let lines = warnings?.all ?? []
    for line in lines { note("  warning: " + line) }
    device.wasKilled = false
    device.halfSwappedState = stateAfterRecovery(device) == Self.unknownState ? device.state : nil
    if isStopped || lines.contains(where: { $0.contains("failpoint '") }) { counts.interruptions += 1 }
    isStopped = false
    guard let agreed = device.agreedArchive, agreed != device.agreedAtStart,
      !device.pendingAtStart.contains(agreed)
    else { return }
    let overtaken = device.pendingNames.intersection(device.pendingAtStart)
    if !overtaken.isEmpty {
      device.overtaken.formUnion(overtaken)
      note("  \(device.name) agreed on \(agreed); pending \(overtaken.sorted()) overtaken")
    }
  }

  /// The game plays on `device`; the state it leaves is one a player made.
  func played(_ device: SimulatedDevice, tag: String) -> String {
    let what = device.play(&random, tag: tag)
    made(device.state)
    return what
  }

  func made(_ state: String?) {
    if let state { madeStates.insert(state) }
  }

  /// Invariant (a): every owed state is recoverable; and no overtaken pending archive was
  /// uploaded. For a game of several locations, no save is a mix: once no restore is half-done
  /// (the device's last command was not killed), each save is a state a player made.
  func checkRecoverable() throws {
    for device in devices where device.hasLocations && !device.wasKilled {
      if let state = device.state, !madeStates.contains(state) {
        throw SimulationFailure(
          invariant: "no mix of locations",
          detail: "\(device.name)'s save \(state.prefix(12)) is no state a player made (a mix of saves?)")
      }
    }
    let names = Set(
      ((try? Platform.directoryNames(container + "/" + SimulatedDevice.game)) ?? []))
    for device in devices {
      if let uploaded = device.overtaken.intersection(names).first {
        throw SimulationFailure(
          invariant: "overtaken pending archives stay on the device",
          detail: "\(device.name)'s \(uploaded) was uploaded after the device agreed on a newer save")
      }
    }
    let places = states.collect(container: container, devices: devices)
    for (state, origin) in owed.sorted(by: { $0.key < $1.key }) where places[state] == nil {
      throw SimulationFailure(
        invariant: "(a) nothing lost", detail: "state \(state.prefix(12)), \(origin), is nowhere any more")
    }
    for (state, either) in owedEither.sorted(by: { $0.key < $1.key })
    where places[state] == nil && places[either.kept] == nil {
      throw SimulationFailure(
        invariant: "(a) nothing lost",
        detail:
          "state \(state.prefix(12)), \(either.origin), is nowhere any more, nor \(either.kept.prefix(12)), what its recovery keeps"
      )
    }
    for (state, made) in reinstalledSaves.sorted(by: { $0.key < $1.key }) {
      if let place = places[state]?.first(where: { $0.hasPrefix("container ") }) {
        throw SimulationFailure(
          invariant: "a save written in folders made anew (a game installed again) is never uploaded unasked",
          detail: "\(made.origin) is in the \(place)")
      }
    }
    for (state, origin) in newGameSaves.sorted(by: { $0.key < $1.key }) {
      if let place = places[state]?.first(where: { $0.hasPrefix("container ") }) {
        throw SimulationFailure(
          invariant: "a save written while the drive was unmounted is never uploaded unasked",
          detail: "\(origin) is in the \(place)")
      }
    }
  }

  /// The game (or the player) is about to replace `device`'s save. A state that is owed but
  /// exists nowhere else was never handed to SaveVault (a skipped conflict, an offline backup
  /// that failed): the game overwriting it is not SaveVault losing it, so it is no longer owed.
  func gameOverwrites(_ device: SimulatedDevice, state overwritten: String? = nil) {
    guard let state = overwritten ?? device.state, owed[state] != nil || owedEither[state] != nil else {
      return
    }
    let all = states.collect(container: container, devices: devices)
    let places = (all[state] ?? []) + (owedEither[state].flatMap { all[$0.kept] } ?? [])
    if places.allSatisfy({ $0 == SimulatedDevice.savePlace(device.name) }) {
      owed.removeValue(forKey: state)
      owedEither.removeValue(forKey: state)
      counts.statesOverwrittenByGame += 1
      note("  state \(state.prefix(12)) was only in \(device.name)'s save; the game overwrites it")
    }
  }

  /// After a command that says the device and the container agree: the save is the agreed
  /// archive's content.
  func checkAgreement(_ device: SimulatedDevice, vault: Vault, target: Target, _ what: String) throws {
    guard let archive = vault.agreements.load(target)?.archive else {
      throw SimulationFailure(invariant: "agreement", detail: "\(what) on \(device.name) left no agreement")
    }
    let stored = states.archiveDigest(container + "/" + SimulatedDevice.game + "/" + archive)
    guard stored == device.state else {
      throw SimulationFailure(
        invariant: "agreement",
        detail:
          "\(what) on \(device.name) agreed on \(archive), which holds \(stored ?? "nothing"), but the save is \(device.state ?? "nothing")"
      )
    }
  }

  /// Invariant (b): an unattended command that found a conflict left the save as it was.
  func checkUnattended(
    _ report: SyncReport, answer: SimulatedAnswer, before: String?, after: String?, _ what: String
  ) throws {
    if report.state == .conflict { counts.conflicts += 1 }
    guard answer.isUnattended, report.state == .conflict || report.action == .unanswered,
      before != Self.unknownState
    else { return }
    guard before == after, report.action != .uploaded, report.action != .restored else {
      throw SimulationFailure(
        invariant: "(b) unattended conflicts change nothing",
        detail:
          "\(what) on a conflict with \(answer) went \(report.action.rawValue): the save went from \(before ?? "nothing") to \(after ?? "nothing")"
      )
    }
  }

  /// The state the save will have once a command's recovery has run: a save directory that a
  /// killed restore left set aside is put back. (Of several locations: `unknownState` while a
  /// killed restore's journal or folders set aside are left.)
  func stateAfterRecovery(_ device: SimulatedDevice) -> String? {
    if device.hasLocations {
      let isHalfDone =
        device.hasRestoreJournal || device.leftovers.contains { $0.hasPrefix(".savevault-old-") }
      return isHalfDone ? Self.unknownState : device.state
    }
    if FileManager.default.fileExists(atPath: device.save) { return device.state }
    guard let aside = device.leftovers.filter({ $0.hasPrefix(".savevault-old-") }).sorted().first else {
      return nil
    }
    return SaveState.ofDirectory(device.savesFolder + "/" + aside)
  }

  func note(_ line: String) {
    let entry = "[\(step)] " + line
    log.append(entry)
    if isVerbose { print("seed \(seed) " + entry) }
  }
}
