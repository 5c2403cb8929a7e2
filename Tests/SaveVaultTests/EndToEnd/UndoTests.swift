import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `restore --undo` through the binary: the save before the last restore comes back byte for
/// byte, the save it replaces is kept, and the agreement returns to what it was.
@Suite("restore --undo", .tags(.large))
struct UndoTests {
  /// This device ("pc") and another ("deck", its own HOME) sharing one folder container.
  struct Devices {
    let pc: Sandbox
    let deck: Sandbox

    init() async throws {
      pc = try Sandbox("undo")
      var deck = try Sandbox("undo-deck")
      deck.device = "deck"
      self.deck = deck
      try writeFile(save + "/slot1.sav", "v1")
      try await pc.ok(["sync"] + target)
    }

    var save: String { pc.dir.sub("saves/game") }
    var deckSave: String { deck.dir.sub("saves/game") }
    var target: [String] { ["--save-dir", save, "--container", pc.cloud] }
    var deckTarget: [String] { ["--save-dir", deckSave, "--container", pc.cloud] }

    /// The deck restores the cloud's save, changes it and uploads it.
    func deckUploads(_ content: String) async throws {
      try await deck.ok(["sync"] + deckTarget)
      try writeFile(deckSave + "/slot1.sav", content)
      try await deck.ok(["sync"] + deckTarget)
    }

    func state() async throws -> String? {
      try jsonObject(try await pc.ok(["status", "--json"] + target).stdout)["state"] as? String
    }

    func copies() -> [String] { pc.archives("game", in: pc.preRestore) }
  }

  @Test("restore then undo gives back the exact tree; a second undo puts the restored save back")
  func roundTrip() async throws {
    let devices = try await Devices()
    let save = devices.save
    // A varied local save, never uploaded: nested folders, an empty one, modes, a symlink.
    try writeFile(save + "/slot1.sav", "local progress ✓", modifiedNs: 1_700_000_000_123_456_789)
    try writeFile(save + "/Slot 2/deep/level.bin", Data((0..<4096).map { UInt8($0 % 251) }))
    try writeFile(save + "/run.sh", "#!/bin/sh\n", mode: 0o755)
    try writeFile(save + "/private.cfg", "k=v", mode: 0o600)
    try makeDirectory(save + "/Empty")
    try FileManager.default.createSymbolicLink(
      atPath: save + "/current", withDestinationPath: "Slot 2/deep/level.bin")
    let local = tree(save)

    let restore = try await devices.pc.ok(["restore", "--latest", "--json"] + devices.target)
    let copy = try #require(try jsonObject(restore.stdout)["preRestoreCopy"] as? String)
    let restored = tree(save)
    #expect(restored != local)
    #expect(restored["slot1.sav"]?.content == Data("v1".utf8))

    let undo = try await devices.pc.ok(["restore", "--undo", "--json"] + devices.target)
    let report = try jsonObject(undo.stdout)
    #expect(report["restoredCopy"] as? String == copy)
    #expect(tree(save) == local, "the undo gives back every byte, mode, time and link")
    let kept = try #require(report["preRestoreCopy"] as? String)
    #expect(kept != copy)
    #expect(devices.copies().count == 2, "the save the undo replaced is kept too")

    let redo = try await devices.pc.ok(["restore", "--undo", "--json"] + devices.target)
    #expect(try jsonObject(redo.stdout)["restoredCopy"] as? String == kept)
    #expect(tree(save) == restored, "a second undo puts back what the restore had brought")
    #expect(devices.copies().count == 3)
    try await devices.pc.ok(["restore", "--undo"] + devices.target)
    #expect(tree(save) == local, "and a third the local save again")
  }

  @Test("took the cloud in a conflict, undo: the conflict is back, and the next sync does not restore")
  func conflictStaysAConflict() async throws {
    let devices = try await Devices()
    try await devices.deckUploads("deck")
    try writeFile(devices.save + "/slot1.sav", "pc local")
    #expect(try await devices.state() == "conflict")
    try await devices.pc.ok(["sync", "--on-conflict", "restore"] + devices.target)
    #expect(try await devices.state() == "in-sync")

    let undo = try await devices.pc.ok(["restore", "--undo", "--json"] + devices.target)
    #expect(try jsonObject(undo.stdout)["agreement"] as? String == "restored")
    #expect(FileManager.default.contents(atPath: devices.save + "/slot1.sav") == Data("pc local".utf8))
    #expect(try await devices.state() == "conflict")
    let sync = try await devices.pc.runAwaiting(["sync", "--on-conflict", "fail"] + devices.target)
    #expect(sync.code == 3)
    #expect(FileManager.default.contents(atPath: devices.save + "/slot1.sav") == Data("pc local".utf8))
  }

  @Test("a restore by mistake over a local change, undo: local-changed again, so sync uploads it")
  func localChangedStays() async throws {
    let devices = try await Devices()
    try writeFile(devices.save + "/slot1.sav", "v2 local")
    #expect(try await devices.state() == "local-changed")
    try await devices.pc.ok(["restore", "--latest"] + devices.target)
    #expect(try await devices.state() == "in-sync")
    try await devices.pc.ok(["restore", "--undo"] + devices.target)
    #expect(try await devices.state() == "local-changed")
    let sync = try jsonObject(try await devices.pc.ok(["sync", "--json"] + devices.target).stdout)
    #expect(sync["action"] as? String == "uploaded")
  }

