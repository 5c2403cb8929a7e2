import Foundation

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

extension SimulationScenario {
  /// What the game run by a real `wrap` does: copies the save as it finds it to `before`,
  /// writes `slot1.sav`, and copies the result to `after`, so the simulation knows which state
  /// the game overwrote and which it left. A game of several locations writes into the first
  /// (`SIM_SAVE`); the second (`SIM_SAVE2`) is copied as it is, to `before2` and `after2`. A
  /// game that also keeps files of its install folder (`SIM_INSTALL`) writes its `autosave.sav`
  /// there too, the folder copied whole to `before3` and `after3`; one that keeps registry keys
  /// (`SIM_REG`) leaves its prefix's `user.reg` as it is, copied to `before.reg` and `after.reg`.
  static let gameScript = """
    mkdir -p "$SIM_MARKS"
    snap() { if [ -d "$1" ]; then cp -R "$1" "$2"; else mkdir "$2"; fi; }
    snap "$SIM_SAVE" "$SIM_MARKS/before"
    if [ -n "$SIM_SAVE2" ]; then snap "$SIM_SAVE2" "$SIM_MARKS/before2"; fi
    if [ -n "$SIM_INSTALL" ]; then snap "$SIM_INSTALL" "$SIM_MARKS/before3"; fi
    if [ -n "$SIM_REG" ]; then cp "$SIM_REG" "$SIM_MARKS/before.reg"; fi
    mkdir -p "$SIM_SAVE" && printf %s "$SIM_CONTENT" > "$SIM_SAVE/slot1.sav" && cp -R "$SIM_SAVE" "$SIM_MARKS/after"
    if [ -n "$SIM_SAVE2" ]; then snap "$SIM_SAVE2" "$SIM_MARKS/after2"; fi
    if [ -n "$SIM_INSTALL" ]; then
      printf %s "$SIM_CONTENT" > "$SIM_INSTALL/autosave.sav" && cp -R "$SIM_INSTALL" "$SIM_MARKS/after3"
    fi
    if [ -n "$SIM_REG" ]; then cp "$SIM_REG" "$SIM_MARKS/after.reg"; fi
    """

  /// The state of the save the real game found (`before`) or left (`after`).
  /// (Of a device that lacks the second location: the first one's alone.)
  func markedState(_ device: SimulatedDevice, _ marks: String, _ which: String) -> String? {
    guard device.hasLocations else { return SaveState.ofDirectory(marks + "/" + which) }
    let names = device.namedLocations.map(\.name)
    if device.lacksSecond { return SaveState.ofLocations([(names[0], marks + "/" + which)], lacking: true) }
    // A location of files: its folder as copied with the install folder.
    let files = device.fileLocations.enumerated().map { index, location in
      (names[index + 2], marks + "/" + which + "3" + location.folder.dropFirst(device.install.count))
    }
    let registry = device.registryName.map { [($0, marks + "/" + which + ".reg")] } ?? []
    return SaveState.ofLocations(
      [(names[0], marks + "/" + which), (names[1], marks + "/" + which + "2")] + files + registry,
      patterns: device.patterns)
  }

  /// On a device that lacked the second location and has it now: what the game found or left
  /// in the first location, in the form of a save of it alone (`firstAloneState`).
  func markedFirstAlone(_ device: SimulatedDevice, _ marks: String, _ which: String) -> String? {
    guard device.startedLacking, !device.lacksSecond else { return nil }
    return SaveState.ofLocations([(SaveState.firstLocation, marks + "/" + which)], lacking: true)
  }

