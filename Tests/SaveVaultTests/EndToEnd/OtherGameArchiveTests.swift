import Foundation
import Testing

/// An archive in a game's folder of the container whose header names another game: copied
/// there by hand, or kept there by a container that ignores letter case (exFAT, a Samba share,
/// macOS), where `celeste` and `Celeste` share one folder. It is refused whole, the save left
/// as it was.
@Suite("Archives of another game in a game's folder, through the binary", .tags(.medium))
struct OtherGameArchiveTests {
  /// A sandbox where `celeste` (`saves/celeste`) and then `Celeste` (`saves/Celeste`) were
  /// backed up into `cloud`, and the archive of `Celeste` copied into `celeste`'s folder, as a
  /// container that ignores letter case would keep it. Returns the copied archive's name.
  func world(_ label: String) async throws -> (Sandbox, String) {
    let box = try Sandbox(label)
    try writeFile(box.path("saves/celeste/slot.sav"), "chapter 7, 2000 berries")
    try writeFile(box.path("saves/Celeste/slot.sav"), "chapter 1, 3 berries")
    try await box.ok(["backup"] + target(box, "celeste"))
    try await box.ok(["backup"] + target(box, "Celeste"))
    let name = try #require(box.archives("Celeste").last)
    try #require(box.archives("celeste").count == 1 && !box.archives("celeste").contains(name))
    try FileManager.default.copyItem(
      atPath: box.cloud + "/Celeste/" + name, toPath: box.cloud + "/celeste/" + name)
    return (box, name)
  }

  func target(_ box: Sandbox, _ game: String) -> [String] {
    ["--game", game, "--save-dir", box.path("saves/" + game), "--container", box.cloud]
  }

  @Test("restore --latest of a game refuses the newest archive when it is another game's (exit 5)")
  func restoreRefused() async throws {
    let (box, name) = try await world("other-game-restore")
    let before = tree(box.path("saves/celeste"))
    let restored = try await box.runAwaiting(["restore", "--latest"] + target(box, "celeste"))
    #expect(restored.code == 5, "exit \(restored.code): \(restored.stderr)")
    #expect(restored.stderr.contains(name), "stderr: \(restored.stderr)")
    #expect(
      restored.stderr.contains("'Celeste'") && restored.stderr.contains("'celeste'"), "\(restored.stderr)")
    #expect(tree(box.path("saves/celeste")) == before, "the refused restore changed the save")
    #expect(text(box.path("saves/celeste/slot.sav")) == "chapter 7, 2000 berries")
  }

  @Test("verify names another game's archive as failed (exit 5)")
  func verifyRefused() async throws {
    let (box, name) = try await world("other-game-verify")
    let verified = try await box.runAwaiting(["verify", "--latest"] + target(box, "celeste"))
    #expect(verified.code == 5, "exit \(verified.code): \(verified.stdout) \(verified.stderr)")
    #expect(verified.stdout.contains(name + "  FAILED"), "stdout: \(verified.stdout)")
    // The game whose archive it is verifies it.
    try await box.ok(["verify", "--latest"] + target(box, "Celeste"))
  }

  @Test("a sync that would restore another game's archive refuses it (exit 5) and changes nothing")
  func syncRefused() async throws {
    let (box, _) = try await world("other-game-sync")
    let before = tree(box.path("saves/celeste"))
    let synced = try await box.runAwaiting(["sync"] + target(box, "celeste"))
    #expect(synced.code == 5, "exit \(synced.code): \(synced.stderr)")
    #expect(tree(box.path("saves/celeste")) == before, "the refused sync changed the save")
    // The game's own archive still restores.
    let own = try #require(box.archives("celeste").first)
    try writeFile(box.path("saves/celeste/slot.sav"), "lost it")
    try await box.ok(["restore", "--archive", own] + target(box, "celeste"))
    #expect(text(box.path("saves/celeste/slot.sav")) == "chapter 7, 2000 berries")
  }
}
