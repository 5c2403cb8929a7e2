import Foundation

@testable import SaveVault

/// Steps of a game in several locations whose devices differ: one lacks the second location
/// (its config names the first alone), one adopts the game through `wrap` under Steam.
extension SimulationScenario {
  /// The archives in the container.
  func containerArchives() -> Set<String> {
    Set(
      ((try? Platform.directoryNames(container + "/" + SimulatedDevice.game)) ?? []).filter {
        ArchiveName.isBackupName($0)
      })
  }

  /// Invariant: an upload by a device that lacks the second location carries it forward. A
  /// command on `device` that lacked it from start to end ended: each archive it uploaded holds
  /// in the second location exactly the content that the archive it was made over had there
  /// (the archive this device agreed on, or the cloud's latest it went over). Then its content
  /// is a save the player may have anywhere (their first location, and the second as the cloud
  /// had it).
  func checkCarried(_ device: SimulatedDevice) {
    guard device.lacksSecond, carryFailure == nil else { return }
    let folder = container + "/" + SimulatedDevice.game
    let uploaded = containerArchives().subtracting(device.archivesAtStart).filter {
      ArchiveName(parsing: $0)?.device == device.name
    }
    guard !uploaded.isEmpty else { return }
    let over = [device.agreedAtStart, device.archivesAtStart.max()].compactMap { $0 }
      .compactMap { name in states.archiveFacts(folder + "/" + name).map { (name, $0) } }
    for name in uploaded.sorted() {
      counts.lackingUploads += 1
      guard let facts = states.archiveFacts(folder + "/" + name) else {
        carryFailure = SimulationFailure(
          invariant: "a location a device lacks is carried forward",
          detail: "\(device.name)'s upload \(name) cannot be read back")
        return
      }
      // (A location an archive does not name holds nothing.)
      guard over.isEmpty || over.contains(where: { $0.1.second == facts.second }) else {
        let had = over.map { "\($0.0) had \($0.1.second?.prefix(12) ?? "nothing")" }.joined(separator: ", ")
        carryFailure = SimulationFailure(
          invariant: "a location a device lacks is carried forward",
          detail:
            "\(device.name), which has no \(SaveState.secondLocation), uploaded \(name) with \(facts.second?.prefix(12) ?? "nothing") in it\(facts.locations.contains(SaveState.secondLocation) ? "" : " (no such location)"); \(had)"
        )
        return
      }
      if facts.second != nil { counts.carriedUploads += 1 }
      if let state = facts.state { madeStates.insert(state) }
    }
  }

  /// Steam made the folder of the second location on a device whose config lacked it (empty,
  /// unless a restore placed it there already), and the player adds it to the config: from now
  /// on the save here is both locations.
  func gainLocation(_ device: SimulatedDevice) throws {
    let folder = device.locations[1]
    let existed = FileManager.default.fileExists(atPath: folder)
    try makeDirectory(folder)
    try device.gainSecond()
    made(device.state)
    counts.locationsGained += 1
    note(
      "\(device.name): the config names the second location from now on"
        + (existed ? " (a restore had placed it)" : ", its folder made empty"))
  }
}
