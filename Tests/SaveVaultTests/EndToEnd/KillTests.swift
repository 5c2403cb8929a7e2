import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// SIGKILL (a power cut, the OOM killer, a launcher that gives up) at every named point and at
/// random moments of backup and restore, through the built binary, on a folder and on S3.
/// After each kill: the container holds only whole archives that verify; the next command
/// leaves the save directory wholly the old or wholly the new state, with nothing left beside
/// it; every state the save ever had can still be got back.
@Suite("Kill: SIGKILL at any moment loses nothing", .tags(.large))
struct KillTests {
  static func backupPoints(_ kind: CrashRig.Kind) -> [String] {
    let common = [
      "progress.packing=kill@1", "progress.packing=kill@3", "backup.packed=kill", "backup.stored=kill",
    ]
    switch kind {
    case .folder: return common
    case .s3:
      return common + [
        "s3.staged=kill", "progress.uploading=kill@1", "s3.part=kill@2", "s3.parts-sent=kill",
      ]
    }
  }

  static func restorePoints(_ kind: CrashRig.Kind) -> [String] {
    let common = [
      "progress.extracting=kill@1", "progress.extracting=kill@3", "restore.extracted=kill",
      "restore.between-renames=kill", "restore.swapped=kill", "restore.keep-by-moving=kill",
      "restore.kept=kill",
    ]
    return kind == .s3 ? ["progress.downloading=kill@1"] + common : common
  }

  @Test("SIGKILL at every point of backup", arguments: CrashRig.Kind.allCases)
  func killDuringBackup(kind: CrashRig.Kind) async throws {
    let rig = try CrashRig(kind)
    try await rig.backUp(1)
    var states = [rig.saveState()]
    for (index, point) in Self.backupPoints(kind).enumerated() {
      try rig.writeState(UInt64(10 + index))
      states.append(rig.saveState())
      let killed = try await rig.runAwaiting(["backup"], failpoints: point)
      try #require(killed.wasSignaled && killed.code == SIGKILL, "\(point) never fired: \(killed.stderr)")
      CrashTally.kills.add()
      try await checkContainer(rig, after: point)
      #expect(rig.saveState() == states.last, "backup changed the save (\(point))")
      let next = try await rig.runAwaiting(["backup"])
      #expect(next.code == 0, "the backup after a kill at \(point) failed: \(next.stderr)")
      #expect(rig.containerTemporaries() == [], "temporaries left after the next backup (\(point))")
      #expect(try rig.openMultipartUploads() == [], "multipart uploads left after the next backup (\(point))")
      try await checkRecoverable(rig, states, after: point)
    }
    CrashTally.kills.report("backup kills on \(kind)")
  }

