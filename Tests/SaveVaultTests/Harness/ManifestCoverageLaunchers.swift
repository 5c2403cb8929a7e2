import Foundation
import Testing

@testable import SaveVault

/// The launcher a device installed a game with: Steam (a library), Heroic's GOG store, Epic
/// (Heroic's Legendary or a Legendary of its own), Lutris, or a non-Steam game added to Steam.
enum CoverageLauncher: String, Sendable, CaseIterable {
  case steam = "Steam"
  case gog = "GOG (Heroic)"
  case epic = "Epic (Heroic / Legendary)"
  case lutris = "Lutris"
  case shortcut = "Steam shortcut"

  /// The store SaveVault keeps the game's locations under, as `scan --json` writes it.
  var store: String {
    switch self {
    case .steam: "steam"
    case .gog: "gog"
    case .epic: "epic"
    case .lutris: "lutris"
    case .shortcut: "steam-shortcut"
    }
  }
}

/// Where one device's launcher put one game: what the placeholders of its entries stand for
/// there.
struct CoverageInstall: Sendable {
  /// `<base>`: the install folder.
  var base: String
  /// The folder holding `drive_c`; nil for a game that runs natively.
  var prefix: String?
  /// The Windows user in the prefix: Proton's `steamuser`, Wine's the login name.
  var prefixUser: String
  /// `<home>`, `<xdgConfig>` and `<xdgData>` of a native game: the host's, or a Flatpak
  /// launcher's sandbox's.
  var home: String
  var xdgConfig: String
  var xdgData: String
  /// `<root>`: the Steam installation (Steam, shortcuts); `<root>/steamapps`: the library
  /// holding the game. Empty for another launcher (its games get no `<root>` entry).
  var root: String = ""
  var library: String = ""
  /// A non-Steam shortcut's app id (`crc32(exe + name) | 0x80000000`, as Steam derives it).
  var shortcutID: UInt32? = nil
}

/// How a device's other launchers are laid out.
struct CoverageLayout: Sendable {
  /// Heroic's config folder, and `~/.var/app/com.heroicgameslauncher.hgl` for Flatpak Heroic.
  var heroic: String
  var heroicSandbox: String?
  /// Where Heroic installs games and makes each game's prefix (`<prefixes>/<title>`).
  var heroicGames: String
  var heroicPrefixes: String
  /// Whether Heroic runs its Windows games with Proton (the prefix's `drive_c` in `pfx`, user
  /// `steamuser`) rather than Wine (user: the login name).
  var heroicProton: Bool
  /// A Legendary of its own (its config folder, where it installs, where its prefixes are)
  /// that holds the Epic games; nil when Heroic's own Legendary does.
  var legendary: String?
  var legendaryGames: String = ""
  var legendaryPrefixes: String = ""
  /// Lutris: the folder of `pga.db`, of its game files, its Flatpak sandbox, where it installs.
  var lutrisData: String
  var lutrisGameFiles: String
  var lutrisSandbox: String?
  var lutrisGames: String
  /// Where the non-Steam games added to Steam are installed.
  var shortcutGames: String
  /// What the report says of it.
  var summary: String
}

extension CoverageGame {
  /// The game's folder name in Heroic's prefix folder: its title without the characters
  /// Heroic removes.
  var heroicFolder: String {
    String(
      title.unicodeScalars.filter {
        CharacterSet.alphanumerics.contains($0) || " -_.".unicodeScalars.contains($0)
      })
  }

  /// Its Epic app name as Legendary records it: 32 hex digits, as most Epic games' are.
  var epicAppName: String {
    var first: UInt64 = 0xcbf2_9ce4_8422_2325
    var second: UInt64 = 0x8422_2325_cbf2_9ce4
    for byte in title.utf8 {
      first = (first ^ UInt64(byte)) &* 0x100_0000_01b3
      second = (second ^ UInt64(byte)) &* 0x100_0000_01b3 &+ 7
    }
    return String(format: "%016llx%016llx", first, second)
  }

  /// The manifest's entry for the game.
  var manifest: LocationManifestGame? { CoverageDevice.manifestGames.first { $0.title == title } }

  /// Its Lutris slug: the manifest's, else the title as lutris.net writes slugs.
  var lutrisSlug: String {
    if let slug = manifest?.lutrisID { return slug }
    var slug = ""
    for character in title.lowercased() {
      if character.isASCII, character.isLetter || character.isNumber {
        slug.append(character)
      } else if !slug.hasSuffix("-") {
        slug.append("-")
      }
    }
    return slug.trimmingCharacters(in: ["-"])
  }

