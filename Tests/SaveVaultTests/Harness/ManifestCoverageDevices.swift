import Foundation
import Testing

@testable import SaveVault

/// A machine with every game of `CoverageGame.all` installed, each through the launcher the
/// Deck installed it with (`CoverageGame.launcher`), laid out as this machine's launchers lay
/// it out (`CoverageLayout`): Steam's libraries, app manifests, install folders and Proton
/// prefixes (the Windows user's folders made, as Proton makes them), one Steam account;
/// Heroic's, Legendary's and Lutris's files, and Steam's non-Steam shortcuts.
struct CoverageDevice: Sendable {
  let device: FakeDevice
  /// What the report calls it (`desktop`, `flatpak`).
  let name: String
  /// The Steam installation as SaveVault finds it (`<root>` of `userdata`).
  let steam: String
  let libraries: [String]
  /// The Steam account's 32-bit id: its folder in `userdata`.
  let steamUser: String
  /// Where a native game's `<home>`, `<xdgConfig>` and `<xdgData>` are: the host's home and
  /// its `.config` and `.local/share`, or under Flatpak Steam its sandbox's home.
  let nativeHome: String
  /// Which library holds the game at position `index` of `CoverageGame.all`.
  let libraryChoice: @Sendable (Int) -> Int
  /// The other launchers' layout.
  let layout: CoverageLayout
  /// Where each game of `CoverageGame.all` is installed.
  private(set) var installs: [CoverageInstall] = []

  /// The Steam account's 64-bit SteamID, which games write into their paths.
  var steamID64: String { String(76_561_197_960_265_728 + (Int(steamUser) ?? 0)) }

  var xdgConfig: String { nativeHome + "/.config" }
  var xdgData: String { nativeHome + "/.local/share" }

  /// The Deck: user `deck`, native Steam in `~/.local/share/Steam` (`~/.steam/steam` a link to
  /// it), an SD-card library; games alternate between the two; Steam user 1111. Heroic's
  /// AppImage (`~/.config/heroic`) installs GOG and Epic games on the SD card and runs them with
  /// GE-Proton in `~/Games/Heroic/Prefixes/default/<title>/pfx`; Flatpak Lutris (its game files
  /// and `pga.db` in its sandbox's `data/lutris`, as Lutris 0.5.17 and later keep them)
  /// installs in `~/Games/<slug>`, each Windows game's folder its Wine prefix; non-Steam games
  /// added to Steam are on the SD card, their prefixes in Steam's `compatdata`.
  static func deck(_ dir: TemporaryDirectory) throws -> CoverageDevice {
    let device = try FakeDevice(dir, user: "deck")
    let home = device.home
    let steam = home + "/.local/share/Steam"
    try device.folder(steam)
    try device.link(home + "/.steam/steam", to: steam)
    let card = dir.sub("deck-device/run/media/mmcblk0p1")
    let lutris = home + "/.var/app/net.lutris.Lutris"
    let layout = CoverageLayout(
      heroic: home + "/.config/heroic", heroicSandbox: nil, heroicGames: card + "/Heroic",
      heroicPrefixes: home + "/Games/Heroic/Prefixes/default", heroicProton: true, legendary: nil,
      lutrisData: lutris + "/data/lutris", lutrisGameFiles: lutris + "/data/lutris/games",
      lutrisSandbox: lutris,
      lutrisGames: home + "/Games", shortcutGames: card + "/Games",
      summary: "Heroic AppImage (GE-Proton prefixes), Flatpak Lutris, shortcuts on the SD card")
    return try CoverageDevice(
      device: device, name: "deck", steam: steam, libraries: [steam, card], steamUser: "1111",
      nativeHome: home, libraryChoice: { $0 % 2 }, layout: layout)
  }

