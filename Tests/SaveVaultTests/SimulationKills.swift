import Foundation

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

extension SimulationScenario {
  /// What the game run by a real `wrap` does: copies the save as it finds it to `before`,
  /// writes `slot1.sav`, and copies the result to `after`, so the simulation knows which state
  /// the game overwrote and which it left.
  static let gameScript = """
    mkdir -p "$SIM_MARKS"
    if [ -d "$SIM_SAVE" ]; then cp -R "$SIM_SAVE" "$SIM_MARKS/before"; else mkdir "$SIM_MARKS/before"; fi
    mkdir -p "$SIM_SAVE" && printf %s "$SIM_CONTENT" > "$SIM_SAVE/slot1.sav" && cp -R "$SIM_SAVE" "$SIM_MARKS/after"
    """

  /// A crash: the built binary runs one command with this device's environment and
  /// `SAVEVAULT_FAILPOINTS=<point>=kill`, and dies by a real SIGKILL there (no clean-up runs),
  /// unless the command never reaches the point and ends normally. The binary's clock is the
  /// machine's, so for that command the device's clock jumps: archive names stay ordered only
  /// because SaveVault names a new archive after every one it has seen.
  func kill(_ device: SimulatedDevice) throws {
    let policy =
      random.pick([ConflictPolicy.prompt, .upload, .restore, .newer, .skip, .fail]) ?? .prompt
    let answer: SimulatedAnswer = policy == .prompt ? .prompt(nil) : .policy(policy)
    let target = ["--save-dir", device.save, "--container", device.containerURL]
    let marks = root + "/marks-\(step)"
    let arguments: [String]
    switch random.int(0..<4) {
    case 0: arguments = ["backup"] + target + (random.chance(50) ? ["--force"] : [])
    case 1: arguments = ["restore"] + target + ["--latest"]
    case 2: arguments = ["sync"] + target + ["--on-conflict", policy.rawValue, "--json"]
    default:
      arguments =
        ["wrap"] + target + ["--on-conflict", policy.rawValue, "--", "/bin/sh", "-c", Self.gameScript]
    }
    let command = arguments[0]
    let point = random.pick(Self.stopPoints(for: command, killing: true)) ?? "backup.packed"
    let failpoint = Self.failpoint(point, "kill")
    let before = stateAfterRecovery(device)
    begin(device, "\(command), killed at \(failpoint)")
    defer { end(device) }
    counts.killAttempts += 1
    let output = try device.runBinary(
      arguments,
      extra: [
        "SAVEVAULT_FAILPOINTS": failpoint, "SIM_SAVE": device.save, "SIM_MARKS": marks,
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
      note("\(what): killed")
    } else {
      note("\(what): exit \(output.code)")
      try checkExit(output, command: command, device: device, what: what)
      if command == "backup" && output.code == 3 && before != device.state {
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
      gameOverwrites(device, state: SaveState.ofDirectory(marks + "/before"))
      if let after = SaveState.ofDirectory(marks + "/after"), owed[after] == nil {
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
    default: isExplained = false
    }
    guard isExplained else {
      throw SimulationFailure(
        invariant: "unexpected error", detail: "\(what) exited \(output.code): \(output.stderr)")
    }
  }
}