  @Test("the cloud's newer save restored, undo: a conflict, never restored again unasked")
  func cloudChangedBecomesAQuestion() async throws {
    let devices = try await Devices()
    try await devices.deckUploads("deck")
    #expect(try await devices.state() == "cloud-changed")
    try await devices.pc.ok(["sync"] + devices.target)
    let undo = try jsonObject(
      try await devices.pc.ok(["restore", "--undo", "--json"] + devices.target).stdout)
    #expect(undo["agreement"] as? String == "cleared")
    #expect(undo["agreedArchive"] == nil)
    #expect(FileManager.default.contents(atPath: devices.save + "/slot1.sav") == Data("v1".utf8))
    #expect(try await devices.state() == "conflict")
    #expect(try await devices.pc.runAwaiting(["sync", "--on-conflict", "fail"] + devices.target).code == 3)

    // The second undo is the restore again, with the agreement it had made.
    let redo = try jsonObject(
      try await devices.pc.ok(["restore", "--undo", "--json"] + devices.target).stdout)
    #expect(redo["agreement"] as? String == "restored")
    #expect(try await devices.state() == "in-sync")
  }

  @Test("nothing to undo exits 1 saying so, and changes nothing")
  func nothingToUndo() async throws {
    let devices = try await Devices()
    let before = tree(devices.save)
    let none = try await devices.pc.runAwaiting(["restore", "--undo"] + devices.target)
    #expect(none.code == 1)
    #expect(none.stderr.contains("no pre-restore copy of game; nothing to undo"), "\(none.stderr)")
    #expect(tree(devices.save) == before)

    // A restore into a missing save directory replaced nothing: nothing to put back.
    let fresh = devices.deckSave
    try await devices.deck.ok(["restore", "--latest"] + devices.deckTarget)
    let after = tree(fresh)
    let empty = try await devices.deck.runAwaiting(["restore", "--undo"] + devices.deckTarget)
    #expect(empty.code == 1)
    #expect(empty.stderr.contains("replaced no save") && empty.stderr.contains("nothing to undo"))
    #expect(tree(fresh) == after)
  }

  @Test("with no undo point noted, the newest pre-restore copy comes back and the agreement is forgotten")
  func withoutUndoPoint() async throws {
    let devices = try await Devices()
    try writeFile(devices.save + "/slot1.sav", "local")
    try await devices.pc.ok(["restore", "--latest"] + devices.target)
    try FileManager.default.removeItem(atPath: devices.pc.home + "/.local/state/savevault/undo")
    let undo = try jsonObject(
      try await devices.pc.ok(["restore", "--undo", "--json"] + devices.target).stdout)
    #expect(undo["agreement"] as? String == "cleared")
    #expect(FileManager.default.contents(atPath: devices.save + "/slot1.sav") == Data("local".utf8))
    #expect(
      try await devices.state() == "conflict", "no agreement and different content: asked, never guessed")
  }

  @Test("a restore killed after its swap is undone too: the save it replaced comes back")
  func killedRestore() async throws {
    let devices = try await Devices()
    try writeFile(devices.save + "/slot1.sav", "local, never uploaded")
    var pc = devices.pc  // a copy: the failpoint is only this run's
    pc.extra = ["SAVEVAULT_FAILPOINTS": "restore.swapped=kill"]
    let killed = try await pc.runAwaiting(["restore", "--latest"] + devices.target)
    #expect(killed.wasSignaled && killed.code == SIGKILL, "\(killed)")
    #expect(FileManager.default.contents(atPath: devices.save + "/slot1.sav") == Data("v1".utf8))

    let undo = try await devices.pc.runAwaiting(["restore", "--undo"] + devices.target)
    #expect(undo.code == 0, "\(undo.stderr)")
    #expect(
      FileManager.default.contents(atPath: devices.save + "/slot1.sav") == Data("local, never uploaded".utf8))
    #expect(try await devices.state() == "local-changed")
  }

  @Test(
    "--undo is a usage error with --latest, --archive or no target",
    arguments: [["--undo", "--latest"], ["--undo", "--archive", "x"], ["--undo", "--keep", "1"]])
  func usage(_ flags: [String]) async throws {
    let devices = try await Devices()
    #expect(try await devices.pc.runAwaiting(["restore"] + flags + devices.target).code == 2)
    #expect(try await devices.pc.runAwaiting(["restore", "--undo"]).code == 2)
  }

  @Test("--verbose explains each decision on stderr; without it, and with --quiet, nothing")
  func verbose() async throws {
    let devices = try await Devices()
    try writeFile(devices.save + "/slot1.sav", "v2")
    let status = try await devices.pc.ok(["status", "--verbose"] + devices.target)
    #expect(status.stderr.contains("agreement: on") && status.stderr.contains("state: local-changed"))
    let sync = try await devices.pc.ok(["sync", "-v"] + devices.target)
    #expect(sync.stderr.contains("local-changed: only the local save changed"), "\(sync.stderr)")
    try writeFile(devices.save + "/slot1.sav", "v3")
    let backup = try await devices.pc.ok(["backup", "--verbose"] + devices.target)
    #expect(backup.stderr.contains("uploading: the save changed since"), "\(backup.stderr)")
    let unchanged = try await devices.pc.ok(["backup", "--verbose"] + devices.target)
    #expect(unchanged.stderr.contains("nothing to upload"))
    #expect(try await devices.pc.ok(["status"] + devices.target).stderr.isEmpty)
  }
}
