import Foundation
import Testing

@testable import SaveVault

/// Discovery through the built binary on two fake machines (a Deck: native Steam, an SD-card
/// library, user `deck`; a desktop: Flatpak Steam, Heroic, Lutris, user `alice`), with a
/// manifest in the real format: `scan` finds every installed game with saves and nothing
/// else, a game backed up on the Deck with no `add` restores into the desktop's own prefix
/// and Steam user folder with no mapping written, `add --detect` and `wrap` under Steam add it.
@Suite("Discovery end to end: found on a Deck, restored into a desktop's own prefix", .tags(.medium))
struct DiscoveryEndToEndTests {
  struct World {
    let dir: TemporaryDirectory
    let deck: FakeDeck
    let desktop: FakeDesktop
    let onDeck: Sandbox
    let onDesktop: Sandbox

    init(_ label: String) throws {
      dir = TemporaryDirectory("discovery-\(label)")
      deck = try FakeDeck(dir)
      desktop = try FakeDesktop(dir)
      let manifest = dir.sub("manifest.yaml")
      try writeFile(manifest, LocationManifestFixture.yaml(InMemoryManifest.saves.games))
      var sandbox = try Sandbox(
        in: dir, device: "deck",
        environment: ["SAVEVAULT_MANIFEST": manifest, "SAVEVAULT_CONTAINER": dir.sub("cloud")])
      sandbox.home = deck.device.home
      onDeck = sandbox
      onDesktop = sandbox.device("desktop", home: desktop.device.home)
      // Lutris's game file as Lutris writes it, with the game's prefix; the native games'
      // folder as an extra root.
      try writeFile(
        desktop.device.home + "/.config/lutris/games/diablo-2-1.yml",
        "name: Diablo II\ngame_slug: diablo-2\ngame:\n  exe: \(desktop.games)/lutris/d2/Game.exe\n  prefix: \(desktop.games)/lutris/diablo-2\n"
      )
      try makeDirectory(desktop.device.home + "/.config/savevault")
      try writeFile(onDesktop.config, #"{"roots": ["\#(desktop.games)/Native"]}"#)
    }
  }

