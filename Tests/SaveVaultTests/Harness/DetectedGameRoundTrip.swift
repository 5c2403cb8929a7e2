import Foundation
import Testing

@testable import SaveVault

extension Sandbox {
  /// A sandbox whose manifest is real entries of Ludusavi's (Tests/Fixtures/
  /// manifest-real-games.yaml) and whose config file names its folder container.
  static func withRealManifest(_ label: String) throws -> Sandbox {
    let sandbox = try Sandbox(
      label,
      environment: [
        "SAVEVAULT_MANIFEST": fixture("manifest-real-games.yaml"), "SAVEVAULT_CONTAINER": "",
      ])
    try makeDirectory(sandbox.home + "/.config/savevault")
    try writeFile(sandbox.config, #"{"container": "\#(sandbox.cloud)"}"#)
    return sandbox
  }

  /// What a player does with a game `scan` found: `add GAME --detect`, `backup --game GAME`,
  /// then, the save at `save` changed, `restore --game GAME --latest`, which must give back
  /// `content`.
  func addBackUpAndRestore(_ game: String, save: String, content: String) async throws {
    let added = try await runAwaiting(["add", game, "--detect"])
    #expect(added.code == 0, "\(game): \(added.stderr)")
    let backup = try await runAwaiting(["backup", "--game", game])
    #expect(backup.code == 0, "\(game): \(backup.stderr)")
    try writeFile(save, "lost progress")
    let restored = try await runAwaiting(["restore", "--game", game, "--latest"])
    #expect(restored.code == 0, "\(game): \(restored.stderr)")
    #expect(text(save) == content, "\(game)")
  }
}
