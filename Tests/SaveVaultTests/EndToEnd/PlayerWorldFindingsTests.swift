import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// What a pass over the binary with only the README in hand found: each through the binary.
@Suite("The player's world: a tester's findings", .tags(.large))
struct PlayerWorldFindingsTests {
  @Test("an SD card unmounted again, over a folder a game left there: asked about, never uploaded")
  func staleFolderUnderTheMountPoint() async throws {
    try #require(getuid() == 0, "bind mounts need root (CI runs as root)")
    let card = try await DiskFullTests.SmallDisk(8, label: "sd-card")
    let world = try Sandbox.world("stale-mount")
    let mount = world.path("run/media/sd")
    let save = mount + "/Saves"
    try makeDirectory(mount)
    func plugIn() async throws {
      try #require(try await runProgramAwaiting("/bin/mount", ["--bind", card.path, mount]).code == 0)
    }
    func unplug() async throws {
      try #require(try await runProgramAwaiting("/bin/umount", [mount]).code == 0)
    }
    try await plugIn()
    defer { unmountLazily(mount) }
    try writeFile(save + "/slot.sav", "100 hours")
    try await world.on("deck").ok(["backup", "--save-dir", save])
    try await world.on("pc").ok(["sync", "--save-dir", world.path("pc/Saves")])
    // Unmounted at launch: the game starts a new save on the internal drive.
    try await unplug()
    try await world.on("deck").ok(
      [
        "wrap", "--save-dir", save, "--", "/bin/sh", "-c",
        "mkdir -p '\(save)' && echo new > '\(save)/slot.sav'",
      ])
    // Mounted again: the real save is back and plays on.
    try await plugIn()
    #expect(try await world.on("deck").state(["--save-dir", save]) == "in-sync")
    try await world.on("deck").ok(["sync", "--save-dir", save])
    try writeFile(save + "/slot.sav", "101 hours")
    try await world.on("deck").ok(["sync", "--save-dir", save])
    let before = world.archives("Saves")
    // Unmounted again: the folder the game left is there, on another drive.
    try await unplug()
    #expect(text(save + "/slot.sav") == "new\n")
    let wrap = try await world.on("deck").runAwaiting(
      ["wrap", "--save-dir", save, "--on-conflict", "upload", "--", "/bin/true"])
    #expect(wrap.code == 0, "\(wrap.stderr)")
    #expect(world.archives("Saves") == before, "the left-behind folder was uploaded: \(wrap.stderr)")
    let status = try await world.on("deck").status(["--save-dir", save])
    #expect(status["conflictKind"] as? String == "other-drive", "\(status)")
    let restore = try await world.on("deck").runAwaiting(["restore", "--save-dir", save, "--latest"])
    #expect(
      restore.code == 1 && restore.stderr.contains("mounted"), "exit \(restore.code): \(restore.stderr)")
    #expect(text(save + "/slot.sav") == "new\n", "restored onto the internal drive")
    try await plugIn()
    try await world.on("pc").ok(["sync", "--save-dir", world.path("pc/Saves")])
    #expect(text(world.path("pc/Saves/slot.sav")) == "101 hours")
  }

  @Test(
    "save folders used with --save-dir alone are games too: nesting, sharing and containers inside are refused"
  )
  func adHocGamesOverlap() async throws {
    let world = try Sandbox.world("ad-hoc")
    let outer = world.path("saves/outer")
    try writeFile(outer + "/inner/slot.sav", "inner")
    try writeFile(outer + "/slot.sav", "outer")
    try await world.on("deck").ok(["backup", "--save-dir", outer])
    let inner = try await world.on("deck").runAwaiting(["backup", "--save-dir", outer + "/inner"])
    #expect(inner.code == 2 && inner.stderr.contains(outer), "exit \(inner.code): \(inner.stderr)")
    let renamed = try await world.on("deck").runAwaiting(["backup", "--save-dir", outer, "--game", "other"])
    #expect(renamed.code == 2, "one folder under two names: exit \(renamed.code)")
    // Another game's container inside this save, and this container inside another's save.
    try writeFile(world.path("saves/b/slot.sav"), "b")
    let inside = try await world.on("deck").runAwaiting(
      ["backup", "--save-dir", world.path("saves/b"), "--container", outer + "/cloud"])
    #expect(inside.code == 2 && inside.stderr.contains(outer), "exit \(inside.code): \(inside.stderr)")
    try await world.on("deck").ok(["add", "A", "--save-dir", world.path("a")])
    let add = try await world.on("deck").runAwaiting(
      ["add", "B", "--save-dir", world.path("b2"), "--container", world.path("a/cloud")])
    #expect(add.code == 2 && add.stderr.contains("'A'"), "exit \(add.code): \(add.stderr)")
    #expect(world.archives("inner").isEmpty && world.archives("other").isEmpty && world.archives("b").isEmpty)
  }

  @Test("a name with backups from another folder is not added over them without --replace")
  func addNameBoundElsewhere() async throws {
    let world = try Sandbox.world("add-bound")
    try writeFile(world.path("A/Saves/slot.sav"), "A")
    try await world.on("deck").ok(["backup", "--save-dir", world.path("A/Saves")])
    let add = try await world.on("deck").runAwaiting(["add", "Saves", "--save-dir", world.path("B/Saves")])
    #expect(add.code == 2 && add.stderr.contains(world.path("A/Saves")), "exit \(add.code): \(add.stderr)")
    try await world.on("deck").ok(["add", "Saves", "--save-dir", world.path("B/Saves"), "--replace"])
  }

  @Test("two device names that reduce alike stay two devices: prune keeps the newest of each")
  func deviceNamesThatReduceAlike() async throws {
    let world = try Sandbox.world("device-names")
    try writeFile(world.path("a/Game/slot.sav"), "a")
    try writeFile(world.path("b/Game/slot.sav"), "b")
    try await world.on("デッキ").ok(["backup", "--save-dir", world.path("a/Game")])
    try await world.on("パソコ").ok(["backup", "--save-dir", world.path("b/Game"), "--force"])
    let pruned = try jsonObject(
      try await world.on("パソコ").ok(["prune", "--save-dir", world.path("b/Game"), "--keep", "1", "--json"])
        .stdout)
    #expect((pruned["deleted"] as? [String]) == [], "\(pruned)")
    #expect(world.archives("Game").count == 2)
  }

  @Test("a damaged latest archive does not stop status, sync or backup: it is a conflict, not a refusal")
  func damagedLatestArchive() async throws {
    let world = try Sandbox.world("damaged-latest")
    let save = world.path("saves/Game")
    try writeFile(save + "/slot.sav", "v1")
    try await world.on("deck").ok(["backup", "--save-dir", save])
    let good = world.cloud + "/Game/" + (try #require(world.archives("Game").first))
    let data = try #require(FileManager.default.contents(atPath: good))
    try data.prefix(3000).write(
      to: URL(fileURLWithPath: world.cloud + "/Game/packsave-20991231T235959.000Z-pc.tar"))
    try writeFile(save + "/slot.sav", "v2")
    let status = try await world.on("deck").runAwaiting(["status", "--save-dir", save, "--json"])
    #expect(status.code == 0, "exit \(status.code): \(status.stderr)")
    #expect(try jsonObject(status.stdout)["state"] as? String == "conflict")
    let sync = try await world.on("deck").runAwaiting(["sync", "--save-dir", save, "--on-conflict", "upload"])
    #expect(sync.code == 0, "exit \(sync.code): \(sync.stderr)")
    #expect(world.archives("Game").count == 3)
  }

  @Test("wrap with a broken game entry runs the game unsynced, saying why")
  func wrapNeverBlocksPlay() async throws {
    let world = try Sandbox.world("wrap-config")
    let config = world.on("deck").home + "/.config/savevault/config.json"
    try writeFile(config, #"{"games": {"g1": {"saveDir": "\#(world.path("g1"))", "contianer": "/nas"}}}"#)
    let wrap = try await world.on("deck").runAwaiting(
      ["wrap", "--game", "g1", "--", "/bin/sh", "-c", "echo GAME-RAN; exit 7"])
    #expect(wrap.code == 7, "the game's exit code: \(wrap.code), \(wrap.stderr)")
    #expect(wrap.stdout.contains("GAME-RAN"))
    #expect(wrap.stderr.contains("contianer") && wrap.stderr.contains("without syncing"), "\(wrap.stderr)")
  }

  @Test("a small save restores onto a small disk; one that does not fit says how much is needed and free")
  func restoreOnASmallDisk() async throws {
    let disk = try await DiskFullTests.SmallDisk(16, label: "small-restore")
    let world = try Sandbox.world("small-restore")
    let save = disk.path + "/Game"
    try writeFile(save + "/slot.sav", "abc")
    try await world.on("deck").ok(["backup", "--save-dir", save])
    try writeFile(save + "/slot.sav", "abcd")
    try await world.on("deck").ok(["restore", "--save-dir", save, "--latest"])
    #expect(text(save + "/slot.sav") == "abc")
  }

  @Test("a FIFO or outside link whose name the archive uses comes back with restore --undo")
  func clashingSpecialEntriesComeBack() async throws {
    let world = try Sandbox.world("fifo-clash")
    let save = world.path("saves/Game")
    try writeFile(save + "/pipe", "a file in the archive")
    try await world.on("deck").ok(["backup", "--save-dir", save])
    try FileManager.default.removeItem(atPath: save + "/pipe")
    try #require(mkfifo(save + "/pipe", 0o600) == 0)
    try writeFile(save + "/slot.sav", "local")
    try await world.on("deck").ok(["restore", "--save-dir", save, "--latest"])
    #expect(text(save + "/pipe") == "a file in the archive")
    let listed = try jsonObject(
      try await world.on("deck").ok(["list", "--pre-restore", "--save-dir", save, "--json"]).stdout)
    let undoCopy = (listed["copies"] as? [[String: Any]])?.first { $0["isUndo"] as? Bool == true }
    #expect(undoCopy?["kind"] as? String == "folder", "\(listed)")
    try await world.on("deck").ok(["restore", "--save-dir", save, "--undo"])
    var info = stat()
    #expect(
      lstat(save + "/pipe", &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the FIFO did not come back")
    #expect(text(save + "/slot.sav") == "local")
  }

  @Test("a folder left under an unmounted card, offline too: its pending archive waits, never uploaded")
  func staleFolderOfflinePending() async throws {
    try #require(getuid() == 0, "bind mounts need root (CI runs as root)")
    let card = try await DiskFullTests.SmallDisk(8, label: "sd-offline")
    let world = try Sandbox.world("stale-offline")
    let mount = world.path("run/media/sd")
    let save = mount + "/Saves"
    try makeDirectory(mount)
    try #require(try await runProgramAwaiting("/bin/mount", ["--bind", card.path, mount]).code == 0)
    defer { unmountLazily(mount) }
    try writeFile(save + "/slot.sav", "100 hours")
    try await world.on("deck").ok(["backup", "--save-dir", save])
    try await world.on("pc").ok(["sync", "--save-dir", world.path("pc/Saves")])
    // Unmounted, with a folder a game left there before; the network is gone too.
    try #require(try await runProgramAwaiting("/bin/umount", [mount]).code == 0)
    try writeFile(save + "/slot.sav", "stale")
    try FileManager.default.moveItem(atPath: world.cloud, toPath: world.path("cloud.away"))
    let wrap = try await world.on("deck").runAwaiting(
      ["wrap", "--save-dir", save, "--", "/bin/sh", "-c", "echo played >> '\(save)/slot.sav'"])
    #expect(wrap.code == 0, "\(wrap.stderr)")
    try FileManager.default.moveItem(atPath: world.path("cloud.away"), toPath: world.cloud)
    let before = world.archives("Saves")
    let sync = try await world.on("deck").runAwaiting(["sync", "--save-dir", save, "--on-conflict", "upload"])
    #expect(sync.code == 3, "exit \(sync.code): \(sync.stderr)")
    #expect(world.archives("Saves") == before, "the left-behind folder's pending archive was uploaded")
    try await world.on("pc").ok(["sync", "--save-dir", world.path("pc/Saves")])
    #expect(text(world.path("pc/Saves/slot.sav")) == "100 hours")
    // The card is back, as it was: in sync, and the pending archive is kept aside, not uploaded.
    try #require(try await runProgramAwaiting("/bin/mount", ["--bind", card.path, mount]).code == 0)
    try await world.on("deck").ok(["sync", "--save-dir", save])
    #expect(world.archives("Saves") == before)
    #expect(text(save + "/slot.sav") == "100 hours")
  }

  @Test("a rollback to the archive already agreed on, killed after the swap, still sticks")
  func rollbackKilledAfterSwap() async throws {
    let world = try Sandbox.world("rollback-kill")
    let deck = world.path("deck/Game")
    try writeFile(deck + "/slot.sav", "good")
    try await world.on("deck").ok(["backup", "--save-dir", deck])
    let good = try #require(world.archives("Game").first)
    try writeFile(world.path("pc/Game/slot.sav"), "corrupt")
    try await world.on("pc").ok(["backup", "--save-dir", world.path("pc/Game"), "--force"])
    let killed = try await world.on("deck").runAwaiting(
      ["restore", "--save-dir", deck, "--archive", good],
      environment: ["SAVEVAULT_FAILPOINTS": "restore.kept=kill"])
    #expect(killed.wasSignaled, "the failpoint never fired: \(killed.stderr)")
    #expect(try await world.on("deck").state(["--save-dir", deck]) == "local-changed")
    try await world.on("deck").ok(["sync", "--save-dir", deck])
    #expect(text(deck + "/slot.sav") == "good", "the corrupt save came back")
  }

  @Test("a removed game frees its folder and name: renaming a game works")
  func renameAGame() async throws {
    let world = try Sandbox.world("rename")
    let save = world.path("saves/Hades")
    try writeFile(save + "/slot.sav", "run 12")
    try await world.on("deck").ok(["add", "Hades", "--save-dir", save])
    try await world.on("deck").ok(["backup", "--game", "Hades"])
    #expect(try await world.on("deck").runAwaiting(["add", "Hades II", "--save-dir", save]).code == 2)
    let removed = try await world.on("deck").ok(["remove", "Hades"])
    #expect(removed.stdout.contains("Forgot"), "\(removed.stdout)")
    try await world.on("deck").ok(["add", "Hades II", "--save-dir", save])
    // A game used with --save-dir alone is forgotten the same way.
    try writeFile(world.path("adhoc/Saves/s"), "s")
    try await world.on("deck").ok(["backup", "--save-dir", world.path("adhoc/Saves")])
    #expect(
      try await world.on("deck").runAwaiting([
        "backup", "--save-dir", world.path("adhoc/Saves/inner"), "--force",
      ]).code == 2
    )
    try await world.on("deck").ok(["remove", "Saves"])
    try await world.on("deck").ok(["status", "--save-dir", world.path("adhoc/Saves"), "--game", "Other"])
  }
}
