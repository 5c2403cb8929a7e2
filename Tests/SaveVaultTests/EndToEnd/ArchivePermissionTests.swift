import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Archives in a folder container follow the umask, as `tar` does, so that another local user
/// sharing the folder can read them; SaveVault's own stores on this device stay private.
@Suite("Archive permissions follow the umask, through the binary", .tags(.medium))
struct ArchivePermissionTests {

  /// Runs the binary under `umask`.
  func run(_ box: Sandbox, umask: String, _ arguments: [String]) async throws -> RunResult {
    try await runProgramAwaiting(
      "/bin/sh", ["-c", "umask \(umask); exec \"$0\" \"$@\"", savevaultBinary] + arguments,
      environment: box.environment([:]))
  }

  func mode(_ path: String) -> UInt32? {
    var info = stat()
    return lstat(path, &info) == 0 ? UInt32(info.st_mode) & 0o7777 : nil
  }

  func files(in folder: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted().map { folder + "/" + $0 }
  }

  @Test(
    "a folder container's archives get 0666 less the umask; pending archives stay 0600",
    arguments: [("022", UInt32(0o644)), ("077", UInt32(0o600)), ("002", UInt32(0o664))])
  func followsUmask(umask: String, expected: UInt32) async throws {
    let box = try Sandbox("umask-\(umask)", device: "testbox")
    let save = box.path("saves/shared")
    let cloud = box.path("shared-folder")
    try makeDirectory(cloud)
    try writeFile(save + "/slot.sav", "one")
    let backup = try await run(box, umask: umask, ["backup", "--save-dir", save, "--container", cloud])
    try #require(backup.code == 0, "backup failed: \(backup.stderr)")
    let archives = files(in: cloud + "/shared")
    #expect(archives.count == 1, "\(archives)")
    for archive in archives {
      #expect(mode(archive) == expected, "'\(archive)' has mode \(String(mode(archive) ?? 0, radix: 8))")
    }

    // Offline: the session is kept on this device, for this user only.
    try FileManager.default.moveItem(atPath: cloud, toPath: box.path("unmounted"))
    let wrap = try await run(
      box, umask: umask,
      [
        "wrap", "--save-dir", save, "--container", cloud, "--", "/bin/sh", "-c", "echo two > \"$0/slot.sav\"",
        save,
      ])
    #expect(wrap.stderr.contains("unavailable"), "stderr: \(wrap.stderr)")
    let pending = files(in: box.home + "/.local/share/savevault/pending/shared")
    #expect(pending.count == 1, "\(pending)")
    for archive in pending {
      #expect(mode(archive) == 0o600, "'\(archive)' has mode \(String(mode(archive) ?? 0, radix: 8))")
    }
  }
}
