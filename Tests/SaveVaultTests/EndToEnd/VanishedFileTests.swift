import Foundation
import Testing

@testable import SaveVault

/// A game writes its save while `backup` runs, as most do: a temporary file renamed over a
/// slot, so a file the scan listed is gone when it is packed. The save is scanned and packed
/// again, as for a file that changes while it is read; the backup holds the save as it is now.
@Suite("A file gone between the scan and the packing", .tags(.medium))
struct VanishedFileTests {
  @Test("the game renames its temporary file over a slot during a backup: packed again, not refused")
  func temporaryFileRenamed() async throws {
    let sandbox = try Sandbox("vanished-file")
    let save = sandbox.path("save")
    try writeFile(save + "/slot.sav", "old slot\n")
    try writeFile(save + "/slot.tmp", "new slot\n")
    // The backup pauses after its scan; meanwhile the game renames slot.tmp over slot.sav.
    let script =
      "\"$0\" backup --save-dir \"$1\" --container \"$2\" & sleep 1; mv \"$1/slot.tmp\" \"$1/slot.sav\"; wait $!"
    let run = try await runProgramAwaiting(
      "/bin/sh", ["-c", script, savevaultBinary, save, sandbox.cloud],
      environment: sandbox.environment(["SAVEVAULT_FAILPOINTS": "backup.listed=sleep:3000"]))
    #expect(run.code == 0, "\(run.code): \(run.stderr)")
    let status = try jsonObject(
      await sandbox.ok(["status", "--save-dir", save, "--container", sandbox.cloud, "--json"]).stdout)
    #expect(
      status["state"] as? String == "in-sync", "the archive holds the save as the game left it: \(status)")
  }
}
