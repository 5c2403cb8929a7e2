import Foundation
import Testing

@testable import SaveVault

/// The manifest as a test states it, looked up as the real index does: ids, exact then
/// normalized titles, install folders.
struct InMemoryManifest: LocationManifestLookup {
  var games: [LocationManifestGame]

  func game(steamAppID: UInt32) -> LocationManifestGame? {
    games.first { $0.steamID == steamAppID } ?? games.first { $0.steamExtra.contains(steamAppID) }
  }

  func game(gogID: UInt64) -> LocationManifestGame? {
    games.first { $0.gogID == gogID } ?? games.first { $0.gogExtra.contains(gogID) }
  }

  func game(lutrisSlug: String) -> LocationManifestGame? { games.first { $0.lutrisID == lutrisSlug } }

  func game(title: String) -> LocationManifestGame? {
    games.first { $0.title == title }
      ?? games.first { LocationManifestTitle.normalized($0.title) == LocationManifestTitle.normalized(title) }
  }

  func games(installDir folder: String) -> [LocationManifestGame] {
    games.filter {
      $0.installDirs.contains {
        LocationManifestTitle.normalized($0) == LocationManifestTitle.normalized(folder)
      }
    }
  }

  /// The games of the two devices' tests.
  static let saves = InMemoryManifest(games: [
    LocationManifestGame(
      title: "Hades", files: ["<winDocuments>/Saved Games/Hades"], installDirs: ["Hades"], steamID: 1_145_360),
    LocationManifestGame(
      title: "Company of Heroes 2", files: ["<winDocuments>/My Games/Company of Heroes 2"], steamID: 231_430),
    LocationManifestGame(title: "Old Game", files: ["<winDocuments>/OldGame"], steamID: 300),
    LocationManifestGame(title: "Celeste", files: ["<winLocalAppData>/Celeste"], steamID: 504_230),
    LocationManifestGame(title: "Portal", files: ["<winDocuments>/Portal"], steamID: 400),
    LocationManifestGame(
      title: "Disco Elysium", files: ["<winLocalAppDataLow>/ZAUM Studio/Disco Elysium/SaveGames"],
      gogID: 1_771_589_310),
    LocationManifestGame(title: "Control", files: ["<winLocalAppData>/Remedy/Control"]),
    LocationManifestGame(title: "Diablo II", files: ["<winDocuments>/Diablo II/Save"], lutrisID: "diablo-2"),
    LocationManifestGame(title: "Stardew Valley", files: ["<xdgConfig>/StardewValley/Saves"]),
    LocationManifestGame(title: "Terraria", files: ["<xdgData>/Terraria"]),
  ])
}

/// A fake machine under a test's temporary folder: a home of its own and whatever a
/// launcher would have written there.
struct FakeDevice {
  let dir: TemporaryDirectory
  let home: String
  let userName: String

  init(_ dir: TemporaryDirectory, user: String) throws {
    self.dir = dir
    userName = user
    home = dir.sub("\(user)-device/home/\(user)")
    try makeDirectory(home)
  }

  var host: HostFolders { HostFolders(home: home, userName: userName) }

  func file(_ path: String, _ content: String = "save") throws { try writeFile(path, content) }

  func folder(_ path: String) throws { try makeDirectory(path) }

  func link(_ path: String, to target: String) throws {
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
  }

  /// A Steam library's entry for an installed game: its app manifest and install folder.
  func steamGame(_ id: Int, _ name: String, in library: String) throws {
    try file(
      library + "/steamapps/appmanifest_\(id).acf",
      "\"AppState\"\n{\n\t\"appid\"\t\t\"\(id)\"\n\t\"name\"\t\t\"\(name)\"\n\t\"installdir\"\t\t\"\(name)\"\n}\n"
    )
    try folder(library + "/steamapps/common/" + name)
  }

  /// The Proton prefix's Windows user folder of a Steam app in `library`.
  func protonUser(_ id: Int, in library: String) -> String {
    library + "/steamapps/compatdata/\(id)/pfx/drive_c/users/steamuser"
  }

  func libraryFolders(_ root: String, _ libraries: [String]) throws {
    let entries = libraries.enumerated().map { "\t\"\($0)\"\n\t{\n\t\t\"path\"\t\t\"\($1)\"\n\t}\n" }.joined()
    try file(root + "/steamapps/libraryfolders.vdf", "\"libraryfolders\"\n{\n\(entries)}\n")
  }
}

/// The Steam Deck: native Steam in `~/.local/share/Steam` (`~/.steam/steam` links to it), an SD
/// card library holding Hades and its prefix, Steam user A.
struct FakeDeck {
  let device: FakeDevice
  var steam: String { device.home + "/.local/share/Steam" }
  var card: String { device.dir.sub("deck-device/run/media/mmcblk0p1") }

  init(_ dir: TemporaryDirectory) throws {
    device = try FakeDevice(dir, user: "deck")
    let steam = self.steam
    let card = self.card
    try device.folder(card)
    try device.link(device.home + "/.steam/steam", to: steam)
    try device.libraryFolders(steam, [steam, card])
    try device.folder(steam + "/userdata/1111")
    try device.steamGame(1_145_360, "Hades", in: card)
    try device.file(device.protonUser(1_145_360, in: card) + "/Documents/Saved Games/Hades/Profile1.sav")
    try device.folder(device.protonUser(1_145_360, in: card) + "/Documents/Saved Games/Hades II")
    try device.file(steam + "/userdata/1111/1145360/remote/Profile1.sav", "cloud")
    try device.steamGame(231_430, "Company of Heroes 2", in: steam)
    try device.file(
      device.protonUser(231_430, in: steam) + "/Documents/my games/company of heroes 2/save.bin")
    try device.steamGame(300, "Old Game", in: steam)
    try device.file(device.protonUser(300, in: steam) + "/My Documents/OldGame/slot1")
    try device.steamGame(504_230, "Celeste", in: steam)
    try device.folder(device.protonUser(504_230, in: steam) + "/AppData/Local/Celeste2")
    try device.file(device.protonUser(400, in: steam) + "/Documents/Portal/save")
    try device.file(device.home + "/.config/heroic/legendaryConfig/legendary/installed.json", "{ damaged")
  }

