import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// SIGTERM (a launcher quitting), SIGHUP (a closed terminal) and SIGINT during backup and
/// restore, through the built binary: what was under way is undone (temporaries, staging,
/// multipart uploads), the save directory is untouched, and the exit code is 128 + N.
@Suite("Signals: SIGTERM, SIGHUP and SIGINT clean up and exit 128+N", .tags(.large))
struct SignalTests {
  struct Case: CustomStringConvertible, Sendable {
    var kind: CrashRig.Kind
    var failpoint: String
    var signal: Int32
    var description: String { "\(kind): \(failpoint)" }
  }

  static let backupCases: [Case] =
    [
      Case(kind: .folder, failpoint: "progress.packing=signal:15@2", signal: SIGTERM),
      Case(kind: .folder, failpoint: "progress.packing=signal:2@1", signal: SIGINT),
      Case(kind: .folder, failpoint: "backup.packed=signal:1", signal: SIGHUP),
      Case(kind: .s3, failpoint: "progress.packing=signal:1@3", signal: SIGHUP),
      Case(kind: .s3, failpoint: "s3.staged=signal:15", signal: SIGTERM),
      Case(kind: .s3, failpoint: "progress.uploading=signal:15@1", signal: SIGTERM),
      Case(kind: .s3, failpoint: "s3.part=signal:1@2", signal: SIGHUP),
    ]

  @Test("a signal during backup: nothing stored, nothing left", arguments: backupCases)
  func duringBackup(_ test: Case) async throws {
    let rig = try CrashRig(test.kind)
    try await rig.backUp(1)
    try rig.writeState(2)
    let before = (rig.saveState(), try rig.containerArchives())
    let result = try await rig.runAwaiting(["backup"], failpoints: test.failpoint)
    CrashTally.signals.add()
    #expect(result.code == 128 + test.signal, "exit \(result.code): \(result.stderr)")
    #expect(result.stderr.contains("stopped by"), "stderr: \(result.stderr)")
    #expect(rig.saveState() == before.0)
    #expect(try rig.containerArchives() == before.1, "an interrupted backup stored an archive")
    #expect(rig.containerTemporaries() == [], "an interrupted backup left a temporary")
    #expect(try rig.openMultipartUploads() == [], "an interrupted backup left a multipart upload")
    #expect(try await rig.runAwaiting(["backup"]).code == 0)
  }

  static let restoreCases: [Case] = [
    Case(kind: .folder, failpoint: "progress.extracting=signal:15@2", signal: SIGTERM),
    Case(kind: .folder, failpoint: "restore.extracted=signal:1", signal: SIGHUP),
    Case(kind: .s3, failpoint: "progress.downloading=signal:15@1", signal: SIGTERM),
    Case(kind: .s3, failpoint: "progress.extracting=signal:2@1", signal: SIGINT),
  ]

  @Test("a signal during restore before the swap: the save untouched, no staging", arguments: restoreCases)
  func duringRestore(_ test: Case) async throws {
    let rig = try CrashRig(test.kind)
    let first = try await rig.backUp(1)
    try await rig.backUp(2)
    let before = rig.saveState()
    let result = try await rig.runAwaiting(["restore", "--archive", first], failpoints: test.failpoint)
    CrashTally.signals.add()
    #expect(result.code == 128 + test.signal, "exit \(result.code): \(result.stderr)")
    #expect(rig.saveState() == before)
    #expect(rig.leftovers() == [], "left beside the save: \(rig.leftovers())")
    #expect(!FileManager.default.fileExists(atPath: rig.preRestoreFolder), "a pre-restore copy of nothing")
  }

