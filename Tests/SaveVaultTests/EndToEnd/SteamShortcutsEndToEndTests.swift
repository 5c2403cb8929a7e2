import Foundation
import Testing

@testable import SaveVault

/// Steam's non-Steam games (`userdata/<user>/config/shortcuts.vdf`, a real Deck's file from
/// Tests/Fixtures/shortcuts/, see BinaryKeyValuesTests) through the built binary: a shortcut is
/// matched to the manifest by its name, its saves are in `compatdata/<unsigned app id>/pfx`,
/// and a restore on another machine goes into that machine's prefix for the shortcut of the
/// same name, whose app id differs.
@Suite("Steam shortcuts end to end: non-Steam games in their Proton prefixes", .tags(.medium))
struct SteamShortcutsEndToEndTests {
  static let manifest = [
    LocationManifestGame(
      title: "Elden Ring", files: ["<winAppData>/EldenRing"], installDirs: ["ELDEN RING"], steamID: 1_245_620)
  ]

  /// A Steam install under `home` with `shortcuts` as user 1111's shortcuts.vdf.
  static func steam(home: String, shortcuts: [UInt8]) throws -> String {
    let steam = home + "/.local/share/Steam"
    try writeFile(
      steam + "/steamapps/libraryfolders.vdf",
      "\"libraryfolders\"\n{\n\t\"0\"\n\t{\n\t\t\"path\"\t\t\"\(steam)\"\n\t}\n}\n")
    try makeDirectory(steam + "/userdata/1111/config")
    try Data(shortcuts).write(to: URL(fileURLWithPath: steam + "/userdata/1111/config/shortcuts.vdf"))
    return steam
  }

  static func user(_ steam: String, appID: String) -> String {
    steam + "/steamapps/compatdata/" + appID + "/pfx/drive_c/users/steamuser"
  }

  @Test("a shortcut's game is scanned, added, backed up, and restored into another machine's prefix")
  func shortcutGame() async throws {
    let dir = TemporaryDirectory("shortcuts-e2e")
    let manifestFile = dir.sub("manifest.yaml")
    try writeFile(manifestFile, LocationManifestFixture.yaml(Self.manifest))
    var deck = try Sandbox(
      in: dir, device: "deck",
      environment: ["SAVEVAULT_MANIFEST": manifestFile, "SAVEVAULT_CONTAINER": dir.sub("cloud")])
    deck.home = dir.sub("deck/home/deck")
    let real = try [UInt8](
      Data(contentsOf: URL(fileURLWithPath: fixture("shortcuts/magiusche-shortcuts_1.vdf"))))
    let steam = try Self.steam(home: deck.home, shortcuts: real)
    // Elden Ring's shortcut has app id -369668995 in the file: its prefix is compatdata/3925298301.
    let save = Self.user(steam, appID: "3925298301") + "/AppData/Roaming/EldenRing/76561198000000000"
    try writeFile(save + "/ER0000.sl2", "deck progress")

    let found = try jsonList(await deck.ok(["scan", "--json"]).stdout)
    #expect(found.compactMap { $0["title"] as? String } == ["Elden Ring"], "\(found)")
    let game = try #require(found.first)
    #expect(game["store"] as? String == "steam-shortcut")
    let paths = (game["locations"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    #expect(
      paths.contains {
        $0.hasSuffix("compatdata/3925298301/pfx/drive_c/users/steamuser/AppData/Roaming/EldenRing")
      }, "\(paths)")

    let added = try await deck.runAwaiting(["add", "Elden Ring", "--detect"])
    #expect(added.code == 0, "\(added.stderr)")
    let entry = try #require(
      (try deck.configObject()["games"] as? [String: Any])?["Elden Ring"] as? [String: Any])
    #expect(
      entry["store"] as? String == "steam-shortcut" && entry["storeGameId"] as? String == "Elden Ring",
      "\(entry)")
    try await deck.ok(["backup", "--game", "Elden Ring"])

    // Another machine: the same shortcut name, another app id (Steam derives it from the
    // shortcut's target), its prefix made by a first start.
    var desktop = deck.device("desktop", home: dir.sub("desktop/home/alice"))
    desktop.home = dir.sub("desktop/home/alice")
    let shortcut = BinaryKeyValues([
      .init(key: "appid", value: .int32(Int32(bitPattern: 0x8123_4567))),
      .init(key: "AppName", value: .string("Elden Ring")),
      .init(key: "Exe", value: .string("\"/home/alice/Games/elden/eldenring.exe\"")),
      .init(key: "StartDir", value: .string("\"/home/alice/Games/elden/\"")),
    ])
    let file = BinaryKeyValues([
      .init(key: "shortcuts", value: .map(BinaryKeyValues([.init(key: "0", value: .map(shortcut))])))
    ])
    let desktopSteam = try Self.steam(home: desktop.home, shortcuts: file.written)
    let desktopUser = Self.user(desktopSteam, appID: String(0x8123_4567))
    try makeDirectory(desktopUser + "/AppData/Roaming")
    let restored = try await desktop.runAwaiting(["restore", "--game", "Elden Ring", "--latest"])
    #expect(restored.code == 0, "\(restored.stderr)")
    #expect(text(desktopUser + "/AppData/Roaming/EldenRing/76561198000000000/ER0000.sl2") == "deck progress")

    // The Deck restores its own prefix.
    try writeFile(save + "/ER0000.sl2", "lost progress")
    try await deck.ok(["restore", "--game", "Elden Ring", "--latest"])
    #expect(text(save + "/ER0000.sl2") == "deck progress")
  }
}
