import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// A full disk on either side, on a real small tmpfs: restore fails cleanly with the save
/// directory untouched and no staging left; a backup into a full folder container leaves
/// nothing visible there, is not retried, and deletes nothing.
@Suite("Disk full: ENOSPC fails cleanly, is never retried, never answered by deleting", .tags(.large))
struct DiskFullTests {
  /// A tmpfs of `megabytes` MiB mounted on a new folder, unmounted when the value goes.
  final class SmallDisk {
    /// The test's folder, which holds the mount point `disk` (and whatever else the test needs).
    let dir: TemporaryDirectory
    let path: String

    init(_ megabytes: Int, label: String) async throws {
      dir = TemporaryDirectory(label)
      try #require(
        getuid() == 0,
        "these tests mount a small tmpfs to fill it, which needs root (they run as root in CI); run the suite as root"
      )
      path = dir.sub("disk")
      try makeDirectory(path)
      let mount = try await runProgramAwaiting(
        "/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path])
      try #require(mount.code == 0, "mount -t tmpfs failed: \(mount.stderr)")
    }

    /// Fills the disk to the last byte; returns the filler's path.
    @discardableResult
    func fill() -> String {
      let filler = path + "/filler"
      let fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
      let chunk = [UInt8](repeating: 0xee, count: 64 << 10)
      var size = chunk.count
      while size > 0 {
        let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress, size) }
        if written < 0 { size /= 2 }  // ENOSPC: try smaller pieces down to the last byte
      }
      close(fd)
      return filler
    }

    deinit {
      if (try? runProgram("/bin/umount", [path]))?.code != 0 {
        _ = try? runProgram("/bin/umount", ["-l", path])
      }
    }
  }

  /// The device "deck" with a private HOME under `dir`.
  func deck(_ dir: TemporaryDirectory) throws -> Sandbox { try Sandbox(in: dir, device: "deck") }

  /// A container holding a 3 MiB archive of game "quest", made from a save outside the disk.
  func bigArchive(_ dir: TemporaryDirectory) async throws -> String {
    let rig = try CrashRig(.folder)
    try rig.writeState(7)
    try makeDirectory(dir.sub("cloud"))
    let made = try await deck(dir).runAwaiting(
      ["backup", "--json", "--save-dir", rig.save, "--container", dir.sub("cloud")],
      environment: ["HOME": rig.home])
    try #require(made.code == 0, "backup: \(made.stderr)")
    return try #require(try jsonObject(made.stdout)["archive"] as? String)
  }

  /// Restores a 3 MiB archive over a small save on a tmpfs of `megabytes` MiB, with
  /// `failpoints`; returns the running restore, the disk, the save and its content before.
  func restoreOntoSmallDisk(_ megabytes: Int, failpoints: String = "") async throws
    -> (SpawnedProgram, SmallDisk, String, [String: String])
  {
    let disk = try await SmallDisk(megabytes, label: "diskfull-restore")
    let dir = disk.dir
    let archive = try await bigArchive(dir)
    let save = disk.path + "/saves/quest"
    try writeFile(save + "/slot.sav", "the small save on the small disk")
    let before = digestTree(save)
    let restore = try SpawnedProgram(
      savevaultBinary,
      ["restore", "--archive", archive, "--save-dir", save, "--container", dir.sub("cloud")],
      environment: try deck(dir).environment(["SAVEVAULT_FAILPOINTS": failpoints]), output: dir.sub("restore")
    )
    return (restore, disk, save, before)
  }

  @Test("restore onto a disk without room for the archive: exit 1, says so, nothing touched")
  func restoreTooBigForTheDisk() async throws {
    let (restore, disk, save, before) = try await restoreOntoSmallDisk(2)  // a 3 MiB archive
    let code = await restore.waitAwaiting()
    CrashTally.faults.add()
    #expect(code == 1, "exit \(code): \(restore.stderr)")
    #expect(restore.stderr.contains("nothing was restored"), "stderr: \(restore.stderr)")
    #expect(digestTree(save) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path + "/saves") == ["quest"])
  }

  @Test("the disk fills up during extraction: exit 1, says so, the save untouched, no staging")
  func diskFillsDuringExtraction() async throws {
    let (restore, disk, save, before) = try await restoreOntoSmallDisk(
      24, failpoints: "progress.extracting=sleep:5000@1")
    // Within the restore's 5 s pause at its first extraction point: the disk filled.
    let filler = withinWindow {
      let staged = eventually {
        ((try? FileManager.default.contentsOfDirectory(atPath: disk.path + "/saves")) ?? []).count > 1
      }
      #expect(staged, "the restore never started extracting")
      return disk.fill()
    }
    let code = await restore.waitAwaiting()
    CrashTally.faults.add()
    #expect(code == 1, "exit \(code): \(restore.stderr)")
    #expect(restore.stderr.contains("no space"), "stderr: \(restore.stderr)")
    unlink(filler)
    #expect(digestTree(save) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path + "/saves") == ["quest"])
  }

  @Test("a full folder container: exit 4, nothing visible, no retry, no deletion")
  func backupIntoFullContainer() async throws {
    let disk = try await SmallDisk(2, label: "diskfull-backup")
    let dir = disk.dir
    let cloud = disk.path
    let save = dir.sub("saves/quest")
    try writeFile(save + "/slot.sav", "small")
    let first = try await deck(dir).runAwaiting(["backup", "--save-dir", save, "--container", cloud])
    try #require(first.code == 0, "backup: \(first.stderr)")
    let before = try FileManager.default.contentsOfDirectory(atPath: cloud + "/quest")

    let rig = try CrashRig(.folder)
    try rig.writeState(3)
    try FileManager.default.removeItem(atPath: save)
    try FileManager.default.copyItem(atPath: rig.save, toPath: save)
    let full = try await deck(dir).runAwaiting(["backup", "--save-dir", save, "--container", cloud])
    CrashTally.faults.add()
    #expect(full.code == 4, "exit \(full.code): \(full.stderr)")
    #expect(full.stderr.contains("full"), "stderr: \(full.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: cloud + "/quest") == before)

    // The same in-process, counting the container's calls.
    let vault = try Vault(
      context: testContext(home: dir.sub("home"), environment: ["SAVEVAULT_DEVICE": "deck"]))
    let target = try vault.resolve(TargetRequest(game: "quest", saveDirectory: save, containerURL: cloud))
    let counted = FaultyContainer(FolderContainer(root: cloud), fault: .stall(milliseconds: 0), on: .probe)
    var counting = vault
    counting.makeContainer = { _, _ in counted }
    #expect(throws: ContainerError.noSpace(container: cloud)) { try counting.backup(target, force: false) }
    #expect(counted.calls(.upload) == 1, "a full container was retried")
    #expect(counted.calls(.delete) == 0, "a full container was answered by deleting")
    #expect(try FileManager.default.contentsOfDirectory(atPath: cloud + "/quest") == before)
    #expect(ExitStatus(for: ContainerError.noSpace(container: cloud)).code == 4)
  }
}
