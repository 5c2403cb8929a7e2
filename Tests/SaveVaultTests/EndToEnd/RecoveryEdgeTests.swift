import Foundation
import Testing

/// Edges where an interruption or another device's clock used to leave the wrong agreement or
/// the wrong undo point behind; each through the binary.
@Suite(
  "Recovery edges: the agreement and the undo point after signals, kills and skewed clocks", .tags(.large))
struct RecoveryEdgeTests {
  @Test("a signal after the upload still records the agreement: the next status is in sync, not a conflict")
  func signalAfterStore() async throws {
    var player = try Sandbox("edge-stored")
    let save = player.dir.sub("saves/game")
    try writeFile(save + "/slot1.sav", "v1")
    let target = ["--save-dir", save, "--container", player.cloud]
    try await player.ok(["backup"] + target)
    try writeFile(save + "/slot1.sav", "v2")
    player.extra = ["SAVEVAULT_FAILPOINTS": "backup.stored=signal:15"]
    let result = try await player.runAwaiting(["backup"] + target)
    #expect(result.code == 143, "exit \(result.code): \(result.stderr)")
    #expect(player.archives("game").count == 2)
    player.extra = [:]
    let status = try jsonObject(try await player.ok(["status", "--json"] + target).stdout)
    #expect(status["state"] as? String == "in-sync", "\(status)")
  }

  @Test("undo works when the restored archive came from a device whose clock is an hour ahead")
  func undoAfterFutureArchive() async throws {
    let devices = try await UndoTests.Devices()
    try await devices.deckUploads("deck v2")
    // The deck's clock is an hour ahead: its archive's name says so.
    let folder = devices.pc.cloud + "/game"
    let deckArchive = try #require(devices.pc.archives("game").first { $0.hasSuffix("-deck.tar") })
    let later = Date().addingTimeInterval(3600)
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"
    let future = "packsave-\(formatter.string(from: later))-deck.tar"
    try FileManager.default.moveItem(atPath: folder + "/" + deckArchive, toPath: folder + "/" + future)

    try writeFile(devices.save + "/slot1.sav", "pc local")
    let local = tree(devices.save)
    try await devices.pc.ok(["restore", "--latest"] + devices.target)
    #expect(tree(devices.save)["slot1.sav"]?.content == Data("deck v2".utf8))
    try await devices.pc.ok(["restore", "--undo"] + devices.target)
    #expect(tree(devices.save) == local)
  }

  @Test("a restore killed after keeping the replaced save: recovery leaves undo pointing at that save")
  func killAfterKept() async throws {
    let devices = try await UndoTests.Devices()
    try await devices.deckUploads("deck v2")
    try writeFile(devices.save + "/slot1.sav", "pc first")
    try await devices.pc.ok(["restore", "--latest"] + devices.target)  // keeps "pc first"
    try await devices.deckUploads("deck v3")
    try writeFile(devices.save + "/slot1.sav", "pc second")
    let second = tree(devices.save)
    var killed = devices.pc
    killed.extra = ["SAVEVAULT_FAILPOINTS": "restore.kept=kill"]
    let result = try await killed.runAwaiting(["restore", "--latest"] + devices.target)
    #expect(result.wasSignaled && result.code == SIGKILL, "\(result)")
    try await devices.pc.ok(["status"] + devices.target)  // the next command repairs
    try await devices.pc.ok(["restore", "--undo"] + devices.target)
    #expect(tree(devices.save) == second, "undo put back an older save")
  }

  @Test("a restore killed while removing the replaced folder: recovery makes no second, partial copy")
  func killWhileRemoving() async throws {
    let devices = try await UndoTests.Devices()
    try await devices.deckUploads("deck v2")
    try writeFile(devices.save + "/slot1.sav", "pc local")
    let local = tree(devices.save)
    var killed = devices.pc
    // Moving the folder into the pre-restore folder removes nothing: the packing path.
    killed.extra = ["SAVEVAULT_FAILPOINTS": "restore.removing-replaced=kill;restore.keep-by-moving=error"]
    let result = try await killed.runAwaiting(["restore", "--latest"] + devices.target)
    #expect(result.wasSignaled && result.code == SIGKILL, "\(result)")
    let copies = devices.copies()
    #expect(copies.count == 1)
    try await devices.pc.ok(["status"] + devices.target)  // recovery
    #expect(devices.copies() == copies, "recovery packed the folder being removed as another copy")
    try await devices.pc.ok(["restore", "--undo"] + devices.target)
    #expect(tree(devices.save) == local)
  }

  @Test(
    "an undo killed after its swap is finished by the next run: the undone save stays, and the agreement from before the restore comes back",
    arguments: ["restore.swapped", "restore.kept", "restore.agreed"])
  func undoKilledAfterSwap(point: String) async throws {
    let devices = try await UndoTests.Devices()
    try await devices.deckUploads("deck v2")
    try writeFile(devices.save + "/slot1.sav", "pc local")
    let local = tree(devices.save)
    let before = try await devices.state()
    try await devices.pc.ok(["restore", "--latest"] + devices.target)
    var killed = devices.pc
    killed.extra = ["SAVEVAULT_FAILPOINTS": point + "=kill"]
    let result = try await killed.runAwaiting(["restore", "--undo"] + devices.target)
    #expect(result.wasSignaled && result.code == SIGKILL, "\(result)")
    #expect(tree(devices.save) == local)
    #expect(
      try await devices.state() == before, "the next status does not say what it said before the restore")
    #expect(tree(devices.save) == local)
    let scratch = devices.pc.home + "/.local/share/savevault/undo-scratch"
    #expect(!FileManager.default.fileExists(atPath: scratch), "the killed undo's scratch archive stayed")
  }
}
