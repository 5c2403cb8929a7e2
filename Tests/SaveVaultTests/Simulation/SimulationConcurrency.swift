import Foundation

@testable import SaveVault

extension SimulationScenario {
  /// Two devices upload at the same moment: both agreed on the cloud's latest and played since,
  /// and back up at once, on two threads, each holding its upload a moment after its listing
  /// (so that, most often, neither sees the other's archive before storing its own). Both
  /// archives are kept. Judged by ancestry: the device whose archive is the latest is in sync,
  /// and the other one's next sync asks (its save is in no ancestry of the latest), whatever
  /// either listed. When one did see the other's archive first, it asked instead of uploading.
  func concurrentBackups(_ first: SimulatedDevice, _ second: SimulatedDevice) throws {
    let names = ((try? Platform.directoryNames(container + "/" + SimulatedDevice.game)) ?? [])
      .filter { ArchiveName.isBackupName($0) }
    guard first.isOnline, second.isOnline, let latest = names.max(), first.agreedArchive == latest,
      second.agreedArchive == latest, first.state != nil, second.state != nil
    else { return }
    for device in [first, second] {
      gameOverwrites(device)
      note("\(device.name) plays: " + played(device, tag: "s\(step)"))
    }
    counts.concurrentUploads += 1
    let pair = [first, second]
    let sinks = pair.map { begin($0, "backup at the same moment as the other") }
    let runs = try pair.indices.map { index in
      try pair[index].vault(failpoints: "backup.listed=sleep:200", log: sinks[index].log)
    }
    final class Outcomes: @unchecked Sendable {
      let lock = NSLock()
      var results: [Result<BackupReport, any Error>?] = [nil, nil]
    }
    let ran = Outcomes()
    DispatchQueue.concurrentPerform(iterations: 2) { index in
      let (vault, target) = runs[index]
      let outcome = Result { try vault.backup(target, force: false, resolver: NobodyToAsk()) }
      ran.lock.withLock { ran.results[index] = outcome }
    }
    let outcomes = ran.lock.withLock { ran.results }
    var uploaded: [(device: SimulatedDevice, archive: String)] = []
    for (index, device) in pair.enumerated() {
      defer { end(device, sinks[index]) }
      switch outcomes[index] {
      case .success(let report)?:
        note("\(device.name) backup at the same moment: \(report.outcome.rawValue) \(report.archive)")
        if report.outcome == .uploaded { uploaded.append((device, report.archive)) }
        let (vault, target) = runs[index]
        try checkAgreement(device, vault: vault, target: target, "backup at the same moment")
      case .failure(let error as UnansweredQuestion)?:
        note("\(device.name) backup at the same moment: asked (\(error.kind.rawValue)), nothing uploaded")
      case .failure(let error)?:
        throw SimulationFailure(
          invariant: "unexpected error", detail: "\(device.name)'s backup at the same moment: \(error)")
      case nil:
        throw SimulationFailure(invariant: "harness", detail: "a backup at the same moment did not run")
      }
    }
    guard uploaded.count == 2 else { return }
    let newest = uploaded.max { a, b in
      let (x, y) = (
        ArchiveName(parsing: a.archive)?.createdMs ?? 0, ArchiveName(parsing: b.archive)?.createdMs ?? 0
      )
      return x == y ? a.archive < b.archive : x < y
    }
    for (device, _) in uploaded {
      let isLatest = device === newest?.device
      let report = try sync(device, answer: .policy(.fail))
      let expected: SyncState = isLatest ? .inSync : .conflict
      guard let report, report.state == expected, report.action != .uploaded, report.action != .restored
      else {
        throw SimulationFailure(
          invariant: "uploads made apart are judged by ancestry",
          detail:
            "after \(first.name) and \(second.name) uploaded at the same moment, \(device.name) (\(isLatest ? "whose archive is the latest" : "whose archive is not the latest")) synced to \(report.map(describe) ?? "an error"), not \(expected.rawValue)"
        )
      }
    }
  }
}