  /// A crash: the built binary runs one command with this device's environment and
  /// `SAVEVAULT_FAILPOINTS=<point>=kill`, and dies by a real SIGKILL there (no clean-up runs),
  /// unless the command never reaches the point and ends normally. The binary's clock is the
  /// machine's, so for that command the device's clock jumps: archive names stay ordered only
  /// because SaveVault names a new archive after every one it has seen.
  func kill(_ device: SimulatedDevice) throws {
    let policy =
      random.pick([ConflictPolicy.prompt, .upload, .restore, .newer, .skip, .fail]) ?? .prompt
    let answer: SimulatedAnswer = policy == .prompt ? .prompt(nil) : .policy(policy)
    let target = device.targetArguments
    let marks = root + "/marks-\(step)"
    let arguments: [String]
    switch random.int(0..<4) {
    case 0:
      arguments = ["backup"] + target + (random.chance(50) ? ["--force"] : [])
      if arguments.contains("--force") { playerMayUpload(device) }
    case 1: arguments = ["restore"] + target + ["--latest"]
    case 2: arguments = ["sync"] + target + ["--on-conflict", policy.rawValue, "--json"]
    default:
      arguments =
        ["wrap"] + target + ["--on-conflict", policy.rawValue, "--", "/bin/sh", "-c", Self.gameScript]
    }
    let command = arguments[0]
    let points = Self.stopPoints(
      for: command, killing: true, locations: device.hasLocations, files: device.hasFiles,
      registry: device.hasRegistry)
    // Half the time, between the files of a restore of files or before its registry merge, when
    // the command has those points.
    let filePoints = Self.filePoints(points) + Self.registryPoints(points)
    let point =
      (!filePoints.isEmpty && random.chance(50) ? random.pick(filePoints) : random.pick(points))
      ?? "backup.packed"
    let failpoint = Self.failpoint(point, "kill")
    let before = stateAfterRecovery(device)
    begin(device, "\(command), killed at \(failpoint)")
    var wasKilled = false
    defer {
      end(device)
      device.wasKilled = wasKilled
    }
    counts.killAttempts += 1
    let output = try device.runBinary(
      arguments,
      extra: [
        "SAVEVAULT_FAILPOINTS": failpoint, "SIM_SAVE": device.locations.first ?? device.save,
        "SIM_SAVE2": device.locations.dropFirst().first ?? "", "SIM_MARKS": marks,
        "SIM_INSTALL": device.hasFiles ? device.install : "",
        "SIM_REG": device.hasRegistry ? device.userReg : "",
        "SIM_CONTENT": "\(device.name) s\(step) by the real game \(random.int(0..<1_000_000))",
      ])
    defer { try? FileManager.default.removeItem(atPath: marks) }
    let what = "\(device.name) \(arguments.prefix(1).joined()) (binary, \(failpoint))"
    if output.wasSignaled {
      guard output.code == SIGKILL else {
        throw SimulationFailure(
          invariant: "unexpected error", detail: "\(what) died by signal \(output.code)")
      }
      counts.kills += 1
      if !Self.filePoints([point]).isEmpty { counts.fileKills += 1 }
      if !Self.registryPoints([point]).isEmpty { counts.registryKills += 1 }
      wasKilled = true
      note("\(what): killed")
    } else {
      note("\(what): exit \(output.code)")
      try checkExit(output, command: command, device: device, what: what)
      if command == "backup" && output.code == 3 && before != device.state && before != Self.unknownState {
        throw SimulationFailure(
          invariant: "(b) unattended conflicts change nothing",
          detail: "\(what) left unresolved changed the save")
      }
      var isAgreed = output.code == 0 && (command == "backup" || command == "restore")
      if command == "sync", let report = try? jsonObject(output.stdout),
        let state = (report["state"] as? String).flatMap(SyncState.init(rawValue:)),
        let action = (report["action"] as? String).flatMap(SyncAction.init(rawValue:))
      {
        let report = SyncReport(game: SimulatedDevice.game, state: state, action: action)
        try checkUnattended(report, answer: answer, before: before, after: device.state, what)
        isAgreed = self.isAgreed(report)
      }
      if isAgreed {
        let (vault, target) = try device.vault()
        try checkAgreement(device, vault: vault, target: target, what)
      }
    }
    if FileManager.default.fileExists(atPath: marks + "/before") {
      device.refreshLacking()  // a restore may have placed the second location before the game
      gameOverwrites(
        device, state: markedState(device, marks, "before"),
        firstAlone: markedFirstAlone(device, marks, "before"))
      let after = markedState(device, marks, "after")
      made(after)
      if let after, owed[after] == nil {
        owed[after] = "\(device.name)'s save after the real game of step \(step)"
      }
      note("  the real game played on \(device.name)")
    }
  }

  /// The exit codes a step explains: 0; 3 for a conflict left alone; 4 only offline; 1 for a
  /// backup with no save or a restore with no backups.
  private func checkExit(_ output: ProgramOutput, command: String, device: SimulatedDevice, what: String)
    throws
  {
    let stderr = output.stderr.lowercased()
    let isExplained: Bool
    switch output.code {
    case 0: isExplained = true
    case 3: isExplained = command == "sync" || command == "backup"  // backup in a conflict asks: nobody here
    case 4: isExplained = !device.isOnline
    case 1:
      isExplained =
        (command == "backup" && (stderr.contains("does not exist") || stderr.contains("empty")))
        || (command == "restore" && stderr.contains("no backup"))
        // A location gone (the game installed again, not started yet), as in-process.
        || (device.isMissingFirstLocation && stderr.contains("is gone"))
    default: isExplained = false
    }
    guard isExplained else {
      throw SimulationFailure(
        invariant: "unexpected error", detail: "\(what) exited \(output.code): \(output.stderr)")
    }
  }
}
