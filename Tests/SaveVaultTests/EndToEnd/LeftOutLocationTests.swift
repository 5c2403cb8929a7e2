import Foundation
import Testing

@testable import SaveVault

/// Nothing silently left out: a save location that scanning finds for a configured game and
/// that the game's own list of locations does not take (here Hades's Steam Cloud folder, on a
/// Deck where the player added only its prefix folder by hand) makes every backup fail naming
/// it, until the player adds the game again as scanning finds it or excludes the location;
/// `status` and `scan` show it too. A location of the list that is not there yet is no error.
@Suite("Left out: a location scanning finds that the game's locations do not take", .tags(.medium))
struct LeftOutLocationTests {
  static let remoteTemplate = "<root>/userdata/<storeUserId>/1145360/remote"

  @Test(
    "backup refuses it by name (exit 2), nothing uploaded; status and scan show it; --force, exclude and add --detect settle it"
  )
  func refusedByName() async throws {
    let world = try DiscoveryEndToEndTests.World("left-out")
    let deck = world.onDeck
    let cloud = world.dir.sub("cloud")
    let saves = world.deck.device.protonUser(1_145_360, in: world.deck.card) + "/Documents/Saved Games/Hades"
    let remote = try #require(Platform.realPath(world.deck.steam + "/userdata/1111/1145360/remote"))
    try await deck.ok(["add", "Hades", "--save-dir", saves, "--steam-app-id", "1145360"])

    let refused = try await deck.runAwaiting(["backup", "--game", "Hades"])
    #expect(refused.code == 2, "\(refused.stderr)")
    #expect(
      refused.stderr.contains(Self.remoteTemplate) && refused.stderr.contains(remote), "\(refused.stderr)")
    #expect(refused.stderr.contains("'savevault add Hades --detect --replace'"), "\(refused.stderr)")
    #expect(deck.archives("Hades", in: cloud).isEmpty, "nothing uploaded")
    let synced = try await deck.runAwaiting(["sync", "--game", "Hades"])
    #expect(
      synced.code == 2 && deck.archives("Hades", in: cloud).isEmpty, "sync uploads nothing: \(synced.stderr)")

    let status = try jsonObject(await deck.ok(["status", "--game", "Hades", "--json"]).stdout)
    let leftOut = status["leftOut"] as? [[String: Any]] ?? []
    #expect(
      leftOut.map { $0["portable"] as? String } == [Self.remoteTemplate]
        && leftOut.map { $0["path"] as? String } == [remote], "\(status)")
    let statusText = try await deck.ok(["status", "--game", "Hades"]).stdout
    #expect(statusText.contains("left out \(remote)"), "\(statusText)")
    let scanned = try jsonList(await deck.ok(["scan", "--json"]).stdout)
    let hades = try #require(scanned.first { $0["game"] as? String == "Hades" })
    #expect(
      (hades["leftOut"] as? [[String: Any]])?.map { $0["portable"] as? String } == [Self.remoteTemplate],
      "\(hades)")
    #expect(try await deck.ok(["scan"]).stdout.contains("left out by the config file: \(remote)"))

    // Forced, it uploads the rest and says what it left out.
    let forced = try await deck.runAwaiting(["backup", "--game", "Hades", "--force"])
    #expect(
      forced.code == 0 && forced.stderr.contains("left out '\(Self.remoteTemplate)'"), "\(forced.stderr)")
    #expect(deck.archives("Hades", in: cloud).count == 1)

    // In sync now, a sync says what stays left out.
    let inSync = try await deck.ok(["sync", "--game", "Hades"])
    #expect(inSync.stderr.contains("left out '\(Self.remoteTemplate)'"), "\(inSync.stderr)")

    // Excluded by the player, by the form scanning shows: no longer in the way.
    var config = try deck.configObject()
    var games = config["games"] as? [String: Any] ?? [:]
    var entry = games["Hades"] as? [String: Any] ?? [:]
    entry["exclude"] = [Self.remoteTemplate]
    games["Hades"] = entry
    config["games"] = games
    try writeFile(
      deck.config, String(decoding: JSONSerialization.data(withJSONObject: config), as: UTF8.self))
    try writeFile(saves + "/Profile1.sav", "played")
    try await deck.ok(["backup", "--game", "Hades"])
    #expect(deck.archives("Hades", in: cloud).count == 2)
    let excluded = try jsonObject(await deck.ok(["status", "--game", "Hades", "--json"]).stdout)
    #expect((excluded["leftOut"] as? [Any])?.isEmpty == true, "\(excluded)")

    // Added again as scanning finds it: the next backup holds it.
    try await deck.ok(["add", "Hades", "--detect", "--replace"])
    let backup = try await deck.ok(["backup", "--game", "Hades", "--json"])
    let archive = try #require(jsonObject(backup.stdout)["archive"] as? String)
    let listed = try await runProgramAwaiting("/bin/tar", ["-tf", cloud + "/Hades/" + archive]).stdout
    #expect(listed.contains("remote/Profile1.sav"), "\(listed)")
  }

  @Test("a location of the game's list that is not there yet is no error: shown absent, the rest backed up")
  func absentIsNoError() async throws {
    let world = try DiscoveryEndToEndTests.World("absent")
    let deck = world.onDeck
    try FileManager.default.removeItem(atPath: world.deck.steam + "/userdata/1111/1145360/remote")
    try writeFile(
      deck.config,
      #"{"games": {"Hades": {"steamAppId": "1145360", "locations": ["<winDocuments>/Saved Games/Hades", "\#(Self.remoteTemplate)"]}}}"#
    )
    let status = try jsonObject(await deck.ok(["status", "--game", "Hades", "--json"]).stdout)
    let locations = status["locations"] as? [[String: Any]] ?? []
    #expect(locations.map { $0["exists"] as? Bool } == [true, false], "\(status)")
    #expect(locations.last?["portable"] as? String == Self.remoteTemplate, "\(locations)")
    #expect((status["leftOut"] as? [Any])?.isEmpty == true, "\(status)")
    #expect(try await deck.ok(["status", "--game", "Hades"]).stdout.contains("/remote: absent"))
    try await deck.ok(["backup", "--game", "Hades"])
    #expect(deck.archives("Hades", in: world.dir.sub("cloud")).count == 1)
  }
  @Test(
    "a link among a glob's files is skipped with a warning, not refused as left out (adding the game again could never take it)"
  )
  func linkAmongFilesIsNoLeftOut() async throws {
    let player = try Sandbox("left-out-link")
    let steam = player.home + "/.local/share/Steam"
    try writeFile(
      steam + "/steamapps/libraryfolders.vdf",
      "\"libraryfolders\"\n{\n\t\"0\"\n\t{\n\t\t\"path\"\t\t\"\(steam)\"\n\t}\n}\n")
    try writeFile(
      steam + "/steamapps/appmanifest_368000.acf",
      "\"AppState\"\n{\n\t\"appid\"\t\t\"368000\"\n\t\"name\"\t\t\"100ft Robot Golf\"\n\t\"installdir\"\t\t\"100ft Robot Golf\"\n}\n"
    )
    let install = steam + "/steamapps/common/100ft Robot Golf"
    try writeFile(install + "/a.sav", "a")
    try writeFile(player.path("outside.txt"), "not the game's")
    try FileManager.default.createSymbolicLink(
      atPath: install + "/link.sav", withDestinationPath: player.path("outside.txt"))
    let environment = ["SAVEVAULT_MANIFEST": fixture("manifest-real-games.yaml")]
    try await player.ok(["add", "100ft Robot Golf", "--detect"], environment: environment)
    let backup = try await player.runAwaiting(
      ["backup", "--game", "100ft Robot Golf"], environment: environment)
    #expect(backup.code == 0, "\(backup.stderr)")
    #expect(backup.stderr.contains("skipped") && backup.stderr.contains("link.sav"), "\(backup.stderr)")
  }
}
