import Foundation
import Testing

/// A game whose container is the embedded default keeps its backups on this device: `status`
/// and `games` say so (text and JSON), and say it of no other game.
@Suite("A game in the embedded default container is shown as local only", .tags(.medium))
struct LocalOnlyTests {
  /// `here` uses the embedded default, `synced` a folder container; both backed up.
  func player() async throws -> Sandbox {
    let player = try Sandbox("local-only")
    for game in ["here", "synced"] { try writeFile(player.path("saves/\(game)/s.sav"), game) }
    try await player.ok(["add", "here", "--save-dir", "saves/here"])
    try await player.ok(["add", "synced", "--save-dir", "saves/synced", "--container", "cloud"])
    try await player.ok(["backup"])
    return player
  }

  @Test("status and games --json: localOnly is true for the default container's game only")
  func json() async throws {
    let player = try await player()
    let here = try await player.status(["--game", "here"])
    #expect(lookup(here, "cloud.localOnly") as? Bool == true, "\(here)")
    #expect(lookup(here, "cloud.container") as? String == player.defaultContainer, "the field kept")
    await #expect(lookup(try player.status(["--game", "synced"]), "cloud.localOnly") as? Bool == false)

    let all = try await jsonList(player.ok(["status", "--json"]).stdout)
    #expect(all.map { lookup($0, "cloud.localOnly") as? Bool } == [true, false], "\(all)")
    let games = try await jsonList(player.ok(["games", "--json"]).stdout)
    #expect(games.map { $0["localOnly"] as? Bool } == [true, false], "\(games)")
    #expect(games.map { $0["state"] as? String } == ["in-sync", "in-sync"], "the state is unchanged")
  }

  @Test("status and games in text say it plainly, with the folder, for that game only")
  func text() async throws {
    let player = try await player()
    let here = try await player.ok(["status", "--game", "here"]).stdout
    #expect(
      here.contains("local only: the backups are on this device (\(player.defaultContainer))")
        && here.contains("add a container"), "\(here)")
    let synced = try await player.ok(["status", "--game", "synced"]).stdout
    #expect(!synced.contains("local only"), "\(synced)")

    for command in ["games", "status"] {
      let lines = try await player.ok([command]).stdout.split(separator: "\n")
      let notes = lines.filter { $0.contains("local only") }
      #expect(!notes.isEmpty, "\(command): \(lines)")
      #expect(
        notes.contains { $0.contains("here") && $0.contains(player.defaultContainer) }
          && !notes.contains { $0.contains("synced") }, "\(command): \(lines)")
    }
    let gamesRow = try await player.ok(["games"]).stdout.split(separator: "\n").first {
      $0.hasPrefix("here ")
    }
    #expect(gamesRow?.contains("local only") == true, "the row itself says it: \(gamesRow ?? "")")
  }
}