  /// The id SaveVault records the game's locations with (`storeGameId`).
  var storeGameID: String {
    switch launcher {
    case .steam: String(steamID)
    case .gog: manifest?.gogID.map(String.init) ?? ""
    case .epic: epicAppName
    case .lutris: lutrisSlug
    case .shortcut: title
    }
  }
}

extension CoverageDevice {
  /// Where `layout` puts the game at `index` of `CoverageGame.all`.
  func makeInstall(_ index: Int) -> CoverageInstall {
    let game = CoverageGame.all[index]
    let home = device.home
    let isProton = game.mode == .proton
    switch game.launcher {
    case .steam:
      let library = self.library(index)
      return CoverageInstall(
        base: library + "/steamapps/common/" + game.installDir,
        prefix: library + "/steamapps/compatdata/\(game.steamID)/pfx", prefixUser: "steamuser",
        home: nativeHome, xdgConfig: nativeHome + "/.config", xdgData: nativeHome + "/.local/share",
        root: steam, library: library)
    case .gog, .epic:
      let sandbox = layout.heroicSandbox
      let configHome = sandbox.map { $0 + "/config" } ?? home + "/.config"
      let dataHome = sandbox.map { $0 + "/data" } ?? home + "/.local/share"
      if game.launcher == .epic, layout.legendary != nil {
        return CoverageInstall(
          base: layout.legendaryGames + "/" + game.installDir,
          prefix: layout.legendaryPrefixes + "/" + game.epicAppName, prefixUser: device.userName, home: home,
          xdgConfig: home + "/.config", xdgData: home + "/.local/share")
      }
      let prefix = layout.heroicPrefixes + "/" + game.heroicFolder
      return CoverageInstall(
        base: layout.heroicGames + "/" + game.installDir,
        prefix: isProton ? (layout.heroicProton ? prefix + "/pfx" : prefix) : nil,
        prefixUser: layout.heroicProton ? "steamuser" : device.userName, home: home, xdgConfig: configHome,
        xdgData: dataHome)
    case .lutris:
      let sandbox = layout.lutrisSandbox
      let folder = layout.lutrisGames + "/" + game.lutrisSlug
      return CoverageInstall(
        base: isProton ? folder + "/drive_c/Program Files/" + game.installDir : folder,
        prefix: isProton ? folder : nil, prefixUser: device.userName, home: home,
        xdgConfig: sandbox.map { $0 + "/config" } ?? home + "/.config",
        xdgData: sandbox.map { $0 + "/data" } ?? home + "/.local/share")
    case .shortcut:
      let base = layout.shortcutGames + "/" + game.installDir
      let id = Self.shortcutID(exe: Self.shortcutExe(game, in: base), name: game.title)
      return CoverageInstall(
        base: base, prefix: isProton ? steam + "/steamapps/compatdata/\(id)/pfx" : nil,
        prefixUser: "steamuser",
        home: nativeHome, xdgConfig: nativeHome + "/.config", xdgData: nativeHome + "/.local/share",
        root: steam, library: libraries[0], shortcutID: id)
    }
  }

  /// A shortcut's target as Steam writes it (quoted).
  static func shortcutExe(_ game: CoverageGame, in base: String) -> String {
    let name = game.installDir.replacingOccurrences(of: " ", with: "")
    return "\"" + base + "/" + name + (game.mode == .proton ? ".exe" : ".x86_64") + "\""
  }

  /// The app id Steam gives a non-Steam shortcut: CRC-32 of its target and name, top bit set.
  static func shortcutID(exe: String, name: String) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in (exe + name).utf8 {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc | 0x8000_0000
  }

  /// Makes a prefix as a first start of the game leaves it: the Windows user's folders, the
  /// machine folders, `user.reg` and `system.reg`.
  func makePrefix(_ prefix: String, user: String) throws {
    try device.file(
      prefix + "/user.reg",
      "WINE REGISTRY Version 2\n;; All keys relative to \\\\User\\\\S-1-5-21-0-0-0-1000\n\n#arch=win64\n")
    try device.file(
      prefix + "/system.reg", "WINE REGISTRY Version 2\n;; All keys relative to \\\\Machine\n\n#arch=win64\n")
    for folder in ["AppData/Roaming", "AppData/Local", "AppData/LocalLow", "Documents", "Saved Games"] {
      try device.folder(prefix + "/drive_c/users/" + user + "/" + folder)
    }
    if user != "steamuser" { try device.folder(prefix + "/drive_c/users/Public/Documents") }
    try device.folder(prefix + "/drive_c/ProgramData")
  }