  @Test("SIGKILL at every point of restore", arguments: CrashRig.Kind.allCases)
  func killDuringRestore(kind: CrashRig.Kind) async throws {
    let rig = try CrashRig(kind)
    let firstArchive = try await rig.backUp(1)
    let first = rig.saveState()
    let secondArchive = try await rig.backUp(2)
    let second = rig.saveState()
    for point in Self.restorePoints(kind) {
      let before = rig.saveState()
      let other = before == first ? secondArchive : firstArchive
      let killed = try await rig.runAwaiting(["restore", "--archive", other], failpoints: point)
      try #require(killed.wasSignaled && killed.code == SIGKILL, "\(point) never fired: \(killed.stderr)")
      CrashTally.kills.add()
      try await checkContainer(rig, after: point)

      var repairedByText = false
      if point.hasPrefix("restore.between-renames") {
        let text = try await rig.runAwaiting(["status"])
        #expect(text.stdout.contains("repaired put back"), "status says what it repaired: \(text.stdout)")
        repairedByText = true
      }
      let status = try await rig.runAwaiting(["status", "--json"])
      try #require(status.code == 0, "status after a kill at \(point): \(status.stderr)")
      let repaired = try jsonObject(status.stdout)["repaired"] as? [String] ?? []
      #expect(repaired.isEmpty == repairedByText, "status --json repaired \(repaired) after \(point)")
      let after = rig.saveState()
      #expect(after == first || after == second, "the save is a mix after a kill at \(point)")
      if ["restore.swapped", "restore.keep-by-moving", "restore.kept"].contains(where: point.hasPrefix) {
        #expect(after != before, "a kill after the swap keeps the restored save (\(point))")
      } else {
        #expect(after == before, "a kill before the swap keeps the old save (\(point))")
      }
      // The agreement matches what is there: the newest archive's content is in sync, the older
      // one's is a rollback to upload (the journal recorded the restore that the kill cut short).
      let state = try jsonObject(status.stdout)["state"] as? String
      #expect(
        state == (after == second ? "in-sync" : "local-changed"), "state \(state ?? "-") after \(point)")
      #expect(rig.leftovers() == [], "left beside the save after \(point): \(rig.leftovers())")
      try await checkRecoverable(rig, [first, second], after: point)
    }
    CrashTally.kills.report("restore kills on \(kind)")
  }

  @Test("SIGKILL at random moments of backup and restore (seeded)", arguments: CrashRig.Kind.allCases)
  func randomKills(kind: CrashRig.Kind) async throws {
    let seed =
      ProcessInfo.processInfo.environment["SAVEVAULT_KILL_SEED"].flatMap(UInt64.init)
      ?? UInt64(Date().timeIntervalSince1970)
    print("randomKills(\(kind)): seed \(seed) (set SAVEVAULT_KILL_SEED=\(seed) to repeat)")
    var random = SplitMix64(seed: seed)
    let rig = try CrashRig(kind)
    var states: [[String: String]] = []
    try rig.writeState(1)
    states.append(rig.saveState())
    var started = Date()
    // Blocking: its own time, not a wait for a slot or a thread, sets the span of the random kills.
    try #require(try withinWindow { try rig.run(["backup"]) }.code == 0)
    let span = max(50, Int(Date().timeIntervalSince(started) * 1000 * 1.2))
    var killed = 0
    for trial in 0..<8 {
      let isBackup = trial % 2 == 0
      var command = ["backup"]
      if isBackup {
        try rig.writeState(UInt64(100 + trial))
        states.append(rig.saveState())
      } else {
        let archives = try rig.containerArchives()
        command = ["restore", "--archive", archives[Int(random.next() % UInt64(archives.count))]]
      }
      let before = rig.saveState()
      let delay = Int(random.next() % UInt64(span))
      started = Date()
      let (program, wasRunning) = try withinWindow {
        let program = try rig.start(command)
        usleep(UInt32(delay * 1000))
        let wasRunning = !program.hasEnded
        kill(program.pid, SIGKILL)
        return (program, wasRunning)
      }
      let code = await program.waitAwaiting()
      let what = "trial \(trial) (\(command[0]), kill after \(delay) ms, seed \(seed))"
      if wasRunning && code == 128 + SIGKILL {
        killed += 1
        CrashTally.kills.add()
      }
      try await checkContainer(rig, after: what)
      let status = try await rig.runAwaiting(["status", "--json"])
      try #require(status.code == 0, "status after \(what): \(status.stderr)")
      let after = rig.saveState()
      #expect(after == before || states.contains(after), "the save is a mix after \(what)")
      #expect(rig.leftovers() == [], "left beside the save after \(what): \(rig.leftovers())")
      if isBackup {
        #expect(try await rig.runAwaiting(["backup"]).code == 0, "the backup after \(what) failed")
        #expect(rig.containerTemporaries() == [], "temporaries left after \(what)")
      }
      try await checkRecoverable(rig, states, after: what)
    }
    print("randomKills(\(kind)): \(killed) of 8 trials killed mid-command")
    CrashTally.kills.report("random kills on \(kind)")
  }

  /// The container lists only `packsave-*.tar` archives, and every one verifies.
  func checkContainer(_ rig: CrashRig, after point: String) async throws {
    for name in try rig.containerArchives() {
      #expect(ArchiveName.isBackupName(name), "'\(name)' is listed after a kill at \(point)")
    }
    let verify = try await rig.runAwaiting(["verify", "--all"])
    #expect(verify.code == 0, "verify --all after a kill at \(point): \(verify.stdout) \(verify.stderr)")
  }

  /// Every state in `states` is in the container or among the pre-restore copies.
  func checkRecoverable(_ rig: CrashRig, _ states: [[String: String]], after point: String) async throws {
    let recoverable = try await rig.recoverableStates()
    for (index, state) in states.enumerated() where !recoverable.contains(state) {
      Issue.record("state #\(index) can no longer be got back after \(point)")
    }
  }
}
