import Foundation
import Testing

@testable import SaveVault

@Suite("Launcher roots: Flatpak sandboxes, damaged files, matching by id before title", .tags(.small))
struct LauncherRootsTests {
  static let manifest = InMemoryManifest(games: [
    LocationManifestGame(title: "Native Quest", files: ["<xdgData>/NativeQuest"], steamID: 700),
    LocationManifestGame(title: "Low Game", files: ["<home>/AppData/LocalLow/Maker/Low Game"], steamID: 710),
    LocationManifestGame(
      title: "Flat Game", files: ["<xdgData>/flatgame"], flatpakID: "com.example.FlatGame"),
    LocationManifestGame(title: "Driver: San Francisco", steamID: 33440),
    LocationManifestGame(title: "Driver San Francisco", steamID: 99999),
    LocationManifestGame(title: "Diablo II"),
    LocationManifestGame(
      title: "Registry Game", files: ["<winDocuments>/Reg"], registry: ["HKEY_CURRENT_USER/Software/Reg"],
      steamID: 720),
    LocationManifestGame(title: "Plain Game", files: ["<winDocuments>/Plain"], steamID: 730),
  ])

  /// A device with Flatpak Steam only.
  static func flatpakSteam(_ dir: TemporaryDirectory) throws -> (FakeDevice, steam: String, sandbox: String) {
    let device = try FakeDevice(dir, user: "alice")
    let sandbox = device.home + "/.var/app/com.valvesoftware.Steam"
    let steam = sandbox + "/.local/share/Steam"
    try device.libraryFolders(steam, [steam])
    return (device, steam, sandbox)
  }

  @Test("a native game of Flatpak Steam keeps its XDG folders in the sandbox, here and on another machine")
  func flatpakXDG() throws {
    let dir = TemporaryDirectory("flatpak-xdg")
    let (device, steam, sandbox) = try Self.flatpakSteam(dir)
    try device.steamGame(700, "Native Quest", in: steam)
    let save = sandbox + "/.local/share/NativeQuest"
    try device.file(save + "/slot1")
    let roots = GameRoots.scan(host: device.host)
    let detected = Detection.detect(roots.games, host: roots.host, lookup: Self.manifest)
    let portable = PortableLocation(template: "<xdgData>/NativeQuest", store: "steam", storeGameID: "700")
    #expect(detected.flatMap(\.locations).map(\.path) == [save])
    #expect(detected.flatMap(\.locations).map(\.portable) == [portable])

    try FileManager.default.removeItem(atPath: save)
    try device.folder(device.home + "/.local/share")
    #expect(portable.resolve(on: GameRoots.scan(host: device.host)) == .wouldBe(save))
    let deck = try FakeDeck(dir)
    #expect(portable.resolve(on: deck.roots) == .wouldBe(deck.device.home + "/.local/share/NativeQuest"))
  }

  @Test("<home> of a Proton game is the prefix's user folder, never the player's home")
  func prefixHome() throws {
    let dir = TemporaryDirectory("prefix-home")
    let (device, steam, _) = try Self.flatpakSteam(dir)
    try device.steamGame(710, "Low Game", in: steam)
    let user = device.protonUser(710, in: steam)
    try device.file(user + "/AppData/LocalLow/Maker/Low Game/save")
    try device.folder(device.home + "/AppData/LocalLow/Maker/Low Game")
    let roots = GameRoots.scan(host: device.host)
    let found = Detection.detect(roots.games, host: roots.host, lookup: Self.manifest).flatMap(\.locations)
    let portable = PortableLocation(
      template: "<home>/AppData/LocalLow/Maker/Low Game", store: "steam", storeGameID: "710")
    // Ludusavi looks in the player's home too; a Proton game of Flatpak Steam sees neither
    // that home nor a folder of it other than a hidden one (`<home>/.config/…`), and the restore
    // puts a save where scanning finds it: only the prefix's.
    #expect(found.map(\.portable) == [portable])
    #expect(portable.resolve(on: roots) == .existing([user + "/AppData/LocalLow/Maker/Low Game"]))
  }

