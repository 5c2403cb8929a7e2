import Foundation
import Testing

/// What the game does while a restore runs (paused at a fail point, the game writing as it
/// waits): a write after the swap is a local change, not part of the agreement; a write during
/// the extraction leaves one pre-restore copy, of the save as it was replaced.
extension RecoveryEdgeTests {
  @Test(
    "the game writes between the swap and the agreement: the next look sees a local change",
    arguments: ["restore.swapped", "restore.kept"])
  func gameWritesAfterSwap(_ point: String) async throws {
    let devices = try await UndoTests.Devices()
    try await devices.deckUploads("deck v2")
    try writeFile(devices.save + "/slot1.sav", "pc local")
    let restore = try SpawnedProgram(
      savevaultBinary, ["restore", "--latest"] + devices.target,
      environment: devices.pc.environment(["SAVEVAULT_FAILPOINTS": "\(point)=sleep:3000"]),
      output: devices.pc.dir.sub("restore"))
    // Within the pause: the archive's save is in place, and the game writes into it.
    withinWindow {
      #expect(eventually { text(devices.save + "/slot1.sav") == "deck v2" }, "never swapped")
      try? writeFile(devices.save + "/slot1.sav", "the game's")
      try? writeFile(devices.save + "/slot2.sav", "the game's new slot")
    }
    let code = await restore.waitAwaiting()
    #expect(code == 0, "exit \(code): \(restore.stderr)")
    #expect(try await devices.state() == "local-changed", "the game's writes were taken as agreed")
  }

  @Test(
    "the game writes during the extraction: the save as found and as the game left it are both kept; undo puts back the last"
  )
  func gameWritesDuringExtraction() async throws {
    let devices = try await UndoTests.Devices()
    try await devices.deckUploads("deck v2")
    try writeFile(devices.save + "/slot1.sav", "pc local")
    // Packed early (not moved), while the archive is extracted.
    let restore = try SpawnedProgram(
      savevaultBinary, ["restore", "--latest"] + devices.target,
      environment: devices.pc.environment([
        "SAVEVAULT_FAILPOINTS": "restore.keep-by-moving=error;restore.extracted=sleep:3000"
      ]),
      output: devices.pc.dir.sub("restore"))
    withinWindow {
      #expect(
        eventually {
          ((try? FileManager.default.contentsOfDirectory(atPath: devices.pc.dir.sub("saves"))) ?? []).count
            > 1
        },
        "never staged")
      usleep(300_000)
      try? writeFile(devices.save + "/slot1.sav", "pc written during the restore")
    }
    let written = tree(devices.save)
    let code = await restore.waitAwaiting()
    #expect(code == 0, "exit \(code): \(restore.stderr)")
    // Two states, each the player's: the save as the restore found it, and as the game left
    // it; neither is lost, and nothing else is kept.
    #expect(devices.copies().count == 2, "pre-restore copies: \(devices.copies())")
    try await devices.pc.ok(["restore", "--undo"] + devices.target)
    #expect(tree(devices.save) == written)
  }
}