  /// Writes the files of the device's other launchers for the games they installed, as the
  /// launchers write them.
  func writeLaunchers() throws {
    var gogInstalled: [[String: Any]] = []
    var gogLibrary: [[String: Any]] = []
    var epicInstalled: [String: Any] = [:]
    var legendaryConfig =
      "[Legendary]\nlocale = en-US\ninstall_dir = \(layout.legendaryGames)\n\n[default]\nwine_executable = wine\n"
    var lutrisRows: [[String]] = []
    var shortcuts: [BinaryKeyValues.Entry] = []
    for (index, game) in CoverageGame.all.enumerated() where game.launcher != .steam {
      let install = installs[index]
      let platform = game.mode == .proton ? "windows" : "linux"
      switch game.launcher {
      case .steam: break
      case .gog:
        let id = game.storeGameID
        gogInstalled.append([
          "platform": platform, "executable": "", "install_path": install.base, "install_size": "1.2 GiB",
          "is_dlc": false, "version": "1.0", "appName": id, "installedWithDLCs": false, "language": "en-US",
          "versionEtag": "\"1764720000\"", "buildId": "5" + String(id.reversed()),
        ])
        gogLibrary.append([
          "runner": "gog", "app_name": id, "title": game.title, "is_installed": true,
          "folder_name": game.installDir,
          "install": ["install_path": install.base, "platform": platform, "is_dlc": false],
        ])
        if game.mode == .proton { try heroicGamesConfig(game) }
      case .epic:
        let id = game.epicAppName
        epicInstalled[id] = [
          "app_name": id, "base_urls": [] as [String], "can_run_offline": true, "egl_guid": "",
          "executable": game.installDir.replacingOccurrences(of: " ", with: "") + ".exe",
          "install_path": install.base, "install_size": 1_234_567_890, "install_tags": [] as [String],
          "is_dlc": false, "launch_parameters": "", "manifest_path": NSNull(), "needs_verification": false,
          "platform": "Windows", "prereq_info": NSNull(), "requires_ot": false, "save_path": NSNull(),
          "title": game.title, "version": "1.0.0",
        ]
        if layout.legendary == nil {
          try heroicGamesConfig(game)
        } else if let prefix = install.prefix {
          legendaryConfig += "\n[\(id)]\nwine_prefix = \(prefix)\n"
        }
      case .lutris:
        let configPath = game.lutrisSlug + "-17647\(String(format: "%05d", index))"
        let folder = layout.lutrisGames + "/" + game.lutrisSlug
        let exe =
          install.base + "/" + game.installDir.replacingOccurrences(of: " ", with: "")
          + (game.mode == .proton ? ".exe" : ".x86_64")
        var spec = "game:\n  args: ''\n  exe: \(Self.yamlQuoted(exe))\n"
        if let prefix = install.prefix {
          spec += "  prefix: \(Self.yamlQuoted(prefix))\n  working_dir: \(Self.yamlQuoted(install.base))\n"
        }
        spec += "game_slug: \(game.lutrisSlug)\nname: \(Self.yamlQuoted(game.title))\nrequires: null\n"
        spec += "slug: \(game.lutrisSlug)-standard\nsystem: {}\nversion: Standard\n"
        spec += game.mode == .proton ? "wine:\n  version: wine-ge-8-26-x86_64\n" : ""
        spec += "year: null\n"
        try device.file(layout.lutrisGameFiles + "/" + configPath + ".yml", spec)
        lutrisRows.append([
          game.title, game.lutrisSlug, game.mode == .proton ? "Windows" : "Linux",
          game.mode == .proton ? "wine" : "linux", folder, configPath,
        ])
      case .shortcut:
        let exe = Self.shortcutExe(game, in: install.base)
        // The Deck's client writes lowercase keys, as a real Deck's file has them.
        let isDeck = name == "deck"
        let entry = BinaryKeyValues([
          .init(key: "appid", value: .int32(Int32(bitPattern: install.shortcutID ?? 0))),
          .init(key: isDeck ? "appname" : "AppName", value: .string(game.title)),
          .init(key: isDeck ? "exe" : "Exe", value: .string(exe)),
          .init(key: "StartDir", value: .string("\"" + install.base + "/\"")),
          .init(key: "icon", value: .string("")), .init(key: "ShortcutPath", value: .string("")),
          .init(key: "LaunchOptions", value: .string("")), .init(key: "IsHidden", value: .int32(0)),
          .init(key: "AllowDesktopConfig", value: .int32(1)), .init(key: "AllowOverlay", value: .int32(1)),
          .init(key: "OpenVR", value: .int32(0)), .init(key: "Devkit", value: .int32(0)),
          .init(key: "DevkitGameID", value: .string("")), .init(key: "DevkitOverrideAppID", value: .int32(0)),
          .init(key: "LastPlayTime", value: .int32(1_764_720_000)),
          .init(key: "FlatpakAppID", value: .string("")),
          .init(key: "tags", value: .map(BinaryKeyValues())),
        ])
        shortcuts.append(.init(key: String(shortcuts.count), value: .map(entry)))
      }
    }
    try json(layout.heroic + "/gog_store/installed.json", ["installed": gogInstalled])
    try json(layout.heroic + "/store_cache/gog_library.json", ["games": gogLibrary])
    if let legendary = layout.legendary {
      try json(legendary + "/installed.json", epicInstalled)
      try device.file(legendary + "/config.ini", legendaryConfig)
    } else {
      try json(layout.heroic + "/legendaryConfig/legendary/installed.json", epicInstalled)
    }
    try lutrisDatabase(lutrisRows)
    let file = BinaryKeyValues([.init(key: "shortcuts", value: .map(BinaryKeyValues(shortcuts)))])
    try writeFile(steam + "/userdata/" + steamUser + "/config/shortcuts.vdf", Data(file.written))
  }