  /// A desktop: user `alice`, Debian's Steam in `~/.steam/debian-installation` (found through
  /// the `~/.steam/steam` link), a library on a second disk; each game in the other library
  /// than on the Deck; Steam user 2222. Native Heroic holds the GOG games only, installed on the
  /// second disk and run with Wine (not Proton) in `~/Games/Heroic/Prefixes/default/<title>`;
  /// the Epic games are Legendary's alone (`~/.config/legendary`: `installed.json`, each game's
  /// `wine_prefix` in `config.ini`), installed on the disk, prefixes in `~/Games/epic`; native
  /// Lutris as versions before 0.5.17 lay it out (game files in `~/.config/lutris/games`,
  /// `pga.db` in `~/.local/share/lutris`) installs on the disk; the non-Steam games are on the
  /// disk too, so their shortcuts have other targets and app ids than the Deck's.
  static func desktop(_ dir: TemporaryDirectory) throws -> CoverageDevice {
    let device = try FakeDevice(dir, user: "alice")
    let home = device.home
    let installation = home + "/.steam/debian-installation"
    try device.folder(installation)
    try device.link(home + "/.steam/steam", to: installation)
    let disk = dir.sub("alice-device/mnt/games")
    let layout = CoverageLayout(
      heroic: home + "/.config/heroic", heroicSandbox: nil, heroicGames: disk + "/Heroic",
      heroicPrefixes: home + "/Games/Heroic/Prefixes/default", heroicProton: false,
      legendary: home + "/.config/legendary", legendaryGames: disk + "/Epic",
      legendaryPrefixes: home + "/Games/epic",
      lutrisData: home + "/.local/share/lutris", lutrisGameFiles: home + "/.config/lutris/games",
      lutrisSandbox: nil, lutrisGames: disk + "/Lutris", shortcutGames: disk + "/NonSteam",
      summary:
        "native Heroic for GOG (Wine prefixes), Legendary alone for Epic, Lutris before 0.5.17, shortcuts on a second disk"
    )
    return try CoverageDevice(
      device: device, name: "desktop", steam: home + "/.steam/steam",
      libraries: [installation, disk + "/SteamLibrary"],
      steamUser: "2222", nativeHome: home, libraryChoice: { ($0 + 1) % 2 }, layout: layout)
  }

  /// The Flatpak desktop: user `sam` with a fresh home (no `~/.config`, no `~/.local/share`),
  /// Steam from Flathub in `~/.var/app/com.valvesoftware.Steam/.local/share/Steam` (its
  /// `.steam/steam` a link to it), a second library on another disk named in
  /// `libraryfolders.vdf`; games in pairs, two in the main library then two on the disk;
  /// another Steam account (3333), which `config/loginusers.vdf` names by its 64-bit id as
  /// Valve's client writes it.
  ///
  /// Flatpak Steam persists its sandbox's home in `~/.var/app/com.valvesoftware.Steam`, so a
  /// native game's `<home>/X` is `~/.var/app/com.valvesoftware.Steam/X` and its `<xdgConfig>`
  /// and `<xdgData>` that folder's `.config` and `.local/share`. A `<storeUserId>` outside
  /// `userdata` is expected as this machine's account (76561197960269061): the save belongs
  /// to the player who plays on it, as Steam's own `userdata/<id>` folder does.
  ///
  /// Flatpak Heroic (`~/.var/app/com.heroicgameslauncher.hgl/config/heroic`, its own Legendary
  /// in `legendaryConfig`) installs GOG and Epic games in `~/Games/Heroic` and runs them with Wine
  /// in prefixes on the other disk (`/mnt/data/Prefixes/<title>`); native Lutris 0.5.17 or later
  /// keeps its game files beside `pga.db` in `~/.local/share/lutris` and installs in
  /// `~/Games/<slug>`; the non-Steam games are in `~/Games`.
  static func flatpak(_ dir: TemporaryDirectory) throws -> CoverageDevice {
    let device = try FakeDevice(dir, user: "sam")
    let home = device.home
    let sandbox = home + "/.var/app/com.valvesoftware.Steam"
    let steam = sandbox + "/.local/share/Steam"
    try device.folder(steam)
    try device.folder(sandbox + "/.config")
    try device.link(sandbox + "/.steam/steam", to: steam)
    let disk = dir.sub("sam-device/mnt/data")
    let heroic = home + "/.var/app/com.heroicgameslauncher.hgl"
    let layout = CoverageLayout(
      heroic: heroic + "/config/heroic", heroicSandbox: heroic, heroicGames: home + "/Games/Heroic",
      heroicPrefixes: disk + "/Prefixes", heroicProton: false, legendary: nil,
      lutrisData: home + "/.local/share/lutris", lutrisGameFiles: home + "/.local/share/lutris/games",
      lutrisSandbox: nil, lutrisGames: home + "/Games", shortcutGames: home + "/Games",
      summary: "Flatpak Heroic (Wine prefixes on another disk), Lutris 0.5.17 or later, shortcuts in ~/Games")
    let flatpak = try CoverageDevice(
      device: device, name: "flatpak", steam: steam, libraries: [steam, disk + "/SteamLibrary"],
      steamUser: "3333",
      nativeHome: sandbox, libraryChoice: { ($0 / 2) % 2 }, layout: layout)
    try device.file(
      steam + "/config/loginusers.vdf",
      "\"users\"\n{\n\t\"\(flatpak.steamID64)\"\n\t{\n\t\t\"AccountName\"\t\t\"sam_plays\"\n"
        + "\t\t\"PersonaName\"\t\t\"Sam\"\n\t\t\"RememberPassword\"\t\t\"1\"\n\t\t\"WantsOfflineMode\"\t\t\"0\"\n"
        + "\t\t\"SkipOfflineModeWarning\"\t\t\"0\"\n\t\t\"AllowAutoLogin\"\t\t\"1\"\n\t\t\"MostRecent\"\t\t\"1\"\n"
        + "\t\t\"Timestamp\"\t\t\"1764720000\"\n\t}\n}\n")
    return flatpak
  }