  @Test("scan finds every installed game with saves, and nothing else, on each machine")
  func scan() async throws {
    let world = try World("scan")
    let deckGames = try jsonList(await world.onDeck.ok(["scan", "--json"]).stdout)
    #expect(
      Set(deckGames.compactMap { $0["game"] as? String }) == ["Hades", "Company of Heroes 2", "Old Game"],
      "\(deckGames)")
    let hades = try #require(deckGames.first { $0["game"] as? String == "Hades" })
    #expect(hades["steamAppId"] as? String == "1145360")
    let locations = hades["locations"] as? [[String: Any]] ?? []
    #expect(
      locations.compactMap { $0["portable"] as? String }.contains("<winDocuments>/Saved Games/Hades"),
      "\(locations)")
    #expect(
      locations.compactMap { $0["path"] as? String }.contains { $0.hasPrefix(world.deck.card) },
      "the save on the SD card: \(locations)")
    let files = hades["files"] as? Int
    let bytes = hades["bytes"] as? Int ?? 0
    #expect(files == 2 && bytes > 0, "files \(files ?? -1), bytes \(bytes)")

    let desktopGames = try jsonList(await world.onDesktop.ok(["scan", "--json"]).stdout)
    #expect(
      Set(desktopGames.compactMap { $0["title"] as? String })
        == ["Disco Elysium", "Control", "Diablo II", "Stardew Valley"], "\(desktopGames)")
    let all = try jsonList(await world.onDesktop.ok(["scan", "--all", "--json"]).stdout)
    let listsHades = all.contains { $0["game"] as? String == "Hades" }
    #expect(listsHades, "--all lists Hades, installed with no save yet")
    let text = try await world.onDeck.ok(["scan"]).stdout
    #expect(text.contains("Hades") && text.contains("<winDocuments>/Saved Games/Hades"), "\(text)")
  }

  @Test("backed up on the Deck with no add, restored into the desktop's own prefix and user folder")
  func deckToDesktop() async throws {
    let world = try World("deck-to-desktop")
    let backup = try await world.onDeck.ok(["backup", "--game", "Hades", "--json"])
    let archive = try #require(jsonObject(backup.stdout)["archive"] as? String)
    let listed = try await runProgramAwaiting("/bin/tar", ["-tf", world.dir.sub("cloud/Hades/" + archive)])
      .stdout
    #expect(listed.contains("1-Hades/Profile1.sav") && listed.contains("remote/Profile1.sav"), "\(listed)")

    let restored = try await world.onDesktop.runAwaiting(["restore", "--game", "Hades", "--latest"])
    #expect(restored.code == 0, "\(restored.stderr)")
    let prefix = world.desktop.device.protonUser(1_145_360, in: world.desktop.steam)
    #expect(text(prefix + "/Documents/Saved Games/Hades/Profile1.sav") == "save", "into the desktop's prefix")
    #expect(
      text(world.desktop.steam + "/userdata/2222/1145360/remote/Profile1.sav") == "cloud",
      "into the desktop's own Steam user folder")
    #expect(try await world.onDesktop.state(["--game", "Hades"]) == "in-sync")

    // The desktop changes the save; the Deck, whose SD card holds the game, gets it back.
    try writeFile(prefix + "/Documents/Saved Games/Hades/Profile1.sav", "played on the desktop")
    try await world.onDesktop.ok(["sync", "--game", "Hades"])
    try await world.onDeck.ok(["sync", "--game", "Hades"])
    let deckSave = world.deck.device.protonUser(1_145_360, in: world.deck.card)
    #expect(text(deckSave + "/Documents/Saved Games/Hades/Profile1.sav") == "played on the desktop")
  }

  @Test("a prefix Steam left in the Deck's other library is neither backed up nor restored to")
  func stalePrefix() async throws {
    let world = try World("stale-prefix")
    let stale = world.deck.device.protonUser(1_145_360, in: world.deck.steam) + "/Documents/Saved Games/Hades"
    try writeFile(stale + "/Old.sav", "before the game moved to the SD card")
    let backup = try await world.onDeck.ok(["backup", "--game", "Hades", "--json"])
    let archive = try #require(jsonObject(backup.stdout)["archive"] as? String)
    let listed = try await runProgramAwaiting("/bin/tar", ["-tf", world.dir.sub("cloud/Hades/" + archive)])
      .stdout
    #expect(listed.contains("Profile1.sav") && !listed.contains("Old.sav"), "\(listed)")

    let restored = try await world.onDesktop.runAwaiting(["restore", "--game", "Hades", "--latest"])
    #expect(restored.code == 0, "\(restored.stderr)")
    let prefix = world.desktop.device.protonUser(1_145_360, in: world.desktop.steam)
    #expect(text(prefix + "/Documents/Saved Games/Hades/Profile1.sav") == "save")
    // Back on the Deck, the save goes to the SD card's prefix, where the game reads it.
    try writeFile(prefix + "/Documents/Saved Games/Hades/Profile1.sav", "played on the desktop")
    try await world.onDesktop.ok(["sync", "--game", "Hades"])
    try await world.onDeck.ok(["sync", "--game", "Hades"])
    let card = world.deck.device.protonUser(1_145_360, in: world.deck.card)
    #expect(text(card + "/Documents/Saved Games/Hades/Profile1.sav") == "played on the desktop")
    #expect(text(stale + "/Old.sav") == "before the game moved to the SD card", "the stale prefix untouched")
  }

  @Test(
    "add --detect writes the locations with placeholders; wrap under Steam adopts a game the config lacks")
  func addAndWrap() async throws {
    let world = try World("add-wrap")
    // A relative container is the current folder's (the test's), stored absolute.
    let added = try await world.onDesktop.runAwaiting([
      "add", "Disco Elysium", "--detect", "--container", "cloud",
    ])
    #expect(added.code == 0, "\(added.stderr)")
    let config = try world.onDesktop.configObject()
    let games = config["games"] as? [String: Any] ?? [:]
    let disco = games["Disco Elysium"] as? [String: Any] ?? [:]
    #expect(disco["container"] as? String == world.dir.sub("cloud"), "\(disco)")
    #expect(
      (disco["locations"] as? [String])?.first == "<winLocalAppDataLow>/ZAUM Studio/Disco Elysium/SaveGames",
      "\(games)")
    #expect(disco["store"] as? String == "gog" && disco["storeGameId"] as? String == "1771589310", "\(disco)")
    #expect(config["roots"] != nil, "the rest of the config file is kept")
    try await world.onDesktop.ok(["backup", "--game", "Disco Elysium"])
    #expect(try await world.onDesktop.state(["--game", "Disco Elysium"]) == "in-sync")

    let unknown = try await world.onDesktop.runAwaiting(["add", "Half-Life 3", "--detect"])
    #expect(unknown.code == 2, "\(unknown.stderr)")
    let badURL = try await world.onDesktop.runAwaiting([
      "add", "Control", "--detect", "--container", "ftp://nas/saves",
    ])
    #expect(badURL.code == 2 && badURL.stderr.contains("ftp"), "a container URL is checked: \(badURL.stderr)")
    #expect(try world.onDesktop.configObject() as NSDictionary == config as NSDictionary, "nothing written")

    let wrapped = try await world.onDeck.runAwaiting(
      ["wrap", "--", "/bin/true"], environment: ["SteamAppId": "1145360"])
    #expect(wrapped.code == 0, "\(wrapped.stderr)")
    #expect(wrapped.stderr.contains("Steam app 1145360 is 'Hades'"), "\(wrapped.stderr)")
    #expect(world.onDeck.archives("Hades", in: world.dir.sub("cloud")).count == 1, "wrap synced its saves")
    let deckGames = try jsonList(await world.onDeck.ok(["games", "--json"]).stdout)
    let hasHades = deckGames.contains { $0["game"] as? String == "Hades" }
    #expect(hasHades, "games lists Hades")
    let again = try await world.onDeck.runAwaiting(
      ["wrap", "--", "/bin/true"], environment: ["SteamAppId": "1145360"])
    #expect(!again.stderr.contains("found with the save-location manifest"), "added once: \(again.stderr)")
    let none = try await world.onDeck.runAwaiting(
      ["wrap", "--", "/bin/true"], environment: ["SteamAppId": "42"])
    #expect(none.code == 0 && none.stderr.contains("running it without syncing"), "\(none.stderr)")
  }

  @Test("wrap under Steam with a manifest that cannot be read says why the game runs unsynced")
  func adoptionFailureIsSaid() async throws {
    let world = try World("adopt-fails")
    let broken = world.dir.sub("broken-manifest.yaml")
    try writeFile(broken, "- not: [a manifest\n")
    let wrapped = try await world.onDeck.runAwaiting(
      ["wrap", "--", "/bin/sh", "-c", "exit 5"],
      environment: ["SteamAppId": "1145360", "SAVEVAULT_MANIFEST": broken])
    #expect(wrapped.code == 5, "the game's own exit code: \(wrapped.stderr)")
    #expect(
      wrapped.stderr.contains("Steam app 1145360 could not be looked up as an installed game")
        && wrapped.stderr.contains(broken), "\(wrapped.stderr)")
    #expect(wrapped.stderr.contains("running it without syncing"), "\(wrapped.stderr)")
  }

  @Test("two Steam users here: which one's folder the save goes in is refused, not guessed")
  func twoSteamUsers() async throws {
    let world = try World("two-users")
    try await world.onDeck.ok(["backup", "--game", "Hades"])
    try makeDirectory(world.desktop.steam + "/userdata/3333")
    let refused = try await world.onDesktop.runAwaiting(["restore", "--game", "Hades", "--latest"])
    #expect(refused.code == 2, "\(refused.stderr)")
    #expect(
      refused.stderr.contains("several folders") || refused.stderr.contains("no place"), "\(refused.stderr)")
    let prefix = world.desktop.device.protonUser(1_145_360, in: world.desktop.steam)
    #expect(
      !FileManager.default.fileExists(atPath: prefix + "/Documents/Saved Games/Hades"), "nothing restored")
  }
}