  /// Heroic's `GamesConfig/<app>.json` for a Windows game: its prefix and Wine or Proton.
  func heroicGamesConfig(_ game: CoverageGame) throws {
    let id = game.storeGameID
    let proton = layout.heroicProton
    let wine: [String: Any] =
      proton
      ? [
        "bin": layout.heroicPrefixes + "/../../tools/proton/GE-Proton9-20/proton",
        "name": "Proton - GE-Proton9-20",
        "type": "proton",
      ]
      : [
        "bin": layout.heroic + "/tools/wine/Wine-GE-Proton8-26/bin/wine", "name": "Wine - Wine-GE-Proton8-26",
        "type": "wine", "lib": "", "lib32": "", "wineserver": "",
      ]
    try json(
      layout.heroic + "/GamesConfig/" + id + ".json",
      [
        id: [
          "autoInstallDxvk": true, "autoInstallVkd3d": true, "preferSystemLibs": false, "enableEsync": true,
          "enableFsync": true, "wineVersion": wine,
          "winePrefix": layout.heroicPrefixes + "/" + game.heroicFolder,
          "language": "", "launcherArgs": "", "savesPath": "",
        ] as [String: Any],
        "version": "v0", "explicit": true,
      ])
  }

  /// `pga.db`: Lutris's real schema (the fixture's database, its rows replaced by `rows`:
  /// name, slug, platform, runner, directory, configpath).
  func lutrisDatabase(_ rows: [[String]]) throws {
    let database = layout.lutrisData + "/pga.db"
    try device.folder(layout.lutrisData)
    try? FileManager.default.removeItem(atPath: database)
    try FileManager.default.copyItem(atPath: fixture("lutris/ludusavi-lutris-split-pga.db"), toPath: database)
    let input = device.dir.sub("lutris-rows-\(name).json")
    try writeFile(input, Data(try JSONSerialization.data(withJSONObject: rows)))
    let script = """
      import json, sqlite3, sys
      db = sqlite3.connect(sys.argv[1])
      db.execute("DELETE FROM games")
      for n, (name, slug, platform, runner, directory, configpath) in enumerate(json.load(open(sys.argv[2]))):
          db.execute("INSERT INTO games (name, slug, installer_slug, platform, runner, directory, installed, installed_at, configpath, playtime, hidden) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, 0.5, 0)",
                     (name, slug, slug + "-standard", platform, runner, directory, 1764700000 + n, configpath))
      db.commit()
      """
    let run = try runProgram("/usr/bin/python3", ["-c", script, database, input])
    try #require(run.code == 0, "pga.db: \(run.stderr)")
  }

  func json(_ path: String, _ object: Any) throws {
    try writeFile(
      path, Data(try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])))
  }

  /// `text` as a YAML double-quoted scalar.
  static func yamlQuoted(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      + "\""
  }
}
