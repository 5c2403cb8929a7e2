import Foundation
import Testing

// Keys of the config file that SaveVault does not know, through the built binary: a misspelt
// key in a game's entry would send its backups elsewhere, so that game's commands refuse it;
// a key elsewhere is ignored with one warning per run.

@Suite("Config keys: a misspelt key is never silently ignored", .tags(.medium))
struct ConfigKeyTests {
  /// A config with two games in the player's folder container; `celeste`'s entry gets `extra`.
  private func player(_ label: String, celesteExtra extra: String, topLevel: String = "") throws -> Sandbox {
    let player = try Sandbox(label)
    try writeFile(player.dir.sub("saves/celeste/slot1.sav"), "chapter 3")
    try writeFile(player.dir.sub("saves/hk/user1.dat"), "geo 1200")
    try writeFile(
      player.config,
      """
      {\(topLevel)"container": "\(player.cloud)", "games": {
        "celeste": {"saveDir": "\(player.dir.sub("saves/celeste"))", \(extra)},
        "hk": {"saveDir": "\(player.dir.sub("saves/hk"))"}}}
      """)
    return player
  }

  @Test(
    "an unknown key in a game's entry is refused (exit 2) naming the key, the game and the closest known key",
    arguments: [
      ("\"contianer\": \"/mnt/nas/saves\"", "contianer", "container"),
      ("\"SAVEDIR\": \"/elsewhere\"", "SAVEDIR", "saveDir"),
      ("\"steam_app_id\": \"504230\"", "steam_app_id", "steamAppId"),
    ])
  func unknownGameKey(_ entry: String, _ key: String, _ closest: String) async throws {
    let player = try player("gamekey-\(closest)", celesteExtra: entry)
    for arguments in [
      ["backup", "--game", "celeste"], ["status", "--game", "celeste"], ["sync", "--game", "celeste"],
    ] {
      let refused = try await player.runAwaiting(arguments)
      #expect(refused.code == 2, "\(arguments): exit \(refused.code), \(refused.stderr)")
      #expect(refused.stderr.contains("'\(key)'"), "\(arguments): \(refused.stderr)")
      #expect(refused.stderr.contains("game 'celeste'"), "\(arguments): \(refused.stderr)")
      #expect(refused.stderr.contains("did you mean '\(closest)'?"), "\(arguments): \(refused.stderr)")
    }
    #expect(player.archives("celeste").isEmpty, "nothing was backed up anywhere")

    // Every game: the broken one fails (exit 2), the others still run.
    let all = try await player.runAwaiting(["backup"])
    #expect(all.code == 2, "exit \(all.code): \(all.stderr)")
    #expect(player.archives("hk").count == 1 && player.archives("celeste").isEmpty)

    let doctor = try await player.runAwaiting(["doctor", "--json"])
    #expect(doctor.code == 2, "doctor: exit \(doctor.code)\n\(doctor.stdout)")
    let problems = try jsonList(doctor.stdout).filter { $0["status"] as? String == "problem" }
    #expect(problems.count == 1 && problems.first?["subject"] as? String == "celeste", "\(doctor.stdout)")
    #expect((problems.first?["message"] as? String)?.contains("did you mean '\(closest)'?") == true)

    // add and remove work on such a file: they are how the player repairs it.
    try await player.ok(["remove", "hk"])
    try await player.ok(["add", "celeste", "--save-dir", player.dir.sub("saves/celeste"), "--replace"])
    try await player.ok(["backup", "--game", "celeste"])
    #expect(player.archives("celeste").count == 1)
  }

  @Test("an unknown key elsewhere is a warning on stderr, once per run, and the command works")
  func unknownKeyElsewhere() async throws {
    let player = try player(
      "elsewhere", celesteExtra: "\"steamAppId\": \"504230\"",
      topLevel: "\"devise\": \"deck\", \"limits\": {\"maxEntires\": 10}, ")
    let backup = try await player.ok(["backup"])
    #expect(player.archives("celeste").count == 1 && player.archives("hk").count == 1)
    let warnings = backup.stderr.split(separator: "\n").filter { $0.contains("warning") }
    #expect(warnings.count == 2, "one warning per key, not per game: \(backup.stderr)")
    #expect(backup.stderr.contains("unknown key 'devise' (did you mean 'device'?)"), "\(backup.stderr)")
    #expect(
      backup.stderr.contains("unknown key 'maxEntires' in 'limits' (did you mean 'maxEntries'?)"),
      "\(backup.stderr)")
    let status = try await player.ok(["status", "--json"])
    #expect(status.stderr.components(separatedBy: "'devise'").count == 2, "\(status.stderr)")
    let doctor = try await player.runAwaiting(["doctor", "--json"])
    #expect(doctor.code == 0, "doctor: exit \(doctor.code)\n\(doctor.stdout)")
    let warned = try jsonList(doctor.stdout).filter { $0["status"] as? String == "warning" }
    #expect(warned.count == 2, "\(doctor.stdout)")
  }
}
