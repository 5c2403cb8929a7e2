import Foundation
import Testing

@testable import SaveVault

/// Heroic's Amazon games (Heroic's `store_cache/nile_library.json` and Nile's own
/// `nile_config/nile/installed.json` and `library.json`), its sideloaded games
/// (`sideload_apps/library.json`) and a standalone Legendary (`~/.config/legendary`), each file
/// in the shape its program writes (Ludusavi's launcher fixtures, github.com/mtkennerly/ludusavi
/// `tests/launchers/heroic-nile`, `heroic-sideload`, `legendary`; Nile's `nile/utils/importer.py`
/// at github.com/imLinguin/nile), with real manifest entries (Tests/Fixtures/
/// manifest-real-games.yaml): found by `scan`, added, backed up and restored through the binary.
@Suite("Heroic's Amazon and sideloaded games, standalone Legendary, end to end", .tags(.medium))
struct HeroicStoresEndToEndTests {
  @Test("each is scanned, added with its store, backed up from its Wine prefix and restored")
  func stores() async throws {
    let sandbox = try Sandbox.withRealManifest("heroic-stores")
    let home = sandbox.home
    let heroic = home + "/.config/heroic"
    let games = home + "/Games/Heroic"
    func prefix(_ name: String) -> String { games + "/Prefixes/" + name }
    func gamesConfig(_ app: String, _ prefix: String) throws {
      try writeFile(
        heroic + "/GamesConfig/\(app).json",
        #"{"\#(app)": {"winePrefix": "\#(prefix)", "wineVersion": {"type": "wine"}}}"#)
    }
    // Amazon, from Heroic's cache of Nile's library.
    try writeFile(
      heroic + "/store_cache/nile_library.json",
      #"{"library": [{"app_name": "amzn1.adg.product.1001", "install": {"install_path": "\#(games)/1001 Spikes", "install_size": "1 MiB", "version": "1", "platform": "Windows"}, "title": "1001 Spikes"}]}"#
    )
    try gamesConfig("amzn1.adg.product.1001", prefix("1001 Spikes"))
    let spikes =
      prefix("1001 Spikes") + "/drive_c/users/alice/Documents/My Games/1001 Spikes/Saves/Profile1.sav"
    // Amazon, from Nile's own files only.
    try writeFile(
      heroic + "/nile_config/nile/installed.json",
      #"[{"id": "amzn1.adg.product.ninja", "version": "2", "path": "\#(games)/10SN"}]"#)
    try writeFile(
      heroic + "/nile_config/nile/library.json",
      #"[{"id": "ent-1", "product": {"id": "amzn1.adg.product.ninja", "title": "10 Second Ninja"}}]"#)
    try gamesConfig("amzn1.adg.product.ninja", prefix("ninja"))
    let ninja = prefix("ninja") + "/drive_c/users/alice/AppData/Local/10_Second_Ninja/save.dat"
    // Sideloaded.
    try writeFile(
      heroic + "/sideload_apps/library.json",
      #"{"games": [{"runner": "sideload", "app_name": "x7Yq2", "title": "0rbitalis", "install": {"executable": "\#(games)/orb/0RBITALIS.exe", "platform": "Windows", "is_dlc": false}, "folder_name": "\#(games)/orb"}]}"#
    )
    try gamesConfig("x7Yq2", prefix("orb"))
    let orbitalis = prefix("orb") + "/drive_c/users/alice/AppData/Roaming/0RBITALIS/save.dat"
    // Standalone Legendary, its game's prefix in config.ini.
    try writeFile(
      home + "/.config/legendary/installed.json",
      #"{"Hydrangea": {"app_name": "Hydrangea", "can_run_offline": true, "executable": "1348.exe", "install_path": "\#(home)/Legendary/1348", "is_dlc": false, "platform": "Windows", "title": "1348 Ex Voto", "version": "1.1"}}"#
    )
    try writeFile(
      home + "/.config/legendary/config.ini",
      "[Legendary]\nlog_level = debug\n\n[Hydrangea]\nwine_prefix = \(home)/Legendary/prefix\n")
    let voto = home + "/Legendary/prefix/drive_c/users/alice/AppData/Local/P1348/Saved/SaveGames/slot.sav"
    for save in [spikes, ninja, orbitalis, voto] { try writeFile(save, "progress") }
    for folder in [games + "/1001 Spikes", games + "/10SN", games + "/orb", home + "/Legendary/1348"] {
      try makeDirectory(folder)
    }

    let found = try jsonList(await sandbox.ok(["scan", "--json"]).stdout)
    let stores = Dictionary(
      found.compactMap { game in (game["title"] as? String).map { ($0, game["store"] as? String ?? "") } }
    ) { a, _ in a }
    #expect(
      stores == [
        "1001 Spikes": "amazon", "10 Second Ninja": "amazon", "0rbitalis": "sideload", "1348 Ex Voto": "epic",
      ], "\(found)")

    for (game, save) in [
      ("1001 Spikes", spikes), ("10 Second Ninja", ninja), ("0rbitalis", orbitalis), ("1348 Ex Voto", voto),
    ] {
      try await sandbox.addBackUpAndRestore(game, save: save, content: "progress")
    }
    let entries = try sandbox.configObject()["games"] as? [String: Any] ?? [:]
    let orb = entries["0rbitalis"] as? [String: Any] ?? [:]
    #expect(orb["store"] as? String == "sideload" && orb["storeGameId"] as? String == "0rbitalis", "\(orb)")
    let spikesEntry = entries["1001 Spikes"] as? [String: Any] ?? [:]
    #expect(spikesEntry["storeGameId"] as? String == "amzn1.adg.product.1001", "\(spikesEntry)")
  }
}
