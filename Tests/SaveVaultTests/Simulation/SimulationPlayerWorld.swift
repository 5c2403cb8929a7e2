import Foundation

@testable import SaveVault

/// Steps of the player's world that lost saves before: a wrapped game whose save folder was not
/// mounted at launch, a rollback to an older archive, and a second folder with the game's name.
extension SimulationScenario {
  /// The save folder's drive is not mounted when the game is launched through `wrap`: the game
  /// starts a new save in the empty mount point; then the drive is mounted again, over it.
  /// Unless the player chose at a prompt to upload it, the new save reaches neither the
  /// container nor the pending folder, so no other device ever restores it over its own.
  /// (Only on a device that agreed on a save with files in it: with no agreement, or one on
  /// an empty save, nothing says a save was expected there. A real unmount is then seen by the
  /// drive check, after the game, which moving a folder on one filesystem cannot show.)
  /// (Not for a game of several locations.)
  func unmountedWrap(_ device: SimulatedDevice, answer: SimulatedAnswer) throws {
    // Not over a new game's save still to be asked about: moving a folder aside and back on
    // one filesystem is no unmount the agreement can see, once a sync agreed meanwhile.
    guard !device.hasLocations, device.state != nil, let agreedName = device.agreedArchive,
      SaveState.ofArchive(container + "/" + SimulatedDevice.game + "/" + agreedName) != nil,
      !reinstalledSaves.values.contains(where: { $0.device == device.name })
    else { return }
    let card = device.root + "/card-\(step)"
    try FileManager.default.moveItem(atPath: device.save, toPath: card)
    note("\(device.name): the save's drive is not mounted at launch")
    var isFresh = false
    let agreed = device.agreedArchive
    let pendingAtLaunch = device.pendingNames
    try wrap(device, answer: answer) {
      // The game finds no save: whatever it writes is a new game's. (Unless the sync before
      // it restored the cloud's latest, an empty save: the game goes on from the cloud's.)
      isFresh = device.state == nil && device.agreedArchive == agreed
    }
    // From now on no run may upload the new game's save (kept as pending if the container
    // was unreachable after the game): checked with every step's invariants. Unless the save
    // agreed on was empty and no pending archive says it was played since: then a missing
    // save is the agreed one, and nothing says a save was expected there (as with no
    // agreement).
    let agreedEmpty =
      agreed.map { states.archiveDigest(container + "/" + SimulatedDevice.game + "/" + $0) == nil } ?? true
    if isFresh, let fresh = device.state, !answer.mayUploadReappearedSave,
      !agreedEmpty || !pendingAtLaunch.isEmpty
    {
      newGameSaves[fresh] = "\(device.name)'s new game save of step \(step) (\(answer))"
    }
    // The drive is mounted again: the new save is hidden under it, the old one is back.
    gameOverwrites(device)
    if FileManager.default.fileExists(atPath: device.save) {
      try FileManager.default.moveItem(atPath: device.save, toPath: device.root + "/hidden-\(step)")
    }
    try FileManager.default.moveItem(atPath: card, toPath: device.save)
    note("\(device.name): the drive is mounted again")
  }

