import Foundation

@testable import SaveVault

/// A device that adopts the game: `wrap` under Steam (`SteamAppId` set, no target) for a game
/// its config lacks, which the manifest knows and Steam has installed.
extension SimulationScenario {
  /// The manifest a device adopts the game from: the game of Steam app 4000 keeps its save in
  /// its Proton prefix's `Documents/Saves` and in `~/.config/Game`, the two locations every
  /// device of the scenario has (by name: `1-Saves`, `2-Game`).
  static let manifest = """
    ---
    "\(SimulatedDevice.game)":
      files:
        "<winDocuments>/Saves":
          tags:
            - save
        "<xdgConfig>/Game":
          tags:
            - save
      steam:
        id: \(SimulatedDevice.steamAppID)

    """

  /// Where the player chose the container a game is adopted into, or why none is chosen.
  enum AdoptionSetting: String, CaseIterable {
    /// `wrap --container`.
    case flag = "--container"
    /// The config file's top-level `container`.
    case configFile = "the config's container"
    /// The container of the one other game of the config.
    case everyGame = "the container every game names"
    /// `SAVEVAULT_CONTAINER`.
    case environment = "SAVEVAULT_CONTAINER"
    /// None: the config has no game and no container.
    case noGames = "no container chosen (no game, no container)"
    /// None: the config's two other games name different containers.
    case differentContainers = "no container chosen (two games, two containers)"

    var isChosen: Bool { self != .noGames && self != .differentContainers }

    static let chosen: [AdoptionSetting] = allCases.filter(\.isChosen)
  }