  @Test("a signal after the swap: the restore finishes, then exits 128+N")
  func afterSwap() async throws {
    let rig = try CrashRig(.folder)
    let archive = try await rig.backUp(1)
    let first = rig.saveState()
    try await rig.backUp(2)
    let second = rig.saveState()
    let result = try await rig.runAwaiting(
      ["restore", "--archive", archive], failpoints: "restore.swapped=signal:15")
    CrashTally.signals.add()
    #expect(result.code == 143, "exit \(result.code): \(result.stderr)")
    #expect(rig.saveState() == first)
    #expect(rig.leftovers() == [])
    #expect(
      try await rig.recoverableStates().filter { $0 == second }.count == 2,
      "v2: its archive and a pre-restore copy"
    )
    // The older archive was restored on purpose: a rollback, which the next sync uploads.
    let status = try jsonObject(try await rig.runAwaiting(["status", "--json"]).stdout)
    #expect(status["state"] as? String == "local-changed")
    #expect((status["repaired"] as? [Any])?.isEmpty == true)
  }

  @Test("a signal before the swap: 'the restore did not happen; the save is as it was'")
  func restoreStoppedBefore() async throws {
    let rig = try CrashRig(.folder)
    let first = try await rig.backUp(1)
    try await rig.backUp(2)
    let before = rig.saveState()
    let result = try await rig.runAwaiting(
      ["restore", "--archive", first], failpoints: "progress.extracting=signal:2@1")
    #expect(result.code == 130, "exit \(result.code): \(result.stderr)")
    #expect(
      result.stderr.contains("stopped by SIGINT: the restore did not happen; the save is as it was"),
      "\(result.stderr)")
    #expect(rig.saveState() == before)
  }

  @Test("a signal after the swap: 'the restore had finished'")
  func restoreStoppedAfter() async throws {
    let rig = try CrashRig(.folder)
    let first = try await rig.backUp(1)
    let restoredState = rig.saveState()
    try await rig.backUp(2)
    let result = try await rig.runAwaiting(
      ["restore", "--archive", first], failpoints: "restore.swapped=signal:2")
    #expect(result.code == 130, "exit \(result.code): \(result.stderr)")
    #expect(result.stderr.contains("stopped by SIGINT after the restore had finished"), "\(result.stderr)")
    #expect(rig.saveState() == restoredState)
  }

  @Test("a signal passed on to wrap's game is never taken as savevault's own, whichever handler runs first")
  func passedOnSignalsArePaired() {
    let late = Interruption()
    late.forwarding { late.passedOn(SIGTERM) }  // the game's handler ran; the game ended
    #expect(!late.record(SIGTERM), "the second handler of the game's signal ran late")
    #expect(late.signal == nil)
    #expect(late.record(SIGTERM), "a new SIGTERM after the game is savevault's")
    #expect(late.signal == SIGTERM)

    let early = Interruption()
    early.forwarding {
      #expect(!early.record(SIGHUP))  // this side first
      early.passedOn(SIGHUP)
    }
    #expect(early.record(SIGHUP) && early.signal == SIGHUP)

    let unpaired = Interruption()
    unpaired.forwarding { #expect(!unpaired.record(SIGINT)) }  // the game ended before passing it on
    #expect(unpaired.record(SIGINT))
  }

  @Test("kill -TERM from outside during backup, kill -HUP during restore (signals not blocked)")
  func realSignals() async throws {
    let rig = try CrashRig(.folder)
    let first = try await rig.backUp(1)
    try rig.writeState(2)
    let archives = try rig.containerArchives()

    let backup = try rig.start(["backup"], failpoints: "progress.packing=pause:30000@2")
    withinWindow {
      #expect(eventually { !rig.containerTemporaries().isEmpty }, "the backup never started writing")
      kill(backup.pid, SIGTERM)
    }
    #expect(await backup.waitAwaiting() == 143, "stderr: \(backup.stderr)")
    #expect(rig.containerTemporaries() == [])
    #expect(try rig.containerArchives() == archives)
    CrashTally.signals.add()

    try #require(try await rig.runAwaiting(["backup"]).code == 0)
    let before = rig.saveState()
    let restore = try rig.start(
      ["restore", "--archive", first], failpoints: "progress.extracting=pause:30000@1")
    withinWindow {
      #expect(eventually { !rig.leftovers().isEmpty }, "the restore never started extracting")
      kill(restore.pid, SIGHUP)
    }
    #expect(await restore.waitAwaiting() == 129, "stderr: \(restore.stderr)")
    #expect(rig.saveState() == before)
    #expect(rig.leftovers() == [])
    CrashTally.signals.add()
  }

  @Test("no checkpoint within 2 s: exit 128+N anyway; the next run removes what was left")
  func stalledCommandStillExits() async throws {
    let rig = try CrashRig(.folder)
    try rig.writeState(1)
    let backup = try rig.start(["backup"], failpoints: "progress.packing=sleep:8000@1")
    withinWindow {
      #expect(eventually { !rig.containerTemporaries().isEmpty }, "the backup never started writing")
      kill(backup.pid, SIGTERM)
    }
    #expect(await backup.waitAwaiting() == 143, "stderr: \(backup.stderr)")
    #expect(backup.stderr.contains("next run"), "stderr: \(backup.stderr)")
    #expect(try rig.containerArchives() == [])
    CrashTally.signals.add()
    #expect(try await rig.runAwaiting(["backup"]).code == 0)
    #expect(rig.containerTemporaries() == [], "the next backup removes the stalled run's temporary")
    #expect(try rig.containerArchives().count == 1)
  }

  @Test("SIGTERM during wrap's sync before the game: the game is not started, exit 143")
  func wrapStoppedBeforeTheGame() async throws {
    let rig = try CrashRig(.folder)
    try rig.writeState(1)
    let marker = rig.dir.sub("game-ran")
    let program = try SpawnedProgram(
      savevaultBinary, ["wrap"] + rig.target + ["--", "/bin/sh", "-c", "touch \"$0\"", marker],
      environment: rig.environment(failpoints: "progress.packing=pause:30000@2"), output: rig.dir.sub("wrap"))
    withinWindow {
      #expect(eventually { !rig.containerTemporaries().isEmpty }, "wrap's sync never started uploading")
      kill(program.pid, SIGTERM)
    }
    #expect(await program.waitAwaiting() == 143, "stderr: \(program.stderr)")
    #expect(!FileManager.default.fileExists(atPath: marker), "the game started after SIGTERM")
    #expect(rig.containerTemporaries() == [])
    #expect(try rig.containerArchives() == [])
    CrashTally.signals.add()
    CrashTally.signals.report("signal tests")
  }
}