  @Test("id.flatpak finds the game's own sandbox and keeps it under <home>")
  func flatpakID() throws {
    let dir = TemporaryDirectory("flatpak-id")
    let device = try FakeDevice(dir, user: "alice")
    try device.folder(device.home + "/Games/Flat Game")
    let save = device.home + "/.var/app/com.example.FlatGame/data/flatgame"
    try device.file(save + "/s")
    let roots = GameRoots.scan(host: device.host, extraRoots: [device.home + "/Games"])
    let found = Detection.detect(roots.games, host: roots.host, lookup: Self.manifest).flatMap(\.locations)
    #expect(found.map(\.path) == [save])
    #expect(
      found.map(\.portable) == [
        PortableLocation(template: "<home>/.var/app/com.example.FlatGame/data/flatgame")
      ])
  }

  @Test("a damaged library list leaves Steam's own library searched, with a warning")
  func damagedLibraryList() throws {
    let dir = TemporaryDirectory("damaged-vdf")
    let device = try FakeDevice(dir, user: "deck")
    let steam = device.home + "/.local/share/Steam"
    try device.file(steam + "/steamapps/libraryfolders.vdf", "\"libraryfolders\"\n{\n\t\"0\"\n\t{\n")
    try device.steamGame(700, "Native Quest", in: steam)
    try device.file(steam + "/steamapps/appmanifest_800.acf", "\"AppState\" { \"appid\" \"800\" }")
    let roots = GameRoots.scan(host: device.host)
    #expect(roots.games.map(\.storeGameID) == ["700"])
    #expect(roots.warnings.count == 2)
    #expect(
      roots.warnings.first?.contains("libraryfolders.vdf was not read (line 5:") == true, "\(roots.warnings)")
  }

  @Test("a damaged shortcuts.vdf skips the non-Steam games with a warning; a good one gives them")
  func shortcuts() throws {
    let dir = TemporaryDirectory("shortcuts")
    let device = try FakeDevice(dir, user: "deck")
    let steam = device.home + "/.local/share/Steam"
    try device.steamGame(700, "Native Quest", in: steam)
    let real = try Data(contentsOf: URL(fileURLWithPath: fixture("shortcuts/magiusche-shortcuts.vdf")))
    try device.folder(steam + "/userdata/1111/config")
    try real.write(to: URL(fileURLWithPath: steam + "/userdata/1111/config/shortcuts.vdf"))
    try device.folder(steam + "/steamapps/compatdata/4123550851/pfx")
    try device.folder(steam + "/userdata/2222/config")
    try real.prefix(100).write(to: URL(fileURLWithPath: steam + "/userdata/2222/config/shortcuts.vdf"))
    let roots = GameRoots.scan(host: device.host)
    let ark = try #require(roots.games.first { $0.store == .steamShortcut })
    #expect(ark.title == "Ark" && ark.shortcutID == "4123550851")
    #expect(ark.prefix == steam + "/steamapps/compatdata/4123550851/pfx")
    #expect(roots.games.map(\.store) == [.steam, .steamShortcut], "the Steam game is still found")
    #expect(roots.warnings.count == 1, "\(roots.warnings)")
    #expect(
      roots.warnings.first?.hasSuffix(
        "2222/config/shortcuts.vdf were not read (byte 85: a string without its closing NUL)") == true,
      "\(roots.warnings)")
  }

  @Test(
    "a Lutris game installed twice (two game files, a row of its own) is one game with every install's prefix"
  )
  func lutrisInstalledTwice() async throws {
    let dir = TemporaryDirectory("lutris-twice")
    let device = try FakeDevice(dir, user: "alice")
    let lutris = device.home + "/.local/share/lutris"
    try makeDirectory(lutris)
    try FileManager.default.copyItem(
      atPath: fixture("lutris/ludusavi-lutris-split-pga.db"), toPath: lutris + "/pga.db")
    let prefixes = (1...3).map { device.home + "/Games/diablo-\($0)" }
    try await Self.lutrisRows(lutris + "/pga.db", slug: "diablo-2", directory: prefixes[2])
    for (index, prefix) in prefixes.enumerated() {
      if index < 2 {
        try device.file(
          device.home + "/.config/lutris/games/diablo-2-\(index + 1).yml",
          "name: Diablo II\ngame_slug: diablo-2\ngame:\n  prefix: \(prefix)\n")
      }
      try device.file(
        prefix + "/drive_c/users/alice/Documents/Diablo II/Save/hero.d2s", "install \(index + 1)")
    }
    let roots = GameRoots.scan(host: device.host, readYAML: { try YAMLValue.parse($0) })
    #expect(roots.installs(store: .lutris, id: "diablo-2").compactMap(\.prefix) == prefixes, "\(roots.games)")
    let portable = PortableLocation(
      template: "<winDocuments>/Diablo II/Save", store: "lutris", storeGameID: "diablo-2")
    let saves = prefixes.compactMap {
      Platform.realPath($0 + "/drive_c/users/alice/Documents/Diablo II/Save")
    }
    #expect(portable.resolve(on: roots) == .existing(saves))
  }

  /// Sets both rows of Ludusavi's `pga.db` to `slug`, a Windows game of the `wine` runner: the
  /// first in prefix `directory`, with no game file; the second to a game file of its own.
  static func lutrisRows(_ database: String, slug: String, directory: String) async throws {
    let update = """
      import sqlite3, sys
      db = sqlite3.connect(sys.argv[1])
      db.execute("UPDATE games SET slug = ?, name = 'Diablo II', platform = 'Windows', runner = 'wine'", (sys.argv[2],))
      db.execute("UPDATE games SET directory = ?, configpath = 'diablo-2-3' WHERE id = 2", (sys.argv[3],))
      db.execute("UPDATE games SET directory = NULL, configpath = 'diablo-2-1' WHERE id = 3")
      db.commit()
      """
    let updated = try await runProgramAwaiting("/usr/bin/python3", ["-c", update, database, slug, directory])
    #expect(updated.code == 0, "\(updated.stderr)")
  }

  @Test("a damaged pga.db skips the database with a warning naming it; the game files are still read")
  func lutrisDamagedDatabase() throws {
    let dir = TemporaryDirectory("lutris-damaged-db")
    let device = try FakeDevice(dir, user: "alice")
    let database = device.home + "/.local/share/lutris/pga.db"
    let original = try Data(contentsOf: URL(fileURLWithPath: fixture("lutris/ludusavi-lutris-split-pga.db")))
    try device.folder(device.home + "/.local/share/lutris")
    try original.prefix(original.count / 2).write(to: URL(fileURLWithPath: database))
    try device.file(
      device.home + "/.config/lutris/games/diablo-2-1.yml",
      "name: Diablo II\ngame_slug: diablo-2\ngame:\n  prefix: \(device.home)/Games/d2\n")
    let roots = GameRoots.scan(host: device.host, readYAML: { try YAMLValue.parse($0) })
    #expect(roots.games.map(\.storeGameID) == ["diablo-2"])
    #expect(roots.warnings.count == 1 && roots.warnings[0].contains(database), "\(roots.warnings)")
    // A game the database alone knew: the damaged file is named, not the game said missing.
    let portable = PortableLocation(
      template: "<winDocuments>/P1348", store: "lutris", storeGameID: "1348-ex-voto")
    guard case .unresolvable(let why) = portable.resolve(on: roots) else {
      Issue.record("resolved without its database")
      return
    }
    #expect(why.description.contains(database) && !why.description.contains("not installed"), "\(why)")
  }

  @Test("a Steam app id beats a title; Lutris falls back to the title without a slug")
  func matching() throws {
    let driver = InstalledGame(
      store: .steam, storeGameID: "33440", title: "Driver San Francisco", installFolder: nil, prefix: nil,
      source: "/")
    #expect(Detection.manifestGame(for: driver, lookup: Self.manifest)?.title == "Driver: San Francisco")
    let spec = YAMLValue.mapping([("name", .scalar("Diablo II")), ("game_slug", .scalar("diablo-2"))])
    let diablo = try #require(LutrisRoot.game(spec: spec, file: "/l/games/diablo-2-1.yml"))
    #expect(diablo.storeGameID == "diablo-2" && diablo.source == "/l/games")
    #expect(Detection.manifestGame(for: diablo, lookup: Self.manifest)?.title == "Diablo II")
    #expect(LutrisRoot.game(spec: .mapping([]), file: "/l/games/x.yml") == nil)
  }

  @Test("a game's registry keys that its prefix holds are a location each; the whole files never are")
  func registryFiles() throws {
    let dir = TemporaryDirectory("registry")
    let (device, steam, _) = try Self.flatpakSteam(dir)
    for (id, name) in [(720, "Reg"), (730, "Plain")] {
      try device.steamGame(id, name, in: steam)
      try device.file(device.protonUser(id, in: steam) + "/Documents/\(name)/s")
      try device.file(
        steam + "/steamapps/compatdata/\(id)/pfx/user.reg",
        "WINE REGISTRY Version 2\n\n[Software\\\\\(name)\\\\Options] 1700000000\n\"a\"=dword:00000001\n")
      try device.file(steam + "/steamapps/compatdata/\(id)/pfx/system.reg", "WINE REGISTRY Version 2\n")
    }
    let roots = GameRoots.scan(host: device.host)
    let detected = Detection.detect(roots.games, host: roots.host, lookup: Self.manifest)
    #expect(
      detected.map { $0.locations.map(\.portable.template) } == [
        ["<winDocuments>/Reg", "registry:HKEY_CURRENT_USER/Software/Reg"],
        ["<winDocuments>/Plain"],
      ])
  }

  @Test(
    "a standalone Legendary game's prefix: its config.ini section, else Heroic's GamesConfig, else [default]")
  func legendaryPrefix() throws {
    let dir = TemporaryDirectory("legendary-prefix")
    let device = try FakeDevice(dir, user: "alice")
    let legendary = device.home + "/.config/legendary"
    var installed: [String] = []
    for app in ["own", "heroic", "plain"] {
      installed.append(
        #""\#(app)": {"app_name": "\#(app)", "title": "\#(app)", "install_path": "/games/\#(app)"}"#)
    }
    try device.file(legendary + "/installed.json", "{" + installed.joined(separator: ", ") + "}")
    try device.file(
      legendary + "/config.ini",
      "[default]\nwine_prefix = /prefixes/default\n\n[own]\nwine_prefix = /prefixes/own\n")
    for app in ["own", "heroic"] {
      try device.file(
        device.home + "/.config/heroic/GamesConfig/\(app).json",
        #"{"\#(app)": {"winePrefix": "/heroic/\#(app)", "wineVersion": {"type": "wine"}}}"#)
    }
    let roots = GameRoots.scan(host: device.host)
    #expect(roots.games.map(\.storeGameID) == ["heroic", "own", "plain"])
    #expect(roots.games.map(\.prefix) == ["/heroic/heroic", "/prefixes/own", "/prefixes/default"])
  }
}