  private init(
    device: FakeDevice, name: String, steam: String, libraries: [String], steamUser: String,
    nativeHome: String, libraryChoice: @escaping @Sendable (Int) -> Int, layout: CoverageLayout
  ) throws {
    self.device = device
    self.name = name
    self.steam = steam
    self.libraries = libraries
    self.steamUser = steamUser
    self.nativeHome = nativeHome
    self.libraryChoice = libraryChoice
    self.layout = layout
    installs = CoverageGame.all.indices.map(makeInstall)
    for library in libraries { try device.folder(library + "/steamapps") }
    try device.libraryFolders(libraries[0], libraries)
    try device.folder(steam + "/userdata/" + steamUser)
    try device.folder(xdgData)
    try device.folder(xdgConfig)
    for (index, game) in CoverageGame.all.enumerated() {
      let install = installs[index]
      if game.launcher == .steam {
        try device.file(
          install.library + "/steamapps/appmanifest_\(game.steamID).acf",
          "\"AppState\"\n{\n\t\"appid\"\t\t\"\(game.steamID)\"\n\t\"name\"\t\t\"\(game.title)\"\n"
            + "\t\"installdir\"\t\t\"\(game.installDir)\"\n}\n")
      }
      try device.folder(install.base)
      // A prefix made by the game's first start has its registry files and the user's folders.
      if game.mode == .proton, let prefix = install.prefix {
        try makePrefix(prefix, user: install.prefixUser)
      }
    }
    try writeLaunchers()
  }

  func library(_ index: Int) -> String { libraries[libraryChoice(index)] }

  /// The folders a walk of this device covers: the whole device (its home, libraries and
  /// other disks).
  var roots: [String] { [device.dir.sub(device.userName + "-device")] }

