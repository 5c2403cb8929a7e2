import Foundation
import Testing

@testable import SaveVault

/// Games found through the config file's `"roots"` and `"winePrefixes"`, with real entries of
/// the manifest (Tests/Fixtures/manifest-real-games.yaml): found by `scan`, added by
/// `add --detect`, backed up and restored through the built binary, like a Steam game.
@Suite("Roots and Wine prefixes end to end: games found by their folders", .tags(.medium))
struct RootsEndToEndTests {
  struct World {
    let sandbox: Sandbox
    var home: String { sandbox.home }
    var games: String { home + "/Games" }
    var prefix: String { home + "/Prefixes/main" }
    /// (the) Gnorp Apologue, installed as `Gnorp` (its manifest `installDir`) in `~/Games`.
    var gnorp: String { games + "/Gnorp" }
    /// 12 Labours of Hercules's save folder in the Wine prefix (`<winAppData>/ZOG/Hercules`).
    var hercules: String { prefix + "/drive_c/users/alice/AppData/Roaming/ZOG/Hercules" }

    /// `moreRoots`: folders under the home that are roots too.
    init(_ label: String, moreRoots: [String] = []) throws {
      sandbox = try Sandbox(
        "roots-\(label)",
        environment: [
          "SAVEVAULT_MANIFEST": fixture("manifest-real-games.yaml"), "SAVEVAULT_CONTAINER": "",
        ])
      try writeFile(gnorp + "/saves/slot1.sav", "gnorp slot")
      try writeFile(gnorp + "/options.ron", "(volume: 3)")
      try makeDirectory(prefix + "/drive_c/Program Files/12 Labours of Hercules")
      try writeFile(hercules + "/profile.dat", "hercules profile")
      let config: [String: Any] = [
        "container": sandbox.cloud, "roots": [games] + moreRoots.map { sandbox.home + "/" + $0 },
        "winePrefixes": [prefix],
      ]
      try makeDirectory(home + "/.config/savevault")
      try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: sandbox.config))
    }
  }

  @Test("a game in a root and one in a Wine prefix: scanned, backed up with no add, added, restored")
  func rootAndPrefix() async throws {
    let world = try World("both")
    let found = try jsonList(await world.sandbox.ok(["scan", "--json"]).stdout)
    let titles = Set(found.compactMap { $0["title"] as? String })
    #expect(titles == ["(the) Gnorp Apologue", "12 Labours of Hercules"], "\(found)")

    // Backed up by name with no config entry, as a Steam game is.
    let backup = try await world.sandbox.runAwaiting(["backup", "--game", "(the) Gnorp Apologue", "--json"])
    #expect(backup.code == 0, "\(backup.stderr)")
    let archive = try #require(try jsonObject(backup.stdout)["archive"] as? String)
    let listed = try await runProgramAwaiting(
      "/bin/tar", ["-tf", world.sandbox.cloud + "/(the) Gnorp Apologue/" + archive]
    ).stdout
    #expect(listed.contains("slot1.sav") && listed.contains("options.ron"), "\(listed)")

    let added = try await world.sandbox.runAwaiting(["add", "12 Labours of Hercules", "--detect"])
    #expect(added.code == 0, "\(added.stderr)")
    let entry = try #require(
      (try world.sandbox.configObject()["games"] as? [String: Any])?["12 Labours of Hercules"]
        as? [String: Any])
    #expect(entry["store"] as? String == "wine", "\(entry)")
    #expect(entry["storeGameId"] as? String == "12 Labours of Hercules", "named by its title: \(entry)")
    let locations = entry["locations"] as? [String] ?? []
    #expect(locations.contains("<winAppData>/ZOG/Hercules"), "\(entry)")
    try await world.sandbox.ok(["backup", "--game", "12 Labours of Hercules"])

    // Each restores its own save over a changed one.
    try writeFile(world.gnorp + "/saves/slot1.sav", "lost progress")
    try writeFile(world.hercules + "/profile.dat", "lost progress")
    for game in ["(the) Gnorp Apologue", "12 Labours of Hercules"] {
      let restored = try await world.sandbox.runAwaiting(["restore", "--game", game, "--latest"])
      #expect(restored.code == 0, "\(game): \(restored.stderr)")
    }
    #expect(text(world.gnorp + "/saves/slot1.sav") == "gnorp slot")
    #expect(text(world.gnorp + "/options.ron") == "(volume: 3)")
    #expect(text(world.hercules + "/profile.dat") == "hercules profile")

    // Uninstalled from the root, its entry kept: the refusal names this game, not another one
    // found there (it named the first game of the roots).
    try FileManager.default.moveItem(atPath: world.gnorp, toPath: world.home + "/gnorp-away")
    try makeDirectory(world.games + "/Other Game")
    var config = try world.sandbox.configObject()
    var games = config["games"] as? [String: Any] ?? [:]
    games["(the) Gnorp Apologue"] = [
      "locations": ["<base>/saves"], "store": "other", "storeGameId": "(the) Gnorp Apologue",
    ]
    config["games"] = games
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: world.sandbox.config))
    let refused = try await world.sandbox.runAwaiting(["backup", "--game", "(the) Gnorp Apologue"])
    #expect(refused.code == 2, "\(refused.stderr)")
    #expect(
      refused.stderr.contains("'(the) Gnorp Apologue' is not installed in the config file's roots here")
        && !refused.stderr.contains("Other Game"), "\(refused.stderr)")
  }

  @Test("a game installed in two roots, one under its alias folder, has the saves of both installs")
  func twoInstalls() async throws {
    let world = try World("two-installs", moreRoots: ["more-games"])
    let second = world.home + "/more-games/(the) Gnorp Apologue"
    try writeFile(second + "/saves/slot2.sav", "second install")

    let found = try jsonList(await world.sandbox.ok(["scan", "--json"]).stdout)
    let gnorp = try #require(found.first { $0["title"] as? String == "(the) Gnorp Apologue" })
    let paths = (gnorp["locations"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    #expect(
      paths.contains { $0.hasPrefix(world.gnorp) } && paths.contains { $0.hasPrefix(second) }, "\(paths)")

    let added = try await world.sandbox.runAwaiting(["add", "(the) Gnorp Apologue", "--detect"])
    #expect(added.code == 0, "\(added.stderr)")
    let backup = try await world.sandbox.runAwaiting(["backup", "--game", "(the) Gnorp Apologue", "--json"])
    #expect(backup.code == 0, "\(backup.stderr)")
    let archive = try #require(try jsonObject(backup.stdout)["archive"] as? String)
    let listed = try await runProgramAwaiting(
      "/bin/tar", ["-tf", world.sandbox.cloud + "/(the) Gnorp Apologue/" + archive]
    ).stdout
    #expect(listed.contains("slot1.sav") && listed.contains("slot2.sav"), "both installs' saves: \(listed)")

    try writeFile(second + "/saves/slot2.sav", "lost progress")
    try await world.sandbox.ok(["restore", "--game", "(the) Gnorp Apologue", "--latest"])
    #expect(text(second + "/saves/slot2.sav") == "second install")
    #expect(text(world.gnorp + "/saves/slot1.sav") == "gnorp slot")

    // A glob over files (`<base>/slot*.data`) in both installs: each install's files go back
    // to it on the machine that made the archive (it was refused as matching several folders).
    let rushA = world.games + "/Kingdom Rush"
    let rushB = world.home + "/more-games/Kingdom Rush"
    try writeFile(rushA + "/slot1.data", "first install")
    try writeFile(rushB + "/slot1.data", "second install")
    try await world.sandbox.ok(["add", "Kingdom Rush", "--detect"])
    try await world.sandbox.ok(["backup", "--game", "Kingdom Rush"])
    try writeFile(rushA + "/slot1.data", "lost progress")
    try writeFile(rushB + "/slot1.data", "lost progress")
    let rush = try await world.sandbox.runAwaiting(["restore", "--game", "Kingdom Rush", "--latest"])
    #expect(rush.code == 0, "\(rush.stderr)")
    #expect(text(rushA + "/slot1.data") == "first install")
    #expect(text(rushB + "/slot1.data") == "second install")
  }

  @Test("<game> in a root and in a Wine prefix stands for each folder there, named after its game")
  func gamePlaceholder() async throws {
    let world = try World("game-placeholder")
    let apps = world.home + "/Apps"
    let prefixes = world.home + "/Games/Prefixes"
    // 100% Orange Juice! (installDir `100 Orange Juice`) keeps `<base>/settings.ojc`; 0rbitalis
    // keeps `<winAppData>/0RBITALIS`, here in a prefix of its own.
    try writeFile(apps + "/100 Orange Juice/files/settings.ojc", "juice")
    let orbitalis = prefixes + "/0rbitalis/drive_c/users/alice/AppData/Roaming/0RBITALIS"
    try writeFile(orbitalis + "/save.dat", "orbit")
    try makeDirectory(prefixes + "/Not A Game/drive_c")
    let config: [String: Any] = [
      "container": world.sandbox.cloud, "roots": [apps + "/<game>/files"],
      "winePrefixes": [prefixes + "/<game>"],
    ]
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: world.sandbox.config))

    let found = try jsonList(await world.sandbox.ok(["scan", "--json"]).stdout)
    #expect(
      Set(found.compactMap { $0["title"] as? String }) == ["100% Orange Juice!", "0rbitalis"], "\(found)")
    for (game, file, content) in [
      ("100% Orange Juice!", apps + "/100 Orange Juice/files/settings.ojc", "juice"),
      ("0rbitalis", orbitalis + "/save.dat", "orbit"),
    ] {
      try await world.sandbox.addBackUpAndRestore(game, save: file, content: content)
    }
  }
}
