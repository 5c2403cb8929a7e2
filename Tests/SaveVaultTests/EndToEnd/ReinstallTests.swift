import Foundation
import Testing

@testable import SaveVault

/// A game uninstalled and installed again, through the built binary on a fake Steam Deck
/// (Hades on its SD card, in a Proton prefix, with a Steam Cloud folder of user 1111): Steam
/// deletes the prefix, and the save in it, with the game. A save found in folders made anew
/// since the agreement is never uploaded, nor taken as the player's progress, unasked; with no
/// save there, the cloud's is restored.
@Suite("A game installed again: its new save is asked about, never uploaded over the cloud's", .tags(.medium))
struct ReinstallTests {
  struct Deck {
    let world: DiscoveryEndToEndTests.World
    var prefix: String { world.dir.sub("deck-device/run/media/mmcblk0p1/steamapps/compatdata/1145360") }
    var saveFolder: String {
      world.deck.device.protonUser(1_145_360, in: world.deck.card) + "/Documents/Saved Games/Hades"
    }
    var userFolder: String { world.deck.steam + "/userdata/1111" }
    var cloud: String { world.dir.sub("cloud") }

    /// The Deck with its save backed up (the prefix's save and the Steam Cloud folder's).
    init(_ label: String) async throws {
      world = try DiscoveryEndToEndTests.World("reinstall-" + label)
      try await world.onDeck.ok(["backup", "--game", "Hades"])
      #expect(try await world.onDeck.state(["--game", "Hades"]) == "in-sync")
    }

    var archives: [String] { world.onDeck.archives("Hades", in: cloud) }

    /// Steam's uninstall: the prefix goes, the save in it too.
    func uninstall() async throws { try FileManager.default.removeItem(atPath: prefix) }

    /// The game's first start after installing it again: a prefix made anew, with the new
    /// game's save when `fresh`.
    func reinstall(fresh: String?) async throws {
      try makeDirectory(world.deck.device.protonUser(1_145_360, in: world.deck.card) + "/Documents")
      if let fresh { try writeFile(saveFolder + "/Profile1.sav", fresh) }
    }

    func sync() async throws -> RunResult {
      try await world.onDeck.runAwaiting(["sync", "--game", "Hades", "--json", "--on-conflict", "fail"])
    }
  }

  @Test("the prefix made anew with the new game's save: sync asks, uploads nothing; the cloud's save is kept")
  func freshSaveAsked() async throws {
    let deck = try await Deck("fresh")
    let before = deck.archives
    try await deck.uninstall()
    try await deck.reinstall(fresh: "new game, 0 hours")
    let sync = try await deck.sync()
    #expect(sync.code == 3, "asked, not uploaded: \(sync.stdout) \(sync.stderr)")
    #expect(try jsonObject(sync.stdout)["state"] as? String == "conflict")
    #expect(deck.archives == before, "nothing uploaded")
    // Asked again, however often the player plays on it, until answered.
    try writeFile(deck.saveFolder + "/Profile1.sav", "new game, 1 hour")
    let backup = try await deck.world.onDeck.runAwaiting(["backup", "--game", "Hades"])
    #expect(backup.code == 3, "a backup asks too: \(backup.stderr)")
    #expect(deck.archives == before, "nothing uploaded")
    // The player's answer settles it.
    let restored = try await deck.world.onDeck.runAwaiting([
      "sync", "--game", "Hades", "--on-conflict", "restore",
    ])
    #expect(restored.code == 0, "\(restored.stderr)")
    #expect(text(deck.saveFolder + "/Profile1.sav") == "save")
    #expect(try await deck.world.onDeck.state(["--game", "Hades"]) == "in-sync")
  }

  @Test("wrap, the prefix made anew by the install: the game starts on the cloud's save, restored before it")
  func restoredBeforeTheGame() async throws {
    let deck = try await Deck("wrap")
    let before = deck.archives
    try await deck.uninstall()
    try await deck.reinstall(fresh: nil)
    // The game notes what save it found, then plays on.
    let game = "cat \"$0/Profile1.sav\" > \"$0/../found.txt\"; echo \"played on\" > \"$0/Profile1.sav\""
    let wrapped = try await deck.world.onDeck.runAwaiting(
      ["wrap", "--game", "Hades", "--on-conflict", "fail", "--", "/bin/sh", "-c", game, deck.saveFolder])
    #expect(wrapped.code == 0, "the game's exit code: \(wrapped.stderr)")
    #expect(text(deck.saveFolder + "/../found.txt") == "save", "the game started on the cloud's save")
    // Played on from the restored save: that goes up after the game, as any session does.
    #expect(deck.archives.count == before.count + 1, "\(deck.archives)")
  }

