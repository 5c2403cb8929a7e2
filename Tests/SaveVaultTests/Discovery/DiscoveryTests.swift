import Foundation
import Testing

@testable import SaveVault

@Suite("Discovery: installed games and their saves on a Deck and a desktop", .tags(.small))
struct DiscoveryTests {
  static let manifest = InMemoryManifest.saves

  @Test("the Deck: one native Steam, both libraries, each installed game with the prefix of its library")
  func deckRoots() throws {
    let deck = try FakeDeck(TemporaryDirectory("deck-roots"))
    let roots = deck.roots
    #expect(roots.steam.map(\.root) == [deck.steam])
    #expect(roots.steam.first?.libraries == [deck.steam, deck.card])
    #expect(roots.steam.first?.userIDs == ["1111"])
    let hades = try #require(roots.games.first { $0.storeGameID == "1145360" })
    #expect(hades.installFolder == deck.card + "/steamapps/common/Hades")
    #expect(hades.prefix == deck.card + "/steamapps/compatdata/1145360/pfx")
    #expect(hades.source == deck.card && hades.steamRoot == deck.steam && hades.sandbox == nil)
    #expect(Set(roots.games.compactMap(\.storeGameID)) == ["1145360", "231430", "300", "504230"])
    #expect(
      roots.warnings.count == 1 && roots.warnings[0].contains("legendary/installed.json"), "\(roots.warnings)"
    )
  }

  @Test("the Deck: every installed game with saves is detected, and nothing else")
  func deckDetection() throws {
    let deck = try FakeDeck(TemporaryDirectory("deck-detect"))
    let roots = deck.roots
    let detected = Detection.detect(roots.games, host: roots.host, lookup: Self.manifest)
    #expect(detected.map(\.manifest.title).sorted() == ["Company of Heroes 2", "Hades", "Old Game"])

    let hades = try #require(detected.first { $0.manifest.title == "Hades" })
    let prefixUser = deck.device.protonUser(1_145_360, in: deck.card)
    #expect(
      hades.locations.map(\.path) == [
        prefixUser + "/Documents/Saved Games/Hades", deck.steam + "/userdata/1111/1145360/remote",
      ])
    #expect(
      hades.locations.map(\.portable) == [
        PortableLocation(
          template: "<winDocuments>/Saved Games/Hades", store: "steam", storeGameID: "1145360"),
        PortableLocation(
          template: "<root>/userdata/<storeUserId>/1145360/remote", store: "steam", storeGameID: "1145360"),
      ])
    let isEveryFolder = hades.locations.allSatisfy { $0.isFolder }
    #expect(isEveryFolder)
    #expect(hades.locations[0].contents() == (files: 1, bytes: 4))

    let heroes = try #require(detected.first { $0.manifest.title == "Company of Heroes 2" })
    #expect(heroes.locations.map(\.portable.template) == ["<winDocuments>/my games/company of heroes 2"])

    let old = try #require(detected.first { $0.manifest.title == "Old Game" })
    #expect(
      old.locations.map(\.path) == [deck.device.protonUser(300, in: deck.steam) + "/My Documents/OldGame"])
    #expect(old.locations.map(\.portable.template) == ["<winDocuments>/OldGame"])
  }

  @Test("the desktop: Flatpak Steam, Heroic GOG and Epic, Lutris and native games")
  func desktopDetection() throws {
    let desktop = try FakeDesktop(TemporaryDirectory("desktop-detect"))
    let roots = desktop.roots
    #expect(roots.warnings == [])
    #expect(roots.steam.map(\.root) == [desktop.steam])
    #expect(roots.steam.first?.sandbox == desktop.sandbox)
    let detected = Detection.detect(roots.games, host: roots.host, lookup: Self.manifest)
    #expect(detected.map(\.manifest.title) == ["Disco Elysium", "Control", "Diablo II", "Stardew Valley"])
    #expect(detected.map(\.installed.store) == [.gog, .epic, .lutris, .other])
    #expect(detected.map(\.installed.title)[0] == "Disco Elysium - The Final Cut")

    let disco = detected[0].locations
    #expect(
      disco.map(\.portable) == [
        PortableLocation(
          template: "<winLocalAppDataLow>/ZAUM Studio/Disco Elysium/SaveGames", store: "gog",
          storeGameID: "1771589310")
      ])
    let control = detected[1].locations.map(\.path)
    #expect(
      control == [
        desktop.games + "/Heroic/Prefixes/Control/pfx/drive_c/users/steamuser/AppData/Local/Remedy/Control"
      ])
    let stardew = detected[3].locations
    #expect(stardew.map(\.path) == [desktop.device.home + "/.config/StardewValley/Saves"])
    #expect(stardew.map(\.portable.template) == ["<xdgConfig>/StardewValley/Saves"])
  }

  @Test(
    "a location found on the Deck resolves on the desktop in its own prefix, before and after the save exists"
  )
  func deckToDesktop() throws {
    let dir = TemporaryDirectory("deck-desktop")
    let deck = try FakeDeck(dir)
    let desktop = try FakeDesktop(dir)
    let found = Detection.detect(deck.roots.games, host: deck.device.host, lookup: Self.manifest)
    let hades = try #require(found.first { $0.manifest.title == "Hades" }).locations.map(\.portable)

    let desktopUser = desktop.device.protonUser(1_145_360, in: desktop.steam)
    let save = desktopUser + "/Documents/Saved Games/Hades"
    let cloud = desktop.steam + "/userdata/2222/1145360/remote"
    #expect(hades.map { $0.resolve(on: desktop.roots) } == [.wouldBe(save), .wouldBe(cloud)])

    try writeFile(save + "/Profile1.sav", "save")
    #expect(hades[0].resolve(on: desktop.roots) == .existing([save]))

    let stardew = PortableLocation(template: "<xdgConfig>/StardewValley/Saves")
    #expect(stardew.resolve(on: deck.roots) == .wouldBe(deck.device.home + "/.config/StardewValley/Saves"))
  }

  @Test("a Proton prefix Steam left in another library is not the game's: only its own library's is read")
  func stalePrefixInAnotherLibrary() throws {
    let deck = try FakeDeck(TemporaryDirectory("stale-prefix"))
    // Hades moved to the SD card; its old prefix stayed in the main library.
    let stale = deck.device.protonUser(1_145_360, in: deck.steam) + "/Documents/Saved Games/Hades"
    try deck.device.file(stale + "/Profile1.sav", "before the move")
    let own = deck.device.protonUser(1_145_360, in: deck.card) + "/Documents/Saved Games/Hades"
    let hades = PortableLocation(
      template: "<winDocuments>/Saved Games/Hades", store: "steam", storeGameID: "1145360")
    #expect(hades.resolve(on: deck.roots) == .existing([try #require(Platform.realPath(own))]))
    // No save in its own prefix yet: it is to be put there, never into the stale one.
    try FileManager.default.removeItem(atPath: own)
    #expect(hades.resolve(on: deck.roots) == .wouldBe(own))
    // A game whose own library has no prefix runs in the one Steam kept elsewhere.
    try FileManager.default.removeItem(atPath: deck.card + "/steamapps/compatdata/1145360")
    #expect(hades.resolve(on: deck.roots) == .existing([try #require(Platform.realPath(stale))]))
  }

  @Test("unresolvable locations say why and what to do")
  func unresolvable() throws {
    let dir = TemporaryDirectory("unresolvable")
    let deck = try FakeDeck(dir)
    let desktop = try FakeDesktop(dir)
    let heroes = PortableLocation(
      template: "<winDocuments>/My Games/x", store: "steam", storeGameID: "231430")
    guard case .unresolvable(let notInstalled) = heroes.resolve(on: desktop.roots) else {
      Issue.record("resolved a game that is not installed")
      return
    }
    #expect(
      notInstalled.description
        == "Steam app 231430 is not installed here (no appmanifest_231430.acf in any Steam library), and no Proton prefix compatdata/231430 exists: install and start the game once, or \(Remedy.nameSaveDirectory.inWords)"
    )
    #expect(notInstalled.remedies == [.nameSaveDirectory])
    let disco = PortableLocation(template: "<winLocalAppDataLow>/Z", store: "gog", storeGameID: "1771589310")
    guard case .unresolvable(let why) = disco.resolve(on: deck.roots) else {
      Issue.record("resolved on a machine without the game")
      return
    }
    #expect(why.description.contains("the gog game 1771589310 is not installed here"))

    let wildcard = PortableLocation(template: "<xdgData>/Game/*.sav")
    guard case .unresolvable(let reason) = wildcard.resolve(on: deck.roots) else {
      Issue.record("a wildcard became a path")
      return
    }
    #expect(reason.description.contains("a path with wildcards cannot be created"))

    try makeDirectory(desktop.steam + "/userdata/3333")
    let cloud = PortableLocation(
      template: "<root>/userdata/<storeUserId>/1145360/remote", store: "steam", storeGameID: "1145360")
    guard case .unresolvable(let users) = cloud.resolve(on: desktop.roots) else {
      Issue.record("chose one of two Steam users")
      return
    }
    #expect(users.description.contains("(2222, 3333)"), "\(users)")
  }

  @Test("a typed path becomes its portable form")
  func forAbsolute() throws {
    let deck = try FakeDeck(TemporaryDirectory("absolute"))
    let roots = deck.roots
    let home = deck.device.home
    let cases: [(String, PortableLocation)] = [
      (
        deck.device.protonUser(1_145_360, in: deck.card) + "/Documents/Saved Games/Hades",
        PortableLocation(template: "<winDocuments>/Saved Games/Hades", store: "steam", storeGameID: "1145360")
      ),
      (
        deck.device.protonUser(300, in: deck.steam) + "/AppData/Roaming/Old",
        PortableLocation(template: "<winAppData>/Old", store: "steam", storeGameID: "300")
      ),
      (
        deck.card + "/steamapps/common/Hades/saves",
        PortableLocation(template: "<base>/saves", store: "steam", storeGameID: "1145360")
      ),
      (home + "/.config/Game [1]", PortableLocation(template: "<xdgConfig>/Game [[]1]")),
      (home + "/.local/share/Game", PortableLocation(template: "<xdgData>/Game")),
      (home + "/Saves/x", PortableLocation(template: "<home>/Saves/x")),
      ("/srv/saves", PortableLocation(template: "/srv/saves")),
    ]
    for (path, expected) in cases {
      #expect(PortableLocation.forAbsolute(path, in: roots) == expected, "\(path)")
    }
    let typed = PortableLocation.forAbsolute(home + "/.config/Game [1]", in: roots)
    #expect(typed.resolve(on: roots) == .wouldBe(home + "/.config/Game [1]"))
  }

  static let globs: [(String, String, Bool, Bool)] = [
    ("Profile1.sav", "*.sav", true, true),
    ("Profile1.SAV", "*.sav", true, false),
    ("Profile1.SAV", "*.sav", false, true),
    ("My Games", "my games", false, true),
    ("My Games", "my games", true, false),
    ("slot3", "slot?", true, true),
    ("slot", "slot?", true, false),
    ("a1", "a[0-9]", true, true),
    ("ab", "a[!0-9]", true, true),
    ("a1", "a[!0-9]", true, false),
    ("[x", "[[]x", true, true),
    ("abcabc", "*bc*c", true, true),
  ]

  @Test("glob components match as globetter's do", arguments: globs)
  func glob(_ name: String, _ pattern: String, _ caseSensitive: Bool, _ expected: Bool) {
    #expect(Glob.matches(name, pattern, caseSensitive: caseSensitive) == expected)
  }

  @Test("** spans any number of folders; a separator is never matched by *")
  func globStar() throws {
    let dir = TemporaryDirectory("glob")
    try writeFile(dir.sub("a/b/c/x.sav"), "1")
    try writeFile(dir.sub("a/y.sav"), "1")
    let deep = Glob.expand(anchor: dir.path, components: ["a", "**", "*.sav"], caseSensitive: true)
    #expect(deep.map(\.path).sorted() == [dir.sub("a/b/c/x.sav"), dir.sub("a/y.sav")])
    #expect(deep.map(\.names).sorted { $0[1] < $1[1] } == [["a", "", "y.sav"], ["a", "b/c", "x.sav"]])
    #expect(
      Glob.expand(anchor: dir.path, components: ["*", "*.sav"], caseSensitive: true).map(\.path) == [
        dir.sub("a/y.sav")
      ])
  }

  @Test("a found location's files and bytes count names of any bytes, and no link is followed")
  func contentsCounted() throws {
    let dir = TemporaryDirectory("found-contents")
    let latin1 = RawName.string(Array("caf".utf8) + [0xE9])
    try GlobScanTests.write(dir.path, Array("caf".utf8) + [0xE9] + Array(".sav".utf8), "12345")
    try GlobScanTests.write(dir.path, GlobScanTests.shiftJIS + Array("/slot.sav".utf8), "123")
    try writeFile(dir.sub("plain.sav"), "12")
    #expect(symlink(".", dir.sub("loop")) == 0)
    #expect(symlink("plain.sav", dir.sub("current.sav")) == 0)
    let folder = DetectedLocation(
      path: dir.path, portable: PortableLocation(template: dir.path), isFolder: true)
    let inFolder = folder.contents()
    #expect(inFolder.files == 3 && inFolder.bytes == 10, "\(inFolder)")
    let file = DetectedLocation(
      path: dir.path + "/" + latin1 + ".sav", portable: PortableLocation(template: dir.path), isFolder: false)
    let one = file.contents()
    #expect(one.files == 1 && one.bytes == 5, "\(one)")
  }

  @Test("a location naming a link to a file is that name in its folder, never the file it leads to")
  func linkedFileStaysInItsFolder() throws {
    let dir = TemporaryDirectory("resolve-link")
    let home = dir.sub("home")
    try writeFile(dir.sub("elsewhere/out.sav"), "not in the save folder")
    try writeFile(home + "/Saves/top.sav", "top")
    #expect(symlink(dir.sub("elsewhere/out.sav"), home + "/Saves/out.sav") == 0)
    #expect(symlink("top.sav", home + "/Saves/current.sav") == 0)
    let roots = GameRoots.scan(host: HostFolders(home: home, userName: "player"))
    let saves = try #require(Platform.realPath(home + "/Saves"))
    for name in ["out.sav", "current.sav"] {
      let location = PortableLocation(template: "<home>/Saves/" + name)
      #expect(location.resolve(on: roots) == .existing([saves + "/" + name]))
    }
  }
}
