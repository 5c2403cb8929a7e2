import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

extension DiskFullTests {
  @Test(
    "a Wine prefix's disk without room for the merged keys: refused before any swap, the game runs on the old save"
  )
  func registryMergeOnFullDisk() async throws {
    let disk = try await SmallDisk(4, label: "diskfull-registry")
    let sandbox = try Sandbox(in: disk.dir, device: "deck")
    let prefix = disk.path + "/pfx"
    let userReg = prefix + "/user.reg"
    let slot = sandbox.home + "/Games/agent/slot.sav"
    try makeDirectory(prefix + "/drive_c/windows")
    let config: [String: Any] = [
      "container": sandbox.cloud,
      "games": [
        "agent": [
          "winePrefix": prefix, "locations": ["registry:" + RegistryEndToEndTests.key, "~/Games/agent"],
        ]
      ],
    ]
    try makeDirectory((sandbox.config as NSString).deletingLastPathComponent)
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: sandbox.config))
    // The archive to restore: slot 1; then the save played on (slot 9) and backed up.
    try writeFile(
      userReg, try RegistryEndToEndTests.userReg(slot: "00000001", music: "on", stamp: "1700000000"))
    try writeFile(slot, "the cloud's save")
    let first = try await sandbox.ok(["backup", "--game", "agent", "--json"])
    let older = try #require(try jsonObject(first.stdout)["archive"] as? String)
    let played = try RegistryEndToEndTests.userReg(slot: "00000009", music: "on", stamp: "1900000000")
    try writeFile(userReg, played)
    try writeFile(slot, "the save played since")
    try await sandbox.ok(["backup", "--game", "agent"])

    let filler = disk.fill()
    let restore = try await sandbox.runAwaiting(["restore", "--game", "agent", "--archive", older])
    CrashTally.faults.add()
    #expect(restore.code == 1, "exit \(restore.code): \(restore.stderr)")
    #expect(
      restore.stderr.contains(userReg) && restore.stderr.contains("no space left"),
      "stderr: \(restore.stderr)")
    #expect(text(slot) == "the save played since", "no file of the archive in place")
    #expect(text(userReg) == played, "the keys as they were")

    // The game started by wrap finds the old save whole, files and keys.
    let seen = disk.dir.sub("seen")
    let wrap = try await sandbox.runAwaiting(
      [
        "wrap", "--game", "agent", "--", "/bin/sh", "-c", "cat \"$1\" \"$2\" > \"$3\"", "sh", slot, userReg,
        seen,
      ])
    #expect(wrap.code == 0, "exit \(wrap.code): \(wrap.stderr)")
    #expect(text(seen) == "the save played since" + played, "the game started on a half-restored save")

    // Once there is room, the restore goes through.
    unlink(filler)
    try await sandbox.ok(["restore", "--game", "agent", "--archive", older])
    #expect(text(slot) == "the cloud's save")
    #expect(text(userReg)?.contains("\"Slot\"=dword:00000001") == true)
  }
}
