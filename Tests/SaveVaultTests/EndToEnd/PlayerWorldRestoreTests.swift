import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// The player's world around restores, backups in a conflict and stray files: each through the
/// built binary.
@Suite("The player's world: restores, conflicts and strays", .tags(.large))
struct PlayerWorldRestoreTests {
  @Test("with no room for the pre-restore copy, restore refuses before swapping and says where")
  func noRoomForTheCopy() async throws {
    let disk = try await DiskFullTests.SmallDisk(2, label: "no-room")
    let world = try Sandbox.world("no-room")
    let save = world.path("saves/Game")
    try writeFile(save + "/slot.sav", Data(repeating: 0x5a, count: 600 << 10))
    try await world.on("deck").ok(["backup", "--save-dir", save])
    try writeFile(save + "/slot.sav", Data(repeating: 0x7b, count: 600 << 10))
    let before = tree(save)
    // The save is on another filesystem than $XDG_DATA_HOME, which is full.
    let data = ["XDG_DATA_HOME": disk.path + "/data"]
    try makeDirectory(disk.path + "/data")
    disk.fill()
    let restore = try await world.on("deck").runAwaiting(
      ["restore", "--save-dir", save, "--latest"], environment: data)
    #expect(restore.code == 1, "exit \(restore.code): \(restore.stderr)")
    #expect(restore.stderr.contains("nothing was restored"), "\(restore.stderr)")
    #expect(!restore.stderr.contains("container '\(disk.path)"), "SaveVault's own folder called a container")
    #expect(tree(save) == before, "the save changed")
    let beside = try FileManager.default.contentsOfDirectory(atPath: world.path("saves"))
    #expect(beside == ["Game"], "left beside the save: \(beside)")
  }