  /// The game uninstalled and installed again: Steam deletes its Proton prefix, and the save in
  /// it, so the folder that holds the save goes (the save directory's, or the first
  /// location's: the other one, like a Steam Cloud folder, stays), and the device's changes
  /// since its last upload with it (the world's doing). Installed again, the folder is made
  /// anew, empty or with a new game's save, before the next command; or the game makes it
  /// while `wrap` runs it. A new game's save is owed like any (the game made it), but no
  /// container may hold it unless the player says so on this device (`reinstalledSaves`).
  func reinstall(_ device: SimulatedDevice) throws {
    // Not while a restore stopped midway has folders beside the save (the uninstall would
    // take them, and the save set aside in them, with it: the world's doing, not a promise).
    guard device.agreedArchive != nil, device.leftovers.isEmpty, !device.wasKilled,
      let folder = device.parentFolders.first, FileManager.default.fileExists(atPath: folder)
    else { return }
    // A folder made since the last agreement (the game's first save there) is no folder the
    // agreement knew: made anew, it is only a folder that appeared, and what the game writes
    // there a change like any. Only one the agreement names is known to be made anew.
    let isKnown =
      (try? device.vault()).flatMap { $0.0.agreements.load($0.1) }?.enclosingFolders?
      .contains { $0.path == folder } ?? false
    // Uninstalled again before any command saw the folder made anew: the new game's save it
    // left in the other locations is, to SaveVault, what play before an uninstall leaves (the
    // folder the agreement knew gone, the rest changed), so nothing tells it from a change.
    if reinstalledUnseen.contains(device.name) {
      reinstalledSaves = reinstalledSaves.filter { $0.value.device != device.name }
    }
    gameOverwrites(device)
    try? FileManager.default.removeItem(atPath: folder)
    made(device.state)  // what is left of a save of several locations: the uninstall's doing
    note("\(device.name): the game is uninstalled, '\(folder)' with it")
    counts.reinstalls += 1
    switch random.int(0..<3) {
    case 0:
      // The game makes its folder when it starts, inside `wrap`.
      let answer = SimulatedAnswer.random(&random)
      let agreed = device.agreedArchive
      var isFresh = false
      var atStart: String?
      var fresh: String?
      try wrap(
        device, answer: answer,
        atGameStart: {
          isFresh = (device.state == nil || device.isMissingFirstLocation) && device.agreedArchive == agreed
          atStart = device.state
          try? makeDirectory(folder)  // the game's first start makes its prefix
        },
        atGameEnd: { fresh = $0 })
      if isFresh, isKnown, let fresh, fresh != atStart, !answer.mayUploadReappearedSave {
        reinstalledSaves[fresh] = (device.name, "\(device.name)'s new game save of step \(step) (\(answer))")
      }
    case 1:
      try makeDirectory(folder)
      reinstalledUnseen.insert(device.name)
      note("\(device.name): the game is installed again, with no save yet")
    default:
      try makeDirectory(folder)
      reinstalledUnseen.insert(device.name)
      note("\(device.name): the game starts a new game: " + played(device, tag: "new game \(step)"))
      if isKnown, let fresh = device.state {
        reinstalledSaves[fresh] = (device.name, "\(device.name)'s new game save of step \(step)")
      }
    }
  }

  /// The player chose, on `device`, to upload whatever its save is: its new game saves may go up.
  func playerMayUpload(_ device: SimulatedDevice) {
    reinstalledSaves = reinstalledSaves.filter { $0.value.device != device.name }
  }

  /// The player restores an archive older than the latest on purpose: the restored save is
  /// their choice, so the next sync uploads it (status says local-changed), never restores the
  /// newer one over it.
  func rollback(_ device: SimulatedDevice) throws {
    let names = ((try? Platform.directoryNames(container + "/" + SimulatedDevice.game)) ?? [])
      .filter { ArchiveName(parsing: $0) != nil }.sorted()
    guard names.count > 1, let older = random.pick(Array(names.dropLast())), device.isOnline else { return }
    let warnings = begin(device, "restore --archive \(older)")
    defer { end(device, warnings) }
    let (vault, target) = try device.vault(log: warnings.log)
    do {
      let report = try vault.restore(target, selection: .named(older))
      note(
        "\(device.name) restore --archive \(older): rolled back from \(report.rolledBackFrom ?? "nothing")")
      try checkAgreement(device, vault: vault, target: target, "rollback")
    } catch {
      note("\(device.name) restore --archive \(older): " + (try expected(error, device, nil)))
      return
    }
    // An archive of an empty save restored on purpose is a deletion to upload only with
    // `backup --force`: asked about, like any.
    let state = try vault.status(target).state
    let expected: [SyncState] = device.state == nil ? [.localMissing] : [.localChanged, .conflict]
    guard expected.contains(state) else {
      throw SimulationFailure(
        invariant: "a rollback sticks",
        detail: "after restoring \(older) on \(device.name), status says \(state.rawValue)")
    }
  }

  /// A second folder whose last name is the game's (another game's `Saves`): used without
  /// `--game` on a device whose game name is bound to its own folder, it is refused, and the
  /// container does not change. (Not for a game of several locations, named by `--game`.)
  func sameNamedFolder(_ device: SimulatedDevice) throws {
    guard !device.hasLocations, device.agreedArchive != nil else { return }
    let other = device.root + "/other/" + SimulatedDevice.game
    try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
    FileManager.default.createFile(atPath: other + "/another-game.sav", contents: Data("\(step)".utf8))
    let (vault, _) = try device.vault()
    do {
      _ = try vault.resolve(TargetRequest(saveDirectory: other, containerURL: device.containerURL))
      throw SimulationFailure(
        invariant: "two folders of one name are not one game",
        detail: "\(device.name) accepted '\(other)' as game '\(SimulatedDevice.game)'")
    } catch is ConfigError {
      note("\(device.name): a second folder named '\(SimulatedDevice.game)' is refused")
    }
  }
}

extension SimulatedAnswer {
  /// Whether this answer may upload a save that came back after it was seen missing: only the
  /// player, at the prompt.
  var mayUploadReappearedSave: Bool {
    if case .prompt(.upload) = self { return true }
    return false
  }
}