  @Test("the prefix made anew with no save yet: the cloud's save is restored, not asked about as a deletion")
  func emptyPrefixRestored() async throws {
    let deck = try await Deck("empty")
    let before = deck.archives
    try await deck.uninstall()
    try await deck.reinstall(fresh: nil)
    let sync = try await deck.sync()
    #expect(sync.code == 0, "\(sync.stdout) \(sync.stderr)")
    #expect(try jsonObject(sync.stdout)["action"] as? String == "restored")
    #expect(text(deck.saveFolder + "/Profile1.sav") == "save")
    #expect(deck.archives == before)
  }

  @Test("the prefix gone and made again by the game itself while wrap ran it: the next sync asks")
  func prefixMadeDuringWrap() async throws {
    let deck = try await Deck("during-wrap")
    let before = deck.archives
    try await deck.uninstall()
    // With no prefix, the save has no place: the game runs unwrapped, and makes its prefix.
    let game = "mkdir -p \"$0\" && echo \"new game\" > \"$0/Profile1.sav\""
    let wrapped = try await deck.world.onDeck.runAwaiting(
      ["wrap", "--", "/bin/sh", "-c", game, deck.saveFolder], environment: ["SteamAppId": "1145360"])
    #expect(wrapped.code == 0, "\(wrapped.stderr)")
    #expect(deck.archives == before)
    let sync = try await deck.sync()
    #expect(sync.code == 3, "asked, not uploaded: \(sync.stdout) \(sync.stderr)")
    #expect(deck.archives == before, "nothing uploaded")
    let again = try await deck.world.onDeck.runAwaiting(
      ["wrap", "--on-conflict", "fail", "--", "/bin/true"], environment: ["SteamAppId": "1145360"])
    #expect(again.code == 0, "the game still runs: \(again.stderr)")
    #expect(deck.archives == before, "nothing uploaded by wrap either")
  }

  @Test("the Steam user folder replaced, with a new Steam Cloud save: sync asks, uploads nothing")
  func userFolderReplaced() async throws {
    let deck = try await Deck("user")
    let before = deck.archives
    try FileManager.default.removeItem(atPath: deck.userFolder)
    try writeFile(deck.userFolder + "/1145360/remote/Profile1.sav", "a new cloud file")
    let sync = try await deck.sync()
    #expect(sync.code == 3, "asked, not uploaded: \(sync.stdout) \(sync.stderr)")
    #expect(deck.archives == before, "nothing uploaded")
  }

  @Test("the game moved to another library with its prefix: in sync, nothing asked or uploaded")
  func movedLibrary() async throws {
    let deck = try await Deck("moved")
    let before = deck.archives
    let steam = deck.world.deck.steam
    let card = deck.world.deck.card
    for path in [
      "steamapps/appmanifest_1145360.acf", "steamapps/common/Hades", "steamapps/compatdata/1145360",
    ] {
      try makeDirectory(((steam + "/" + path) as NSString).deletingLastPathComponent)
      try FileManager.default.moveItem(atPath: card + "/" + path, toPath: steam + "/" + path)
    }
    let sync = try await deck.sync()
    #expect(sync.code == 0, "\(sync.stdout) \(sync.stderr)")
    #expect(try jsonObject(sync.stdout)["state"] as? String == "in-sync")
    #expect(deck.archives == before)
  }

  @Test("moved to another library and started as a new game there: asked, not uploaded")
  func movedLibraryFresh() async throws {
    let deck = try await Deck("moved-fresh")
    let before = deck.archives
    try await deck.uninstall()
    let steam = deck.world.deck.steam
    try deck.world.deck.device.steamGame(1_145_360, "Hades", in: steam)
    try FileManager.default.removeItem(atPath: deck.world.deck.card + "/steamapps/appmanifest_1145360.acf")
    try writeFile(
      deck.world.deck.device.protonUser(1_145_360, in: steam) + "/Documents/Saved Games/Hades/Profile1.sav",
      "new game")
    let sync = try await deck.sync()
    #expect(sync.code == 3, "asked, not uploaded: \(sync.stdout) \(sync.stderr)")
    #expect(deck.archives == before, "nothing uploaded")
  }
}
