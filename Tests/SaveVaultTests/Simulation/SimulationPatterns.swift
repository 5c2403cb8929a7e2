import Foundation

@testable import SaveVault

/// Devices whose configs give one folder different patterns (see `SimulationTests`): the slots
/// folder is `*.sav` on one device, the whole folder or `*` on another. Each device's save is
/// what its own config names, so the model reads every archive and kept copy as each device
/// has it (`view(of:)`). What SaveVault promises there: nothing lost (each device's save stays
/// recoverable as that device has it), every archive any device uploaded is readable with every
/// check a restore runs, and no sync goes the wrong way without asking (a restore over a save
/// changed since its agreement, an upload over a cloud save changed since).
extension SimulatedDevice {
  /// The state this device has of `files` (an archive's or a kept copy's, each under its
  /// location's name): the files of its own locations, those of a location of files that its
  /// pattern names.
  func view(of files: [(path: String, sha256: String)]) -> String? {
    var names: [String: String?] = [:]
    for location in namedLocations { names[location.name] = patterns[location.name] }
    return SaveState.digest(
      files.filter { file in
        guard let slash = file.path.firstIndex(of: "/") else { return false }
        guard let pattern = names[String(file.path[..<slash])] else { return false }
        return pattern.map { SimulatedFiles.matches($0, String(file.path[file.path.index(after: slash)...])) }
          ?? true
      })
  }
}

extension SimulationScenario {
  /// The save an archive holds as `device` has it: of its own locations and patterns in a
  /// scenario of patterns that differ; of its first location alone while it lacks the second;
  /// else the whole archive.
  func state(of facts: SaveState.ArchiveFacts?, on device: SimulatedDevice) -> String? {
    guard let facts else { return nil }
    if hasPatterns { return device.view(of: facts.files) }
    return device.lacksSecond ? facts.lackingState : facts.state
  }

  /// Invariant: every archive in the container is readable with every check a restore runs
  /// (a device uploaded it; none may be refused, whatever the devices' configs). Each archive
  /// is read once (archives are never rewritten).
  func checkArchivesReadable() throws {
    let folder = container + "/" + SimulatedDevice.game
    for name in containerArchives().subtracting(readableArchives).sorted() {
      guard states.archiveFacts(folder + "/" + name) != nil else {
        throw SimulationFailure(
          invariant: "every archive a device uploaded is readable",
          detail:
            "\(name) is refused: \(SaveState.refusal(ofArchive: folder + "/" + name) ?? "(reads now)")")
      }
      readableArchives.insert(name)
    }
  }

  /// What the model knows before a sync on `device`, to judge its direction after: the
  /// device's save, the archive it agreed on and the container's latest, as the device has
  /// them. Nil unless the scenario's patterns differ and nothing else is in play (online, no
  /// pending archive, no restore half-done or left beside the save, no question left
  /// unanswered, a save and an agreement on one).
  struct Direction {
    var isLocalChanged: Bool
    var isCloudChanged: Bool
    var agreed: String
    var latest: String
  }

  func direction(before device: SimulatedDevice) -> Direction? {
    guard hasPatterns, device.isOnline, !device.wasKilled, device.pendingNames.isEmpty,
      device.leftovers.isEmpty, !device.hasRestoreJournal, let state = device.state,
      let (vault, target) = try? device.vault(), let record = vault.agreements.load(target),
      record.unanswered == nil, let latest = containerArchives().max()
    else { return nil }
    let agreed = record.archive
    let folder = container + "/" + SimulatedDevice.game + "/"
    guard let agreedState = self.state(of: states.archiveFacts(folder + agreed), on: device) else {
      return nil
    }
    let latestState = self.state(of: states.archiveFacts(folder + latest), on: device)
    return Direction(
      isLocalChanged: state != agreedState, isCloudChanged: latest != agreed && latestState != agreedState,
      agreed: agreed, latest: latest)
  }

  /// Invariant: a sync that decided without a conflict went the right way. A restore over a
  /// save changed since its agreement, or an upload over a cloud save changed since (each as
  /// this device has it), is the wrong way unless the player was asked.
  func checkDirection(_ before: Direction?, _ report: SyncReport, on device: SimulatedDevice) throws {
    guard let before, report.state != .conflict, report.action != .unanswered else { return }
    counts.directionsJudged += 1
    let wrong: String? =
      switch report.action {
      case .restored where before.isLocalChanged:
        "restored \(report.archive ?? "an archive") over a save changed since it agreed on \(before.agreed)"
      case .uploaded where before.isCloudChanged:
        "uploaded over \(before.latest), which changed since it agreed on \(before.agreed)"
      default: nil
      }
    if let wrong {
      throw SimulationFailure(
        invariant: "no sync the wrong way without asking",
        detail:
          "\(device.name) (its slots folder \(device.slotsPattern.map { $0.isEmpty ? "whole" : $0 } ?? "?")), deciding \(report.state.rawValue): \(wrong)"
      )
    }
  }
}