  /// The game is launched from Steam on `device`, whose config lacks it: the real binary runs
  /// `wrap` with `SteamAppId` and no target, around the shell game that writes into the first
  /// location (`gameScript`), with a random conflict policy. With a container the player
  /// chose (the flag, the config's, the one every game names, `SAVEVAULT_CONTAINER`), the game
  /// is added to the config with both locations and the shared container, and synced there
  /// like any wrap: its first sync. With none, the game still runs, nothing is added or
  /// uploaded anywhere, and the save it left stays (owed, in the save). `isConverging`: the
  /// end of the scenario, where it is adopted (a chosen container) and the game does not play.
  func adopt(_ device: SimulatedDevice, isConverging: Bool = false) throws {
    let setting =
      isConverging || random.chance(70)
      ? random.pick(AdoptionSetting.chosen) ?? .flag
      : random.pick([AdoptionSetting.noGames, .differentContainers]) ?? .noGames
    let policy =
      random.pick([ConflictPolicy.prompt, .upload, .restore, .newer, .skip, .fail]) ?? .prompt
    let answer: SimulatedAnswer = policy == .prompt ? .prompt(nil) : .policy(policy)
    let url = device.containerURL
    func other(_ name: String, _ container: String) -> [String: Any] {
      ["saveDir": device.root + "/" + name, "container": container]
    }
    switch setting {
    case .configFile: try device.writeConfig(["container": url])
    case .everyGame: try device.writeConfig(["games": ["other": other("other-save", url)]])
    case .differentContainers:
      try device.writeConfig([
        "games": [
          "other": other("other-save", root + "/elsewhere-a"),
          "another": other("another-save", root + "/elsewhere-b"),
        ]
      ])
    case .flag, .environment, .noGames: try device.writeConfig([:])
    }
    let config = FileManager.default.contents(atPath: device.configFile)
    let marks = root + "/marks-\(step)"
    defer { try? FileManager.default.removeItem(atPath: marks) }
    var extra = [
      "SteamAppId": SimulatedDevice.steamAppID, "SIM_SAVE": device.locations[0],
      "SIM_SAVE2": device.locations[1], "SIM_MARKS": marks,
      "SIM_CONTENT": "\(device.name) s\(step) by the game launched from Steam \(random.int(0..<1_000_000))",
    ]
    if setting == .environment { extra["SAVEVAULT_CONTAINER"] = url }
    let game = isConverging ? ["/bin/true"] : ["/bin/sh", "-c", Self.gameScript]
    let arguments =
      ["wrap"] + (setting == .flag ? ["--container", url] : []) + [
        "--on-conflict", policy.rawValue, "--json", "--",
      ]
      + game
    let before = stateAfterRecovery(device)
    let archivesBefore = containerArchives()
    begin(device, "wrap under Steam, \(setting.rawValue), \(answer)")
    defer { end(device) }
    let output = try device.runBinary(arguments, extra: extra)
    let what = "\(device.name) wrap under Steam (binary, \(setting.rawValue), \(answer))"
    note("\(what): exit \(output.code)")
    let lines = output.stderr.split(separator: "\n").compactMap { line in
      (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
    for line in lines { if let warning = line["warning"] as? String { note("  warning: " + warning) } }
    guard output.code == 0, !output.wasSignaled else {
      throw SimulationFailure(
        invariant: "a game launched from Steam runs",
        detail: "\(what) exited \(output.code): \(output.stderr)")
    }
    // What the game found and left: owed, like any state a game left.
    var atStart: String?
    var atEnd: String?
    if FileManager.default.fileExists(atPath: marks + "/before") {
      device.refreshLacking()
      atStart = markedState(device, marks, "before")
      gameOverwrites(device, state: atStart, firstAlone: markedFirstAlone(device, marks, "before"))
      atEnd = markedState(device, marks, "after")
      made(atEnd)
      if let atEnd, owed[atEnd] == nil {
        owed[atEnd] = "\(device.name)'s save after the game of step \(step)"
      }
      note("  the game played on \(device.name)")
    } else if !isConverging {
      throw SimulationFailure(
        invariant: "a game launched from Steam runs", detail: "\(what): the game never ran")
    }
    let entry =
      ((try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: device.configFile))))
      as? [String: Any])
      .flatMap { $0["games"] as? [String: Any] }?[SimulatedDevice.game] as? [String: Any]
    let defaultContainer = device.dataDirectory + "/container/" + SimulatedDevice.game
    if let stray = ((try? Platform.directoryNames(defaultContainer)) ?? []).first {
      throw SimulationFailure(
        invariant: "an adopted game goes to the container the player chose",
        detail: "\(what) left \(stray) in the embedded default container")
    }
    guard setting.isChosen else {
      // Not adopted: nothing added, nothing uploaded or kept pending, the save as the game left it.
      counts.adoptionsWithoutContainer += 1
      guard entry == nil, FileManager.default.contents(atPath: device.configFile) == config,
        containerArchives() == archivesBefore, device.pendingNames.isEmpty,
        output.stderr.contains("no container is chosen"), isConverging || device.state == atEnd
      else {
        throw SimulationFailure(
          invariant: "with no container chosen, a game is not adopted",
          detail:
            "\(what): config entry \(entry.map { "\($0)" } ?? "none"), \(containerArchives().subtracting(archivesBefore).count) archive(s) uploaded, pending \(device.pendingNames.sorted()), stderr: \(output.stderr)"
        )
      }
      note("  not adopted: no container chosen; the game ran unsynced")
      return
    }
    guard let entry else {
      throw SimulationFailure(
        invariant: "a game launched from Steam is adopted into the container the player chose",
        detail: "\(what) did not add the game: \(output.stderr)")
    }
    device.adopted()
    counts.adoptions += 1
    note("  adopted: \(entry["locations"].map { "\($0)" } ?? "no locations")")
    // It is the game of both locations, in the shared container, whatever the flags say.
    let (vault, listed) = try device.vault()
    let chosen = try vault.resolve(TargetRequest(game: SimulatedDevice.game))
    guard listed.locations.map(\.path) == device.locations, chosen.agreementKey == listed.agreementKey,
      entry["steamAppId"] as? String == SimulatedDevice.steamAppID
    else {
      throw SimulationFailure(
        invariant: "a game launched from Steam is adopted into the container the player chose",
        detail:
          "\(what) added \(entry): its locations \(listed.locations.map(\.path)), its container \(chosen.containerURL)"
      )
    }
    // Its first sync, before the game and after it: as any wrap's.
    let phases = lines.filter { $0["phase"] != nil }
    let report = { (phase: String) -> SyncReport? in
      guard let line = phases.last(where: { $0["phase"] as? String == phase }),
        let state = (line["state"] as? String).flatMap(SyncState.init(rawValue:)),
        let action = (line["action"] as? String).flatMap(SyncAction.init(rawValue:))
      else { return nil }
      return SyncReport(game: SimulatedDevice.game, state: state, action: action)
    }
    if let first = report("before") {
      note("  before the game: \(describe(first))")
      try checkUnattended(
        first, answer: answer, before: before, after: atStart ?? device.state, "adopting wrap")
    }
    if let after = report("after") {
      note("  after the game: \(describe(after))")
      if let atEnd {
        try checkUnattended(after, answer: answer, before: atEnd, after: device.state, "adopting wrap")
      }
      if isAgreed(after) { try checkAgreement(device, vault: vault, target: listed, "adopting wrap") }
    }
    for pending in device.pendingNames.subtracting(device.pendingAtStart) {
      let path = device.dataDirectory + "/pending/" + SimulatedDevice.game + "/" + pending
      if states.archiveFacts(path)?.state != device.state {
        throw SimulationFailure(
          invariant: "pending archive",
          detail: "\(pending) does not hold \(device.name)'s save after the game")
      }
    }
  }
}
