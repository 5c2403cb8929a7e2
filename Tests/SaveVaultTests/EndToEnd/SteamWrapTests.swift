import Foundation
import Testing

/// `savevault wrap -- %command%` with no TARGET, as Steam runs it: the game is found by the
/// Steam app id in the environment; with no match it runs unwrapped, never blocked.
@Suite("wrap finds its game by Steam app id", .tags(.medium))
struct SteamWrapTests {
  /// A fake game: writes its argument into the save and exits with a chosen code.
  static let game = "echo \"playing $1\"; echo \"$1\" > \"$0/slot.sav\"; exit 7"

  func player() async throws -> Sandbox {
    let player = try Sandbox("steam")
    try writeFile(player.dir.sub("saves/celeste/slot.sav"), "v1")
    try await player.ok([
      "add", "celeste", "--save-dir", "saves/celeste", "--container", "cloud", "--steam-app-id", "504230",
    ])
    try await player.ok([
      "add", "other", "--save-dir", "saves/other", "--container", "cloud", "--steam-app-id", "10",
    ])
    return player
  }

  @Test(
    "SteamAppId or STEAM_COMPAT_APP_ID picks the configured game: synced, run, backed up",
    arguments: [
      "SteamAppId", "STEAM_COMPAT_APP_ID",
    ])
  func found(variable: String) async throws {
    var player = try await player()
    player.extra = [variable: "504230"]
    let save = player.dir.sub("saves/celeste")
    let result = try await player.runAwaiting(["wrap", "--", "/bin/sh", "-c", Self.game, save, "v2"])
    #expect(result.code == 7, "the game's exit code: \(result.stderr)")
    #expect(result.stdout == "playing v2\n", "the game owns stdout")
    #expect(!result.stderr.contains("without syncing"), "\(result.stderr)")
    let archives = player.archives("celeste")
    #expect(archives.count == 2, "one upload before the game, one after: \(archives)")
    let newest = try #require(archives.last)
    let stored = try await runProgramAwaiting(
      "/usr/bin/tar", ["-xOf", player.cloud + "/celeste/" + newest, "slot.sav"])
    #expect(stored.stdout == "v2\n")
    #expect(player.archives("other").isEmpty)
  }

  @Test(
    "no match, no id, id 0 or no config: the game runs unwrapped with a warning and its exit code",
    arguments: [
      (["SteamAppId": "999"], "no game in"), ([:], "no Steam app id"),
      (["SteamAppId": "0"], "no Steam app id"),
      (["SteamAppId": "504230", "SAVEVAULT_CONFIG": "/nonexistent/config.json"], "no game in"),
      (["SteamAppId": "504230", "XDG_CONFIG_HOME": "/nonexistent"], "no game in"),
    ])
  func unwrapped(environment: [String: String], warning: String) async throws {
    var player = try await player()
    player.extra = environment
    let save = player.dir.sub("saves/celeste")
    let config = player.configBytes()
    let result = try await player.runAwaiting(["wrap", "--", "/bin/sh", "-c", Self.game, save, "v2"])
    #expect(result.code == 7, "\(result.stderr)")
    #expect(result.stdout == "playing v2\n")
    #expect(result.stderr.contains("warning:") && result.stderr.contains(warning), "\(result.stderr)")
    #expect(result.stderr.contains("running it without syncing"))
    #expect(player.archives("celeste").isEmpty, "nothing was synced")
    #expect(player.configBytes() == config)
  }

  @Test("a broken config file does not block the game either")
  func brokenConfig() async throws {
    var player = try await player()
    try writeFile(player.config, "not json")
    player.extra = ["SteamAppId": "504230"]
    let result = try await player.runAwaiting(["wrap", "--", "/bin/sh", "-c", "exit 9"])
    #expect(result.code == 9)
    #expect(
      result.stderr.contains("is unusable") && result.stderr.contains("without syncing"), "\(result.stderr)")
  }

  @Test("a game that cannot start exits 127 even unwrapped; wrap with no command is a usage error")
  func cannotStart() async throws {
    var player = try await player()
    player.extra = ["SteamAppId": "999"]
    let missing = try await player.runAwaiting(["wrap", "--", player.dir.sub("no-such-game")])
    #expect(missing.code == 127)
    #expect(missing.stderr.contains("cannot start"))
    #expect(try await player.runAwaiting(["wrap"]).code == 2)
  }

  @Test("--game still wins over the Steam app id")
  func explicitGameWins() async throws {
    var player = try await player()
    player.extra = ["SteamAppId": "10"]
    let save = player.dir.sub("saves/celeste")
    let result = try await player.runAwaiting([
      "wrap", "--game", "celeste", "--", "/bin/sh", "-c", Self.game, save, "v3",
    ])
    #expect(result.code == 7)
    #expect(player.archives("celeste").count == 2)
    #expect(player.archives("other").isEmpty)
  }
}
