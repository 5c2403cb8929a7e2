import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// A restore of a location of files killed midway, and the game run before SaveVault runs
/// again, through the built binary: what the game wrote is kept, and a restore that cannot be
/// finished stops every command of the game from syncing it.
@Suite("Restore overtaken: the game writes into a restore killed midway", .tags(.large))
struct RestoreOvertakenTests {
  /// Every regular file under `root` (SaveVault's hidden folders included) with its text.
  static func files(_ root: String) -> [String: String] {
    var found: [String: String] = [:]
    let enumerator = FileManager.default.enumerator(atPath: root)
    while let path = enumerator?.nextObject() as? String {
      var isFolder: ObjCBool = false
      if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isFolder),
        !isFolder.boolValue
      {
        found[path] = text(root + "/" + path)
      }
    }
    return found
  }

  /// Kills `restore --latest` after the `*.sav` files were set aside, before any went in.
  static func killRestore(_ sandbox: Sandbox) async throws {
    let killed = try await sandbox.runAwaiting(
      ["restore", "--game", "files", "--latest"],
      environment: ["SAVEVAULT_FAILPOINTS": "restore.between-files=kill@1"])
    #expect(
      killed.code == 128 + SIGKILL || killed.code == -SIGKILL || killed.code == 9,
      "killed: \(killed.code) \(killed.stderr)")
  }

  @Test(
    "a file the game wrote where a killed restore had set one aside is kept with the save it replaced: the restore finishes, nothing half-restored is uploaded, undo brings back both"
  )
  func gameWroteWhereAFileWasSetAside() async throws {
    let sandbox = try FileLocationsTests.world("overtaken")
    let install = sandbox.path("install")
    try await sandbox.ok(["backup", "--game", "files"])
    try writeFile(install + "/slot1.sav", "slot one, played on\n")
    try writeFile(install + "/slot3.sav", "a new slot\n")
    try await Self.killRestore(sandbox)
    // The game runs before SaveVault does again, and saves into a slot set aside.
    try writeFile(install + "/slot1.sav", "the game wrote this after the kill\n")
    let archives = sandbox.archives("files")
    let synced = try await sandbox.runAwaiting(["sync", "--game", "files"])
    #expect(synced.code == 0, "\(synced.code): \(synced.stderr)")
    #expect(!synced.stderr.contains("could not"), "\(synced.stderr)")
    #expect(sandbox.archives("files") == archives, "nothing uploaded: \(synced.stdout)")
    // The restore is finished: the archive's save, no hidden folder left.
    #expect(text(install + "/slot1.sav") == "slot one\n")
    #expect(text(install + "/slot2.sav") == "slot two\n")
    #expect(!FileManager.default.fileExists(atPath: install + "/slot3.sav"))
    let leftovers = try FileLocationsTests.leftovers(sandbox)
    #expect(leftovers.isEmpty, "\(leftovers)")
    #expect(try await sandbox.state(["--game", "files"]) == "in-sync")
    // Undo brings back the played-on save, and the game's later write beside it.
    try await sandbox.ok(["restore", "--game", "files", "--undo"])
    let back = Self.files(install)
    #expect(back["slot1.sav"] == "slot one, played on\n", "\(back)")
    #expect(back["slot3.sav"] == "a new slot\n", "\(back)")
    let later = back.filter { $0.value == "the game wrote this after the kill\n" }.map(\.key)
    #expect(later.count == 1 && later.first?.hasSuffix(".sav") == true, "\(back)")
  }

  @Test(
    "an interrupted restore that cannot be finished stops every command of the game (exit 1, naming where the files are): nothing is uploaded or restored until it is"
  )
  func unfinishedRestoreRefusesToSync() async throws {
    let sandbox = try FileLocationsTests.world("unfinishable")
    let install = sandbox.path("install")
    try await sandbox.ok(["backup", "--game", "files"])
    try writeFile(install + "/slot1.sav", "slot one, played on\n")
    try await Self.killRestore(sandbox)
    // The game puts a file where the restore must make a folder.
    try FileManager.default.removeItem(atPath: install + "/profiles/alice")
    try writeFile(install + "/profiles/alice", "in the way\n")
    let archives = sandbox.archives("files")
    for command in [
      ["sync", "--game", "files"], ["backup", "--game", "files"], ["restore", "--game", "files", "--latest"],
      ["restore", "--game", "files", "--undo"], ["status", "--game", "files"],
    ] {
      let refused = try await sandbox.runAwaiting(command)
      #expect(refused.code == 1, "\(command): \(refused.code) \(refused.stdout) \(refused.stderr)")
      #expect(
        refused.stderr.contains("interrupted restore") && refused.stderr.contains(".savevault-staging-")
          && refused.stderr.contains("in the way"),
        "\(command): \(refused.stderr)")
      #expect(sandbox.archives("files") == archives, "\(command) uploaded nothing")
    }
    let wrapped = try await sandbox.runAwaiting(["wrap", "--game", "files", "--", "/bin/true"])
    #expect(sandbox.archives("files") == archives, "wrap uploaded nothing: \(wrapped.stderr)")
    // Once the file in the way is gone, the next command finishes the restore.
    try FileManager.default.removeItem(atPath: install + "/profiles/alice")
    try await sandbox.ok(["sync", "--game", "files"])
    #expect(text(install + "/slot1.sav") == "slot one\n")
    #expect(text(install + "/profiles/alice/general.opt") == "alice\n")
    let leftovers = try FileLocationsTests.leftovers(sandbox)
    #expect(leftovers.isEmpty, "\(leftovers)")
    try await sandbox.ok(["restore", "--game", "files", "--undo"])
    #expect(text(install + "/slot1.sav") == "slot one, played on\n")
  }
}