  /// Where `relative` of a placement of the game at `index` is on this device: where the game
  /// reads it. `<storeUserId>` is the device's account, its 32-bit id in `<root>/userdata`
  /// and its 64-bit SteamID anywhere else.
  func path(_ relative: String, of placement: CoverageGame.Placement, game index: Int) -> String {
    let game = CoverageGame.all[index]
    let install = installs[index]
    let prefix = install.prefix ?? install.base + "/no-prefix"
    let user = prefix + "/drive_c/users/" + install.prefixUser
    let template = placement.template
    let folder: String
    if placement.isRegistry {
      folder = prefix
    } else if template.hasPrefix("<base>") {
      folder = install.base
    } else if template.hasPrefix("<root>/steamapps/") {
      folder = install.library
    } else if template.hasPrefix("<root>") {
      folder = install.root
    } else if template.hasPrefix("<winAppData>") {
      folder = user + "/AppData/Roaming"
    } else if template.hasPrefix("<winLocalAppDataLow>") {
      folder = user + "/AppData/LocalLow"
    } else if template.hasPrefix("<winLocalAppData>") {
      folder = user + "/AppData/Local"
    } else if template.hasPrefix("<winDocuments>") {
      folder = user + "/Documents"
    } else if template.hasPrefix("<winProgramData>") {
      folder = prefix + "/drive_c/ProgramData"
    } else if template.hasPrefix("<home>") {
      folder = game.mode == .proton ? user : install.home
    } else if template.hasPrefix("<xdgData>") {
      folder = install.xdgData
    } else if template.hasPrefix("<xdgConfig>") {
      folder = install.xdgConfig
    } else {
      folder = "/"
    }
    // Below a folder or glob of the game's whose template names no `<storeUserId>` (an id
    // folder under `**`, or inside another entry's folder), the id is only a name in the save:
    // the Deck's, restored as it is. An Epic or GOG game's id is the player's account there,
    // the same on every machine.
    let outermost =
      game.placements.first { other in !other.isRegistry && template.hasPrefix(other.template + "/") }?
      .template ?? template
    let account: String
    switch game.launcher {
    case .epic: account = Self.epicAccount
    case .gog: account = Self.gogAccount
    case .steam, .shortcut, .lutris:
      account =
        !outermost.contains("<storeUserId>")
        ? Self.deckSteamID64 : template.hasPrefix("<root>/userdata") ? steamUser : steamID64
    }
    return folder + (placement.isGlued ? "" : "/")
      + relative.replacingOccurrences(of: "<storeUserId>", with: account)
  }

  /// The Deck's account's 64-bit SteamID (its Steam user 1111).
  static let deckSteamID64 = "76561197960266839"

  /// The player's Epic account id (as Legendary passes it to a game, `-epicuserid`) and GOG
  /// user id: the same on every machine the player signs in on.
  static let epicAccount = "9d2b4f61c0e84a7bb3f5e2a1d6c07e48"
  static let gogAccount = "48762339164158326"

  /// Writes every placed file of every game, its content `content(…)`.
  func place() throws {
    for (index, game) in CoverageGame.all.enumerated() {
      for placement in game.placed {
        for file in placement.files {
          let content = Self.content(game, placement, file)
          try device.file(
            path(file, of: placement, game: index),
            placement.isRegistry ? try Self.registryFile(game, holding: content) : content)
        }
      }
    }
  }

  /// A prefix's `user.reg` holding the game's first `HKEY_CURRENT_USER` key of the real
  /// manifest, with `content` as a value (`registryValue`), and another key.
  static func registryFile(_ game: CoverageGame, holding content: String) throws -> String {
    let keys = manifestGames.first { $0.title == game.title }?.registry ?? []
    let key = try #require(
      keys.compactMap(WineRegistryKey.init(manifestKey:)).first { $0.file == .user }, "\(game.title): \(keys)"
    )
    let path = key.paths[0].replacingOccurrences(of: "\\", with: "\\\\")
    return
      "WINE REGISTRY Version 2\n\n[Control Panel\\\\Other Game] 1700000000\n\"x\"=\"y\"\n\n[\(path)] 1700000000\n"
      + registryValue(content) + "\n"
  }

  /// The fixture's games as SaveVault reads them, read once.
  static let manifestGames: [LocationManifestGame] = {
    let text = (try? String(contentsOfFile: fixture("manifest-real-games.yaml"), encoding: .utf8)) ?? ""
    return (try? LocationManifestReader.games(from: Array(text.utf8))) ?? []
  }()

  /// The value line a placed `user.reg` holds `content` in.
  static func registryValue(_ content: String) -> String {
    let escaped = content.trimmingCharacters(in: .newlines).replacingOccurrences(of: "\\", with: "\\\\")
      .replacingOccurrences(of: "\"", with: "\\\"")
    return "\"Coverage\"=\"" + escaped + "\""
  }

  /// A placed file's content: which game, entry and file it is.
  static func content(_ game: CoverageGame, _ placement: CoverageGame.Placement, _ file: String) -> String {
    "savevault coverage: \(game.title) | \(placement.template) | \(file)\n"
  }
}
