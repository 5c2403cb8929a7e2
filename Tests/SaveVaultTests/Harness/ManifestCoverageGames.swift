import Foundation
import Testing

@testable import SaveVault

/// The games of `Tests/Fixtures/manifest-real-games.yaml` (real entries of Ludusavi's manifest)
/// as a fake Steam install holds them: for each entry that applies on Linux, 1–3 small files
/// where the entry says (a glob made concrete: `*.sav` is `slot1.sav`, `**` a nested folder),
/// each with content of its own, so that an archive or a restored folder shows which came
/// through.
struct CoverageGame {
  /// How the game runs here: in its Proton prefix (the entries for Windows, and those with no
  /// `os`), or natively (the entries for Linux, and those with no `os`).
  enum Mode: String {
    case proton, native
  }

  /// One `files` entry (its key, verbatim) or the `registry` (Proton's `user.reg`), and the
  /// files placed for it, relative to the folder its leading placeholder stands for
  /// (`<winAppData>`: the prefix's `AppData/Roaming`; `<root>`: the Steam installation, where
  /// `<storeUserId>` is the device's Steam user; any other `<storeUserId>` is one account's
  /// id, the same on every device).
  struct Placement {
    var template: String
    var files: [String]

    init(_ template: String, _ files: [String]) {
      self.template = template
      self.files = files
    }

    static let registry = "registry"
  }

  var title: String
  var steamID: Int
  var installDir: String
  var mode: Mode
  var placements: [Placement]

  init(_ title: String, _ steamID: Int, _ installDir: String, _ mode: Mode, _ placements: [Placement]) {
    self.title = title
    self.steamID = steamID
    self.installDir = installDir
    self.mode = mode
    self.placements = placements
  }

  /// The 64-bit SteamID where a path (not Steam's `userdata`) holds `<storeUserId>`, on the
  /// Deck (its Steam account 1111); on another device, that device's account's.
  static let accountID = "76561197960266839"

  /// The shapes of the game's placed entries, as the report names them.
  var shapes: [String] {
    var shapes: [String] = [mode.rawValue]
    for placement in placements {
      shapes += placement.shapes(among: placements)
    }
    return unique(shapes)
  }
}

extension CoverageGame.Placement {
  /// The path the template names, without its leading placeholder (`Gnorp/Apologue/options.ron`).
  var tail: String {
    guard template.hasPrefix("<"), let end = template.firstIndex(of: ">") else { return template }
    return String(template[template.index(after: end)...]).trimmingCharacters(in: ["/"])
  }

  var isRegistry: Bool { template == Self.registry }

  var hasWildcard: Bool {
    tail.replacingOccurrences(of: "<storeUserId>", with: "").contains { "*?[".contains($0) }
  }

  /// `file` (the template names one of the placed files), `glob`, or `folder`; then where it
  /// is (`<base>`, Steam Cloud, `<storeUserId>`), and `nested` when it lies inside another
  /// entry of the game or holds one.
  func shapes(among all: [CoverageGame.Placement]) -> [String] {
    if isRegistry { return ["registry"] }
    var shapes: [String] = []
    let concrete = tail.replacingOccurrences(of: "<storeUserId>", with: "*")
    if hasWildcard {
      shapes.append(tail.contains("**") ? "glob **" : "glob")
    } else if files.contains(where: { Glob.matchesPath($0, concrete) }) {
      shapes.append("file")
    } else {
      shapes.append("folder")
    }
    if template.hasPrefix("<base>") { shapes.append("<base>") }
    if template.hasPrefix("<root>/userdata") {
      shapes.append("Steam Cloud")
    } else if template.contains("<storeUserId>") {
      shapes.append("<storeUserId>")
    }
    let isNested = all.contains { other in
      other.template != template && !other.isRegistry
        && (template.hasPrefix(other.template + "/") || other.template.hasPrefix(template + "/"))
    }
    if isNested { shapes.append("nested") }
    return shapes
  }
}

extension Glob {
  /// Whether the relative `path` matches the relative `pattern`, component by component (`**`
  /// any number of components).
  static func matchesPath(_ path: String, _ pattern: String) -> Bool {
    func match(_ names: ArraySlice<Substring>, _ parts: ArraySlice<Substring>) -> Bool {
      guard let part = parts.first else { return names.isEmpty }
      if part == "**" {
        return match(names, parts.dropFirst()) || (!names.isEmpty && match(names.dropFirst(), parts))
      }
      guard let name = names.first, matches(String(name), String(part), caseSensitive: true) else {
        return false
      }
      return match(names.dropFirst(), parts.dropFirst())
    }
    return match(path.split(separator: "/")[...], pattern.split(separator: "/")[...])
  }
}

