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
  /// Other forms in which an owed state may be had back instead, all of them together (see
  /// `begin`).
  var owedAlternatives: [String: [String]] = [:]
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
  /// The devices whose game was installed again, its folder made anew before the next command,
  /// and no command has run there since: no SaveVault run has seen the folder made anew.
  var reinstalledUnseen: Set<String> = []
  /// Whether the game keeps its save in two locations (see `SimulatedDevice`).
  let hasLocations: Bool
  /// Whether it also keeps some in files of its install folder (see `SimulatedFiles`).
  let hasFiles: Bool
  /// Whether it also keeps registry keys in its Wine prefix (see `SimulatedRegistry`): only
  /// where it keeps files.
  let hasRegistry: Bool
  /// The device (by index) that lacks the second location at first, in a scenario of several
  /// locations; nil in most.
  let lackingIndex: Int?
  /// The device (by index) whose config starts without the game, which it adopts through
  /// `wrap` under Steam; nil in most.
  let adoptingIndex: Int?
  /// An upload that dropped what a device lacking the second location had to carry forward,
  /// found as its command ended: thrown by the next check.
  var carryFailure: SimulationFailure?
  /// Every state a player (or the game) made on any device: the only states a save of several
  /// locations may have once no restore is half-done (never a mix of one location from one
  /// save and another from another).
  var madeStates: Set<String> = []

  var container: String { root + "/shared/cloud" }

  /// The state a save has before its command's recovery has finished a restore of several
  /// locations: not known here, so no check compares it.
  static let unknownState = "(a restore of several locations still to finish)"

  /// `lackingPercent` and `adoptingPercent`: the shares of the scenarios of several locations
  /// where a device lacks the second location, and where one adopts the game; `filesPercent`,
  /// the share where the game also keeps files of its install folder (no device lacks a
  /// location nor adopts the game there); `registryPercent`, the share of those where it also
  /// keeps registry keys.
  init(
    seed: UInt64, root: String, steps: Int, isVerbose: Bool, locationsPercent: Int = 0,
    lackingPercent: Int = 0, adoptingPercent: Int = 0, filesPercent: Int = 0, registryPercent: Int = 0
  ) {
    self.seed = seed
    self.root = root
    self.stepCount = steps
    self.isVerbose = isVerbose
    self.random = SplitMix64(seed: seed)
    // Drawn from a generator of its own, so that the steps of a one-folder scenario are the
    // same whatever the share of scenarios of several locations.
    var layout = SplitMix64(seed: seed ^ 0x5A5E_10CA_7105)
    self.hasLocations = layout.chance(locationsPercent)
    // Never the first device, which starts with a save of both locations and backs it up
    // first when another lacks one.
    let lacking = layout.chance(lackingPercent) ? 1 + layout.int(0..<2) : nil
    let adopting = layout.chance(adoptingPercent) ? 1 + layout.int(0..<2) : nil
    hasFiles = hasLocations && layout.chance(filesPercent)
    lackingIndex = hasLocations && !hasFiles ? lacking : nil
    adoptingIndex = hasLocations && !hasFiles && adopting != lacking ? adopting : nil
    hasRegistry = hasFiles && layout.chance(registryPercent)
  }

  /// The scenario's manifest file, which knows the game a device adopts.
  var manifestPath: String { root + "/manifest.yaml" }

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
      counts.filesScenarios = hasFiles ? 1 : 0
      counts.registryScenarios = hasRegistry ? 1 : 0
      counts.lackingScenarios = lackingIndex == nil ? 0 : 1
      counts.adoptionScenarios = adoptingIndex == nil ? 0 : 1
      counts.steps = stepCount
      counts.statesOwed = owed.count
      return nil
    } catch let failure as SimulationFailure {
      return failure
    } catch {
      return SimulationFailure(invariant: "harness", detail: "\(error)")
    }
  }

  private func setUp() throws {
    try FileManager.default.createDirectory(atPath: container, withIntermediateDirectories: true)
    if adoptingIndex != nil {
      try Self.manifest.write(toFile: manifestPath, atomically: true, encoding: .utf8)
    }
    for (index, name) in ["pc", "deck", "laptop"].enumerated() {
      let offset = Int64(random.int(-172_800_000..<172_800_001))
      let device = try SimulatedDevice(
        index: index, name: name, root: root + "/" + name, sharedFolder: root + "/shared",
        clock: DeviceClock(time: time, offsetMs: offset), hasLocations: hasLocations, hasFiles: hasFiles,
        hasRegistry: hasRegistry, lacksSecond: index == lackingIndex, adopts: index == adoptingIndex,
        manifest: manifestPath)
      devices.append(device)
      // The game's registry keys as installed are a save already.
      made(device.state)
      note(
        "\(name): clock offset \(offset) ms" + (hasLocations ? ", the game in \(device.locations)" : "")
          + (device.lacksSecond ? ", its config lacking the second" : "")
          + (device.adopts ? ", not in its config (Steam has it installed)" : ""))
      // A device that lacks a location has a save of its own (the issue's desktop).
      if index == 0 || index == lackingIndex || random.chance(50) {
        note("\(name): starts with its own save: " + played(device, tag: "initial"))
      }
    }
    // The first device's save of both locations is the cloud's first (the issue's deck), so
    // that every archive after it names the second location: one made by a device that lacks
    // it carries it forward.
    if lackingIndex != nil, let first = devices.first {
      try backup(first, force: false, answer: .prompt(nil))
    }
  }

  private func randomStep() throws {
    guard let device = random.pick(devices) else { return }
    time.advance(byMs: Int64(random.int(1..<120_000)))
    let roll = random.int(0..<100)
    // A device without the game in its config: the player plays, deletes the save or goes
    // offline; any other step is the game launched from Steam, through `wrap`.
    if !device.isAdopted, !(0..<18).contains(roll), !(22..<24).contains(roll), roll < 97 {
      try adopt(device)
      return
    }
    switch roll {
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
    case 41..<57: _ = try sync(device, answer: SimulatedAnswer.random(&random))
    case 57..<59:
      // Only a device whose config lacks the second location gains it; elsewhere, a sync.
      if device.configLacksSecond {
        try gainLocation(device)
      } else {
        _ = try sync(device, answer: SimulatedAnswer.random(&random))
      }
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
    // A device that never adopted the game does, into the shared container.
    for device in devices where !device.isAdopted { try adopt(device, isConverging: true) }
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
    let facts = latest.flatMap { states.archiveFacts(container + "/" + SimulatedDevice.game + "/" + $0) }
    for device in devices {
      let (vault, target) = try device.vault()
      let status = try vault.status(target)
      // A device that still lacks the second location has the first one's part of it.
      device.refreshLacking()
      let cloud = device.lacksSecond ? facts?.lackingState : facts?.state
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
    reinstalledUnseen.remove(device.name)
    device.pendingAtStart = device.pendingNames
    device.agreedAtStart = device.agreedArchive
    device.refreshLacking()
    device.lackedAtStart = device.lacksSecond
    if device.lacksSecond { device.archivesAtStart = containerArchives() }
    // A save of several locations that a stopped restore left half-swapped is no state of its
    // own (the state it started from is owed already), unless the player played on it since.
    let isHalfSwapped =
      stateAfterRecovery(device) == Self.unknownState && device.state == device.halfSwappedState
    if let state = device.state, owed[state] == nil, !isHalfSwapped {
      owed[state] = "\(device.name)'s save at the start of step \(step) (\(what))"
      // Played on while half-swapped: a location the stopped restore had set aside, and not
      // put in place again, is no part of what the player made; the save they played on is
      // the set-aside folder with the rest as the game left it. When the game wrote only into
      // locations the restore had not swapped yet, the command's recovery finishes the restore
      // and keeps exactly that as the pre-restore copy; else it keeps the save as it is. A
      // restore of files stopped with files still to put in place is finished over what the
      // game wrote: its parts are kept, not the save as a whole (`statesAfterFinishingFiles`).
      if stateAfterRecovery(device) == Self.unknownState {
        if let parts = device.statesAfterFinishingFiles {
          if !parts.isEmpty, parts != [state] { owedAlternatives[state] = parts }
        } else if let filled = device.stateWithSetAsideFolders, filled != state {
          owedAlternatives[state] = [filled]
        }
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
    device.refreshLacking()
    if device.lackedAtStart { checkCarried(device) }
    if device.lackedAtStart && !device.lacksSecond && device.configLacksSecond {
      counts.locationsPlaced += 1
      note("  \(device.name) keeps the second location from now on (a restore placed it)")
    }
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
    if let carryFailure { throw carryFailure }
    try checkOutsideFiles()
    // (A device that lacks the second location has one: no mix is possible.)
    for device in devices where device.hasLocations && !device.wasKilled && !device.lacksSecond {
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
    let places = states.collect(container: container, devices: devices, lacking: lackingIndex != nil)
    for (state, origin) in owed.sorted(by: { $0.key < $1.key })
    where places[state] == nil && owedAlternatives[state].map({ $0.allSatisfy { places[$0] != nil } }) != true
    {
      throw SimulationFailure(
        invariant: "(a) nothing lost", detail: "state \(state.prefix(12)), \(origin), is nowhere any more")
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
  /// (Nowhere else: a combination of the save's own folders with folders a stopped restore set
  /// aside beside it holds it only where a folder set aside happens to hold what the save
  /// does; the game writes into the save, and the recovery keeps what was set aside whole.)
  /// (A device that lacked the second location and has it now also overwrites the save of its
  /// first location alone that it had then: `firstAlone`, that form of the state overwritten.)
  func gameOverwrites(_ device: SimulatedDevice, state overwritten: String? = nil, firstAlone: String? = nil)
  {
    let alone = overwritten == nil ? device.firstAloneState : firstAlone
    for state in [overwritten ?? device.state, alone].compactMap({ $0 }) where owed[state] != nil {
      let places =
        states.collect(container: container, devices: devices, lacking: lackingIndex != nil)[state] ?? []
      if places.allSatisfy({ $0.hasPrefix(SimulatedDevice.savePlace(device.name)) }) {
        owed.removeValue(forKey: state)
        counts.statesOverwrittenByGame += 1
        note("  state \(state.prefix(12)) was only in \(device.name)'s save; the game overwrites it")
      }
    }
  }

  /// After a command that says the device and the container agree: the save is the agreed
  /// archive's content.
  func checkAgreement(_ device: SimulatedDevice, vault: Vault, target: Target, _ what: String) throws {
    guard let archive = vault.agreements.load(target)?.archive else {
      throw SimulationFailure(invariant: "agreement", detail: "\(what) on \(device.name) left no agreement")
    }
    // A device that lacks the second location agrees on the archive's first location.
    device.refreshLacking()
    let facts = states.archiveFacts(container + "/" + SimulatedDevice.game + "/" + archive)
    let stored = device.lacksSecond ? facts?.lackingState : facts?.state
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