  @Test("symlinks leading outside and FIFOs stay in the save through a restore and its undo")
  func outsideLinksSurvive() async throws {
    let world = try Sandbox.world("outside-links")
    let save = world.path("saves/Game")
    try writeFile(save + "/slot.sav", "v1")
    try writeFile(world.path("Documents/notes.txt"), "outside")
    try FileManager.default.createSymbolicLink(
      atPath: save + "/Documents", withDestinationPath: world.path("Documents"))
    try FileManager.default.createSymbolicLink(atPath: save + "/up", withDestinationPath: "../../Documents")
    try #require(mkfifo(save + "/pipe", 0o600) == 0)
    try #require(mkfifo(save + "/shared.pipe", 0o666) == 0 && chmod(save + "/shared.pipe", 0o666) == 0)
    try await world.on("deck").ok(["backup", "--save-dir", save])
    try writeFile(save + "/slot.sav", "v2")
    func expectKept(_ moment: String) {
      #expect(
        (try? FileManager.default.destinationOfSymbolicLink(atPath: save + "/Documents"))
          == world.path("Documents"),
        "the absolute link is gone \(moment)")
      #expect(
        (try? FileManager.default.destinationOfSymbolicLink(atPath: save + "/up")) == "../../Documents",
        "the relative link is gone \(moment)")
      var info = stat()
      #expect(
        lstat(save + "/pipe", &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the FIFO is gone \(moment)")
      #expect(
        lstat(save + "/shared.pipe", &info) == 0 && info.st_mode & 0o777 == 0o666,
        "a FIFO's mode changed \(moment)")
    }
    let restore = try await world.on("deck").ok(["restore", "--save-dir", save, "--latest"])
    #expect(text(save + "/slot.sav") == "v1")
    expectKept("after the restore")
    #expect(!restore.stderr.contains(".savevault-kept"), "\(restore.stderr)")
    let beside = try FileManager.default.contentsOfDirectory(atPath: world.path("saves"))
    #expect(beside == ["Game"], "kept beside the save: \(beside)")
    try await world.on("deck").ok(["restore", "--save-dir", save, "--undo"])
    #expect(text(save + "/slot.sav") == "v2")
    expectKept("after the undo")
    #expect(text(world.path("Documents/notes.txt")) == "outside", "the link's target was touched")
  }

  @Test("backup in a conflict asks (nobody here: exit 3, nothing uploaded); --force says what it went over")
  func backupInConflict() async throws {
    let world = try Sandbox.world("backup-conflict")
    let deck = world.path("deck/Game")
    let pc = world.path("pc/Game")
    try writeFile(pc + "/slot.sav", "pc v1")
    try await world.on("pc").ok(["backup", "--save-dir", pc])
    try await world.on("deck").ok(["sync", "--save-dir", deck])
    try writeFile(pc + "/slot.sav", "pc v2")
    try await world.on("pc").ok(["backup", "--save-dir", pc])
    try writeFile(deck + "/slot.sav", "deck v2")
    let before = world.archives("Game")
    let asked = try await world.on("deck").runAwaiting(["backup", "--save-dir", deck])
    #expect(asked.code == 3, "exit \(asked.code): \(asked.stdout) \(asked.stderr)")
    #expect(asked.stderr.contains("-pc.tar") && asked.stderr.contains("--force"), "\(asked.stderr)")
    #expect(world.archives("Game") == before)
    let forced = try jsonObject(
      try await world.on("deck").ok(["backup", "--save-dir", deck, "--force", "--json"]).stdout)
    let overrode = try #require(forced["overrodeArchive"] as? String, "\(forced)")
    #expect(overrode.hasSuffix("-pc.tar"))
    #expect(forced["newerCloudArchive"] == nil, "our upload is the latest now: \(forced)")
    #expect(world.archives("Game").count == before.count + 1)
  }

  @Test("a stray packsave- file with no time or device is never latest, never pruned, still restorable")
  func strayArchiveName() async throws {
    let world = try Sandbox.world("stray")
    let save = world.path("saves/Game")
    try writeFile(save + "/slot.sav", "real")
    try await world.on("deck").ok(["backup", "--save-dir", save])
    // A plain tar someone copied in by hand, newer on disk than every archive.
    let stray = world.cloud + "/Game/packsave-garbage.tar"
    try writeFile(world.path("stray/slot.sav"), "stray")
    let tar = try await runProgramAwaiting(
      try #require(which("tar")), ["-cf", stray, "-C", world.path("stray"), "slot.sav"])
    try #require(tar.code == 0, "\(tar.stderr)")
    setModified(stray, ns: 4_102_444_800_000_000_000)  // 2100
    let status = try await world.on("deck").status(["--save-dir", save])
    #expect(status["state"] as? String == "in-sync", "\(status)")
    #expect((lookup(status, "cloud.latest") as? String)?.hasSuffix("-deck.tar") == true)
    let list = try jsonObject(try await world.on("deck").ok(["list", "--save-dir", save, "--json"]).stdout)
    #expect((list["unrecognized"] as? [[String: Any]])?.first?["name"] as? String == "packsave-garbage.tar")
    #expect((list["archives"] as? [[String: Any]])?.count == 1)
    try writeFile(save + "/slot.sav", "real, later")
    try await world.on("deck").ok(["backup", "--save-dir", save])
    try await world.on("deck").ok(["prune", "--save-dir", save, "--keep", "1"])
    #expect(FileManager.default.fileExists(atPath: stray), "prune deleted the stray file")
    #expect(world.archives("Game").filter { $0 != "packsave-garbage.tar" }.count == 1)
    try await world.on("deck").ok(["restore", "--save-dir", save, "--archive", "packsave-garbage.tar"])
    #expect(text(save + "/slot.sav") == "stray")
  }

  @Test("a save folder that is a mount point: add refuses it, restore refuses before anything changes")
  func mountPointSave() async throws {
    let disk = try await DiskFullTests.SmallDisk(4, label: "mounted-save")
    let world = try Sandbox.world("mounted-save")
    let save = disk.path
    try writeFile(save + "/slot.sav", "v1")
    try await world.on("deck").ok(["backup", "--save-dir", save, "--game", "Game"])
    try writeFile(save + "/slot.sav", "v2")
    let add = try await world.on("deck").runAwaiting(["add", "Game", "--save-dir", save])
    #expect(add.code == 2 && add.stderr.contains("mount point"), "exit \(add.code): \(add.stderr)")
    let restore = try await world.on("deck").runAwaiting([
      "restore", "--save-dir", save, "--game", "Game", "--latest",
    ])
    #expect(
      restore.code == 1 && restore.stderr.contains("mount point"), "exit \(restore.code): \(restore.stderr)")
    #expect(text(save + "/slot.sav") == "v2")
    let names = try FileManager.default.contentsOfDirectory(atPath: disk.dir.path).sorted()
    #expect(names == ["disk"], "left beside the save: \(names)")
  }

  @Test(
    "pre-restore copies: list --pre-restore shows them; prune --keep-pre-restore thins them, never the newest"
  )
  func preRestoreCopies() async throws {
    let world = try Sandbox.world("pre-restore-list")
    let save = world.path("saves/Game")
    try writeFile(save + "/slot.sav", "v0")
    try await world.on("deck").ok(["backup", "--save-dir", save])
    for version in 1...3 {
      try writeFile(save + "/slot.sav", "v\(version)")
      try await world.on("deck").ok(["restore", "--save-dir", save, "--latest"])
    }
    let listed = try jsonObject(
      try await world.on("deck").ok(["list", "--pre-restore", "--save-dir", save, "--json"]).stdout)
    let copies = try #require(listed["copies"] as? [[String: Any]], "\(listed)")
    #expect(copies.count == 3)
    #expect(copies.first?["isUndo"] as? Bool == true)
    let text = try await world.on("deck").ok(["list", "--pre-restore", "--save-dir", save]).stdout
    #expect(text.contains("restore --undo puts this back"), "\(text)")
    #expect(
      try await world.on("deck").runAwaiting(["prune", "--save-dir", save, "--keep-pre-restore", "0"]).code
        == 2)
    let pruned = try jsonObject(
      try await world.on("deck").ok(["prune", "--save-dir", save, "--keep-pre-restore", "1", "--json"]).stdout
    )
    #expect((pruned["preRestoreDeleted"] as? [String])?.count == 2, "\(pruned)")
    #expect(world.archives("Game").count == 1, "the container was not asked to be pruned")
    let after = try jsonObject(
      try await world.on("deck").ok(["list", "--pre-restore", "--save-dir", save, "--json"]).stdout)
    #expect(
      (after["copies"] as? [[String: Any]])?.first?["name"] as? String == copies.first?["name"] as? String)
    try await world.on("deck").ok(["restore", "--save-dir", save, "--undo"])
    #expect(FileManager.default.contents(atPath: save + "/slot.sav") == Data("v3".utf8))
  }
}

@Suite("The kernel's mount table, read as bytes", .tags(.medium))
struct MountTableTests {
  @Test("each line's fifth field, with octal escapes undone and other backslashes kept")
  func mountPoints() {
    let table = """
      22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda1 rw
      61 22 179:1 / /run/media/deck/SD\\040Card rw,nosuid shared:33 - ext4 /dev/mmcblk0p1 rw
      62 22 0:50 / /mnt/odd\\name\\1 rw - tmpfs tmpfs rw
      63 22 0:51 / /mnt/\\303\\251t\\303\\251 rw - tmpfs tmpfs rw
      """
    #expect(
      Platform.mountPoints(inTable: Data(table.utf8))
        == ["/", "/run/media/deck/SD Card", "/mnt/odd\\name\\1", "/mnt/été"])
  }
}