extension CoverageGame {
  typealias P = Placement

  /// The 37 games of the fixture, in its order, with what is placed for each.
  static let all: [CoverageGame] = [
    CoverageGame(
      "'83", 1_059_220, "'83", .proton,
      [
        P(
          "<winLocalAppData>/XV83/Saved/Config/Windows/*.ini",
          ["XV83/Saved/Config/Windows/GameUserSettings.ini"]),
        P(
          "<winLocalAppData>/XV83/Saved/SaveGames/**/*.sav",
          ["XV83/Saved/SaveGames/SaveSlot1.sav", "XV83/Saved/SaveGames/\(accountID)/Campaign.sav"]),
      ]),
    CoverageGame(
      "(the) Gnorp Apologue", 1_473_350, "Gnorp", .proton,
      [
        P("<base>/options.ron", ["options.ron"]),
        P("<base>/saves", ["saves/slot1.sav"]),
        P("<winAppData>/Gnorp/Apologue/Saves", ["Gnorp/Apologue/Saves/save.dat"]),
        P("<winAppData>/Gnorp/Apologue/options.ron", ["Gnorp/Apologue/options.ron"]),
      ]),
    CoverageGame(
      ".T.E.S.T: Expected Behaviour", 771_710, "Test Expected Behaviour", .native,
      [
        P(
          "<xdgConfig>/unity3d/Veslo Games/Test Expected Behaviour/default.profile",
          ["unity3d/Veslo Games/Test Expected Behaviour/default.profile"]),
        P(
          "<xdgConfig>/unity3d/Veslo Games/Test Expected Behaviour/pref",
          ["unity3d/Veslo Games/Test Expected Behaviour/pref"]),
      ]),
    CoverageGame(
      ".hack//G.U. Last Recode", 525_480, "hackGU", .proton,
      [
        P(
          "<root>/userdata/<storeUserId>/525480/remote/savedata",
          [
            "userdata/<storeUserId>/525480/remote/savedata/hackGU.sav",
            "userdata/<storeUserId>/525480/remote/savedata/system.dat",
          ])
      ]),
    CoverageGame(
      "007 First Light", 3_768_760, "007 First Light", .proton,
      [
        P(
          "<root>/userdata/<storeUserId>/3768760",
          [
            "userdata/<storeUserId>/3768760/remote/KntSlotSaveFile-0",
            "userdata/<storeUserId>/3768760/remotecache.vdf",
          ]
        ),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "0rbitalis", 278_440, "0rbitalis", .proton,
      [
        P("<root>/userdata/<storeUserId>/278440/remote", ["userdata/<storeUserId>/278440/remote/save.sav"]),
        P("<winAppData>/0RBITALIS", ["0RBITALIS/settings.xml", "0RBITALIS/progress.dat"]),
      ]),
    CoverageGame(
      "1 Moment of Time: Silentville", 497_400, "1 Moment Of Time Silentville", .proton,
      [
        P("<winAppData>/2Monkeys/CrossMoT", ["2Monkeys/CrossMoT/Profile1.sav"]),
        P("<winAppData>/2Monkeys/CrossMoT/Settings.sav", ["2Monkeys/CrossMoT/Settings.sav"]),
      ]),
    CoverageGame(
      "1 Screen Platformer", 791_180, "1 Screen Platformer", .proton,
      [P("<winLocalAppData>/OneScreenPlatformStaticGM14", ["OneScreenPlatformStaticGM14/save.ini"])]),
    CoverageGame(
      "1/4平方米的星空", 899_190, "A Piece of Wish upon the Stars", .native,
      [P("<home>/.config/com/lingtanstudio/starrysky*", [".config/com/lingtanstudio/starrysky.save"])]),
    CoverageGame(
      "10 Second Ninja", 271_670, "10 Second Ninja", .proton,
      [
        P("<winLocalAppData>/10_Second_Ninja", ["10_Second_Ninja/savedata.sav"]),
        P("<winLocalAppData>/10_Second_Ninja/settings.ini", ["10_Second_Ninja/settings.ini"]),
      ]),
    CoverageGame(
      "10 Second Ninja X", 435_790, "10 Second Ninja X", .proton,
      [
        P(
          "<winLocalAppData>/_10_Second_Ninja_X_Test/asyncsavegroup/10SNX.sav",
          ["_10_Second_Ninja_X_Test/asyncsavegroup/10SNX.sav"])
      ]),
    CoverageGame(
      "10,000,000", 227_580, "10000000", .native,
      [P("<xdgConfig>/unity3d/EightyEightGames/10000000", ["unity3d/EightyEightGames/10000000/prefs"])]),
    CoverageGame(
      "10-4 Indirect Contact", 1_055_140, "10-4", .proton,
      [
        P(
          "<base>/10-4_Data/StreamingAssets/*.sav",
          ["10-4_Data/StreamingAssets/save1.sav", "10-4_Data/StreamingAssets/save2.sav"])
      ]),
    CoverageGame(
      "100% Orange Juice!", 282_800, "100 Orange Juice", .proton,
      [
        P(
          "<base>/save/<storeUserId>/profile[0,1,3].ojs",
          ["save/\(accountID)/profile0.ojs", "save/\(accountID)/profile1.ojs"]),
        P("<base>/settings.ojc", ["settings.ojc"]),
        P("<root>/userdata/<storeUserId>/282800", ["userdata/<storeUserId>/282800/remote/cloud.ojs"]),
      ]),
    CoverageGame(
      "1000xResist", 1_675_830, "1000xRESIST", .proton,
      [
        P(
          "<home>/Saved Games/Sunset Visitor Studios/1000xRESIST",
          ["Saved Games/Sunset Visitor Studios/1000xRESIST/options.sav"]),
        P(
          "<home>/Saved Games/Sunset Visitor Studios/1000xRESIST/<storeUserId>/cloud",
          ["Saved Games/Sunset Visitor Studios/1000xRESIST/\(accountID)/cloud/slot0.1xr"]),
        P(
          "<home>/Saved Games/Sunset Visitor Studios/1000xRESIST/<storeUserId>/cloud/user.1xr",
          ["Saved Games/Sunset Visitor Studios/1000xRESIST/\(accountID)/cloud/user.1xr"]),
        P(
          "<home>/Saved Games/Sunset Visitor Studios/1000xRESIST/<storeUserId>/local/device.ssv",
          ["Saved Games/Sunset Visitor Studios/1000xRESIST/\(accountID)/local/device.ssv"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "1001 Spikes", 260_790, "1001 Spikes", .proton,
      [
        P("<winDocuments>/My Games/1001 Spikes/Saves/Common.dat", ["My Games/1001 Spikes/Saves/Common.dat"]),
        P(
          "<winDocuments>/My Games/1001 Spikes/Saves/Profile*.sav",
          ["My Games/1001 Spikes/Saves/Profile1.sav", "My Games/1001 Spikes/Saves/Profile2.sav"]),
      ]),
    CoverageGame(
      "100ft Robot Golf", 368_000, "100ft Robot Golf", .proton, [P("<base>/*.sav", ["profile.sav"])]),
    CoverageGame(
      "11-11 Memories Retold", 735_580, "RocketMan", .proton,
      [
        P(
          "<root>/userdata/<storeUserId>/735580/remote",
          ["userdata/<storeUserId>/735580/remote/SaveGame0.sav"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "11th Dream", 949_450, "11th Dream Game", .proton,
      [
        P(
          "<winAppData>/BluePulsarGames/11thDreamGame/<storeUserId>/*.*",
          ["BluePulsarGames/11thDreamGame/\(accountID)/save.dat"])
      ]),
    CoverageGame(
      "12 Is Better than 6", 410_110, "12 is Better Than 6", .native,
      [
        P("<home>/.config/_12ibt6/savedata.ini", [".config/_12ibt6/savedata.ini"]),
        P("<home>/.config/_12ibt6/settings.ini", [".config/_12ibt6/settings.ini"]),
      ]),
    CoverageGame(
      "12 Labours of Hercules", 342_580, "12 Labours of Hercules", .native,
      [
        P("<home>/.Saves/ZOG/Hercules", [".Saves/ZOG/Hercules/Profile1.sav"]),
        P("<home>/.Saves/ZOG/Hercules/Settings.sav", [".Saves/ZOG/Hercules/Settings.sav"]),
      ]),
    CoverageGame(
      "12 Labours of Hercules IV: Mother Nature", 396_800, "12 Labours of Hercules IV Mother Nature", .native,
      [
        P("<home>/Saves/ZOG/Hercules4CE/**/*.sav", ["Saves/ZOG/Hercules4CE/Profiles/Player1.sav"]),
        P("<home>/Saves/ZOG/Hercules4CE/*.sav", ["Saves/ZOG/Hercules4CE/Settings.sav"]),
      ]),
    CoverageGame(
      "1348 Ex Voto", 1_895_900, "1348", .proton,
      [
        P("<base>/P1348/Saved/SaveGames", ["P1348/Saved/SaveGames/Slot0.sav"]),
        P("<winLocalAppData>/P1348/Saved/SaveGames", ["P1348/Saved/SaveGames/Slot1.sav"]),
      ]),
    CoverageGame(
      "140", 242_820, "140", .native,
      [
        P("<base>/140.sav", ["140.sav"]),
        P("<xdgConfig>/unity3d/JeppeCarlsen/140/prefs", ["unity3d/JeppeCarlsen/140/prefs"]),
      ]),
    CoverageGame(
      "171", 1_269_370, "171", .proton,
      [
        P("<winLocalAppData>/BGG/Saved/SaveGames/171Save*.sav", ["BGG/Saved/SaveGames/171Save0.sav"]),
        P(
          "<winLocalAppData>/BGG/Saved/SaveGames/Configuration*.sav",
          ["BGG/Saved/SaveGames/Configuration.sav"]),
      ]),
    CoverageGame(
      "1812: Napoleon Wars", 1_166_230, "1812 Napoleon Wars", .proton,
      [P("<winLocalAppData>/SavesDir/**/*.dat", ["SavesDir/campaign/turn1.dat", "SavesDir/options.dat"])]),
    CoverageGame(
      "1979 Revolution: Black Friday", 388_320, "1979 Revolution", .proton,
      [
        P("<base>/PlayerPrefs.txt", ["PlayerPrefs.txt"]),
        P(
          "<home>/AppData/LocalLow/N-Fusion Interactive/1979 Revolution/*.xml",
          ["AppData/LocalLow/N-Fusion Interactive/1979 Revolution/save1.xml"]),
      ]),
    CoverageGame(
      "1993 Space Machine", 373_480, "1993 Space Machine", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Limit Break/1993 Shenandoah/save_slot_*.dat",
          ["AppData/LocalLow/Limit Break/1993 Shenandoah/save_slot_1.dat"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "Kingdom Come: Deliverance", 379_430, "KingdomComeDeliverance", .proton,
      [
        P("<base>/user.cfg", ["user.cfg"]),
        P(
          "<home>/Saved Games/kingdomcome/profiles/default/*.xml",
          ["Saved Games/kingdomcome/profiles/default/attributes.xml"]),
        P("<home>/Saved Games/kingdomcome/saves", ["Saved Games/kingdomcome/saves/playline0/quicksave.whs"]),
      ]),
    CoverageGame(
      "Kingdom Hearts III", 2_552_450, "KINGDOM HEARTS III", .proton,
      [
        P(
          "<winDocuments>/My Games/KINGDOM HEARTS III/Steam/<storeUserId>",
          ["My Games/KINGDOM HEARTS III/Steam/\(accountID)/SaveData.sav"]),
        P(
          "<winDocuments>/My Games/KINGDOM HEARTS III/Steam/<storeUserId>/Config",
          ["My Games/KINGDOM HEARTS III/Steam/\(accountID)/Config/Config.ini"]),
      ]),
    CoverageGame(
      "Kingdom Rush", 246_420, "Kingdom Rush", .native,
      [
        P("<base>/slot*.data", ["slot1.data"]),
        P("<xdgData>/kingdom_rush/settings.lua", ["kingdom_rush/settings.lua"]),
        P("<xdgData>/kingdom_rush/slot_*.lua", ["kingdom_rush/slot_1.lua", "kingdom_rush/slot_2.lua"]),
      ]),
    CoverageGame(
      "Steredenn", 347_160, "Steredenn", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Pixelnest Studio/Steredenn/steredennou.sav",
          ["AppData/LocalLow/Pixelnest Studio/Steredenn/steredennou.sav"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "Stereo Boy", 2_073_530, "Stereo Boy", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Main Gauche Games/Stereo Boy/steam/<storeUserId>/savedata*",
          ["AppData/LocalLow/Main Gauche Games/Stereo Boy/steam/\(accountID)/savedata0"])
      ]),
    CoverageGame(
      "Steven Universe: Unleash the Light", 1_379_560, "Steven Universe Unleash the Light", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Grumpyface Studios/Unleash the Light/**/*.sav",
          [
            "AppData/LocalLow/Grumpyface Studios/Unleash the Light/slot1.sav",
            "AppData/LocalLow/Grumpyface Studios/Unleash the Light/backup/slot1.sav",
          ])
      ]),
    CoverageGame(
      "Stick Fight: The Game", 674_940, "StickFightTheGame", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Landfall West/Stick Fight_ The Game/CustomLevels/*/Level.bin",
          ["AppData/LocalLow/Landfall West/Stick Fight_ The Game/CustomLevels/MyLevel/Level.bin"]),
        P(
          "<home>/AppData/LocalLow/Landfall West/Stick Fight_ The Game/CustomLevels/*/ScreenShot.png",
          ["AppData/LocalLow/Landfall West/Stick Fight_ The Game/CustomLevels/MyLevel/ScreenShot.png"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "Stick War: Castle Defence", 815_360, "Stick War Castle Defence", .proton,
      [P("<winDocuments>/My Games/Stick War/*.stfu", ["My Games/Stick War/save1.stfu"])]),
    CoverageGame(
      "Sticky Paws", 1_129_090, "Sticky Paws", .native,
      [
        P("<home>/Sticky_Paws_DX", ["Sticky_Paws_DX/save_file/file1.ini"]),
        P("<xdgConfig>/Sticky_Paws_DX", ["Sticky_Paws_DX/config.ini"]),
        P("<xdgData>/Sticky_Paws_DX", ["Sticky_Paws_DX/custom_levels/level1.ini"]),
      ]),
  ]
}

/// A machine with every game of `CoverageGame.all` installed through Steam: its libraries,
/// app manifests, install folders, Proton prefixes (the Windows user's folders made, as Proton
/// makes them), one Steam user.
struct CoverageDevice {
  let device: FakeDevice
  /// The Steam installation as SaveVault finds it (`<root>` of `userdata`).
  let steam: String
  let libraries: [String]
  let steamUser: String
  /// Which library holds the game at position `index` of `CoverageGame.all`.
  let libraryChoice: (Int) -> Int

  /// The Deck: user `deck`, native Steam in `~/.local/share/Steam` (`~/.steam/steam` a link to
  /// it), an SD-card library; games alternate between the two; Steam user 1111.
  static func deck(_ dir: TemporaryDirectory) throws -> CoverageDevice {
    let device = try FakeDevice(dir, user: "deck")
    let steam = device.home + "/.local/share/Steam"
    try device.folder(steam)
    try device.link(device.home + "/.steam/steam", to: steam)
    let card = dir.sub("deck-device/run/media/mmcblk0p1")
    return try CoverageDevice(
      device: device, steam: steam, libraries: [steam, card], steamUser: "1111", libraryChoice: { $0 % 2 })
  }

  /// A desktop: user `alice`, Debian's Steam in `~/.steam/debian-installation` (found through
  /// the `~/.steam/steam` link), a library on a second disk; each game in the other library
  /// than on the Deck; Steam user 2222.
  static func desktop(_ dir: TemporaryDirectory) throws -> CoverageDevice {
    let device = try FakeDevice(dir, user: "alice")
    let installation = device.home + "/.steam/debian-installation"
    try device.folder(installation)
    try device.link(device.home + "/.steam/steam", to: installation)
    let disk = dir.sub("alice-device/mnt/games/SteamLibrary")
    return try CoverageDevice(
      device: device, steam: device.home + "/.steam/steam", libraries: [installation, disk],
      steamUser: "2222",
      libraryChoice: { ($0 + 1) % 2 })
  }

  private init(
    device: FakeDevice, steam: String, libraries: [String], steamUser: String,
    libraryChoice: @escaping (Int) -> Int
  ) throws {
    self.device = device
    self.steam = steam
    self.libraries = libraries
    self.steamUser = steamUser
    self.libraryChoice = libraryChoice
    for library in libraries { try device.folder(library + "/steamapps") }
    try device.libraryFolders(libraries[0], libraries)
    try device.folder(steam + "/userdata/" + steamUser)
    try device.folder(device.home + "/.local/share")
    try device.folder(device.home + "/.config")
    for (index, game) in CoverageGame.all.enumerated() {
      let library = self.library(index)
      try device.file(
        library + "/steamapps/appmanifest_\(game.steamID).acf",
        "\"AppState\"\n{\n\t\"appid\"\t\t\"\(game.steamID)\"\n\t\"name\"\t\t\"\(game.title)\"\n"
          + "\t\"installdir\"\t\t\"\(game.installDir)\"\n}\n")
      try device.folder(base(index))
      guard game.mode == .proton else { continue }
      // A prefix Proton made (the game started once) has its registry files.
      try device.file(
        prefix(index) + "/user.reg",
        "WINE REGISTRY Version 2\n;; All keys relative to \\\\User\\\\S-1-5-21-0-0-0-1000\n\n#arch=win64\n")
      for folder in ["AppData/Roaming", "AppData/Local", "AppData/LocalLow", "Documents", "Saved Games"] {
        try device.folder(prefix(index) + "/drive_c/users/steamuser/" + folder)
      }
    }
  }

  func library(_ index: Int) -> String { libraries[libraryChoice(index)] }

  func base(_ index: Int) -> String {
    library(index) + "/steamapps/common/" + CoverageGame.all[index].installDir
  }

  func prefix(_ index: Int) -> String {
    library(index) + "/steamapps/compatdata/\(CoverageGame.all[index].steamID)/pfx"
  }

  /// Where `relative` of a placement of the game at `index` is on this device.
  func path(_ relative: String, of placement: CoverageGame.Placement, game index: Int) -> String {
    let game = CoverageGame.all[index]
    let user = prefix(index) + "/drive_c/users/steamuser"
    let template = placement.template
    let folder: String
    if placement.isRegistry {
      folder = prefix(index)
    } else if template.hasPrefix("<base>") {
      folder = base(index)
    } else if template.hasPrefix("<root>") {
      folder = steam
    } else if template.hasPrefix("<winAppData>") {
      folder = user + "/AppData/Roaming"
    } else if template.hasPrefix("<winLocalAppDataLow>") {
      folder = user + "/AppData/LocalLow"
    } else if template.hasPrefix("<winLocalAppData>") {
      folder = user + "/AppData/Local"
    } else if template.hasPrefix("<winDocuments>") {
      folder = user + "/Documents"
    } else if template.hasPrefix("<home>") {
      folder = game.mode == .proton ? user : device.home
    } else if template.hasPrefix("<xdgData>") {
      folder = device.home + "/.local/share"
    } else if template.hasPrefix("<xdgConfig>") {
      folder = device.home + "/.config"
    } else {
      folder = "/"
    }
    // A template's `<storeUserId>` outside `userdata` is the player's 64-bit SteamID: the
    // account of this device's Steam (the Deck's is `CoverageGame.accountID`). Below a folder
    // or glob of the game's that names none (an id folder under `**`, or inside another entry's
    // folder) it is only a name in the save, restored as it is.
    let outermost =
      game.placements.first { other in !other.isRegistry && template.hasPrefix(other.template + "/") }?
      .template ?? template
    let steamID = SteamInstallation.steamID64(account: steamUser) ?? steamUser
    let own = outermost.contains("<storeUserId>")
    return folder + "/"
      + relative.replacingOccurrences(of: "<storeUserId>", with: steamUser)
      .replacingOccurrences(of: CoverageGame.accountID, with: own ? steamID : CoverageGame.accountID)
  }

  /// Writes every placed file of every game, its content `content(…)`.
  func place() throws {
    for (index, game) in CoverageGame.all.enumerated() {
      for placement in game.placements {
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
    let games = try LocationManifestReader.games(
      from: Array(try String(contentsOfFile: fixture("manifest-real-games.yaml"), encoding: .utf8).utf8))
    let keys = games.first { $0.title == game.title }?.registry ?? []
    let key = try #require(
      keys.compactMap(WineRegistryKey.init(manifestKey:)).first { $0.file == .user }, "\(game.title): \(keys)"
    )
    let path = key.paths[0].replacingOccurrences(of: "\\", with: "\\\\")
    return
      "WINE REGISTRY Version 2\n\n[Control Panel\\\\Other Game] 1700000000\n\"x\"=\"y\"\n\n[\(path)] 1700000000\n"
      + registryValue(content) + "\n"
  }

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