  var roots: GameRoots { GameRoots.scan(host: device.host) }

  /// The Deck and the desktop, each with a sandbox running the binary in its home, sharing a
  /// folder container and a manifest of `games`.
  static func withDesktop(_ dir: TemporaryDirectory, manifest games: [LocationManifestGame]) throws -> (
    deck: FakeDeck, desktop: FakeDesktop, onDeck: Sandbox, onDesktop: Sandbox
  ) {
    let deck = try FakeDeck(dir)
    let desktop = try FakeDesktop(dir)
    let manifest = dir.sub("manifest.yaml")
    try writeFile(manifest, LocationManifestFixture.yaml(games))
    var sandbox = try Sandbox(
      in: dir, device: "deck",
      environment: ["SAVEVAULT_MANIFEST": manifest, "SAVEVAULT_CONTAINER": dir.sub("cloud")])
    sandbox.home = deck.device.home
    return (deck, desktop, sandbox, sandbox.device("desktop", home: desktop.device.home))
  }
}

/// A desktop: user alice, Flatpak Steam with Hades in its main library (no save yet), Steam user
/// B; Heroic with a GOG game in a Wine prefix and an Epic game in a Proton prefix; Lutris with a
/// prefix; native games in an extra root.
struct FakeDesktop {
  let device: FakeDevice
  var sandbox: String { device.home + "/.var/app/com.valvesoftware.Steam" }
  var steam: String { sandbox + "/.local/share/Steam" }
  var games: String { device.home + "/Games" }
  var heroic: String { device.home + "/.config/heroic" }

  static let lutrisText = "name: Diablo II\ngame_slug: diablo-2\n"

  init(_ dir: TemporaryDirectory) throws {
    device = try FakeDevice(dir, user: "alice")
    try device.link(sandbox + "/.steam/steam", to: steam)
    try device.libraryFolders(steam, [steam])
    try device.folder(steam + "/userdata/2222")
    try device.steamGame(1_145_360, "Hades", in: steam)
    try device.folder(device.protonUser(1_145_360, in: steam) + "/Documents")

    let disco = games + "/Heroic/Prefixes/Disco Elysium"
    try device.file(
      heroic + "/gog_store/installed.json",
      #"{"installed": [{"appName": "1771589310", "platform": "windows", "install_path": "\#(games)/Heroic/DE"}]}"#
    )
    try device.file(
      heroic + "/store_cache/gog_library.json",
      #"{"games": [{"app_name": "1771589310", "title": "Disco Elysium - The Final Cut"}]}"#)
    try device.file(
      heroic + "/GamesConfig/1771589310.json",
      #"{"1771589310": {"winePrefix": "\#(disco)", "wineVersion": {"type": "wine"}}}"#)
    try device.file(
      disco + "/drive_c/users/alice/AppData/LocalLow/ZAUM Studio/Disco Elysium/SaveGames/1.ntwtf")
    try device.folder(disco + "/drive_c/users/Public")

    let control = games + "/Heroic/Prefixes/Control"
    try device.file(
      heroic + "/legendaryConfig/legendary/installed.json",
      #"{"Calluna": {"app_name": "Calluna", "title": "Control", "install_path": "\#(games)/Heroic/Control"}}"#
    )
    try device.file(
      heroic + "/GamesConfig/Calluna.json",
      #"{"Calluna": {"winePrefix": "\#(control)", "wineVersion": {"type": "proton"}}}"#)
    try device.file(control + "/pfx/drive_c/users/steamuser/AppData/Local/Remedy/Control/slot")

    try device.file(device.home + "/.config/lutris/games/diablo-2-1.yml", Self.lutrisText)
    try device.file(games + "/lutris/diablo-2/drive_c/users/alice/Documents/Diablo II/Save/hero.d2s")

    try device.folder(games + "/Native/Stardew Valley")
    try device.file(device.home + "/.config/StardewValley/Saves/Farm_1/Farm_1")
    try device.folder(device.home + "/.config/StardewValley2/Saves")
    try device.folder(games + "/Native/Terraria")
    try device.file(device.home + "/.local/share/terraria/Players/p.plr")
  }

  /// The Lutris game file as libyaml would read it (the YAML reader is supplied elsewhere).
  var lutrisSpec: YAMLValue {
    .mapping([
      ("name", .scalar("Diablo II")), ("game_slug", .scalar("diablo-2")),
      (
        "game",
        .mapping([
          ("exe", .scalar(games + "/lutris/d2/Game.exe")), ("prefix", .scalar(games + "/lutris/diablo-2")),
        ])
      ),
    ])
  }

  var roots: GameRoots {
    let spec = lutrisSpec
    return GameRoots.scan(
      host: device.host, extraRoots: [games + "/Native"],
      readYAML: { bytes in
        guard String(decoding: bytes, as: UTF8.self) == Self.lutrisText else {
          throw CocoaError(.fileReadCorruptFile)
        }
        return spec
      })
  }
}
