import Foundation
import Testing

@testable import SaveVault

/// The resolver's rules for where a portable location is on a machine laid out unlike the one
/// that made it, one test per row of the table in docs/discovery.md ("Where a location is put").
@Suite("Placement: every location where the game reads it on another layout", .tags(.small))
struct PlacementRulesTests {
  static let manifest = InMemoryManifest(games: [
    LocationManifestGame(
      title: "Native Quest", files: ["<home>/.config/NativeQuest/prefs", "<xdgConfig>/NativeQuest/slots"],
      steamID: 700),
    LocationManifestGame(title: "Glued Game", files: ["<winLocalAppData>Low/Maker/Glued"], steamID: 740),
    LocationManifestGame(
      title: "Glued User", files: ["<home>/AppData/LocalLow/Maker/Silt/STEAMUSER<storeUserId>/Saved Games"],
      steamID: 770),
    LocationManifestGame(
      title: "Both Game", files: ["<home>/.config/unity3d/Maker/Both", "<winAppData>/Maker/Both"],
      steamID: 750),
  ])

  /// A device with Flatpak Steam only: `~/.var/app/com.valvesoftware.Steam`, no `~/.config`.
  static func flatpakSteam(_ dir: TemporaryDirectory, user: String = "alice") throws -> (
    FakeDevice, steam: String, sandbox: String
  ) {
    let device = try FakeDevice(dir, user: user)
    let sandbox = device.home + "/.var/app/com.valvesoftware.Steam"
    let steam = sandbox + "/.local/share/Steam"
    try device.libraryFolders(steam, [steam])
    return (device, steam, sandbox)
  }

  /// A device with native Steam in `~/.local/share/Steam`.
  static func nativeSteam(_ dir: TemporaryDirectory, user: String = "deck") throws -> (
    FakeDevice, steam: String
  ) {
    let device = try FakeDevice(dir, user: user)
    let steam = device.home + "/.local/share/Steam"
    try device.libraryFolders(steam, [steam])
    return (device, steam)
  }

  @Test("Flatpak Steam: a native game's <home> is the sandbox, as its XDG folders are")
  func flatpakHome() throws {
    let dir = TemporaryDirectory("placement-flatpak-home")
    let (device, steam, sandbox) = try Self.flatpakSteam(dir)
    try device.steamGame(700, "Native Quest", in: steam)
    let home = PortableLocation(template: "<home>/.config/NativeQuest", store: "steam", storeGameID: "700")
    let config = PortableLocation(template: "<xdgConfig>/NativeQuest", store: "steam", storeGameID: "700")
    let roots = GameRoots.scan(host: device.host)
    // One folder on the machine that made the archive is one folder here.
    #expect(home.resolve(on: roots) == .wouldBe(sandbox + "/.config/NativeQuest"))
    #expect(config.resolve(on: roots) == .wouldBe(sandbox + "/.config/NativeQuest"))

    // The host's own ~/.config is not where this game reads: a folder there is not its save.
    try device.file(device.home + "/.config/NativeQuest/prefs", "host")
    try device.file(sandbox + "/.config/NativeQuest/prefs", "game")
    let again = GameRoots.scan(host: device.host)
    #expect(home.resolve(on: again) == .existing([sandbox + "/.config/NativeQuest"]))
    #expect(config.resolve(on: again) == .existing([sandbox + "/.config/NativeQuest"]))
    let found = Detection.detect(again.games, host: again.host, lookup: Self.manifest).flatMap(\.locations)
    #expect(found.map(\.path) == [sandbox + "/.config/NativeQuest/prefs"])
    // Store-bound, so that another machine reads it in its own Steam's home.
    #expect(
      found.map(\.portable) == [
        PortableLocation(
          template: "<home>/.config/NativeQuest/prefs", store: "steam", storeGameID: "700")
      ])
  }

  @Test(
    "native Steam: a native game's <home> is the player's home, on a machine where Steam is Flatpak elsewhere"
  )
  func nativeHome() throws {
    let dir = TemporaryDirectory("placement-native-home")
    let (device, steam) = try Self.nativeSteam(dir)
    try device.steamGame(700, "Native Quest", in: steam)
    let home = PortableLocation(template: "<home>/.config/NativeQuest", store: "steam", storeGameID: "700")
    #expect(
      home.resolve(on: GameRoots.scan(host: device.host)) == .wouldBe(device.home + "/.config/NativeQuest"))
  }

  @Test("a placeholder glued to text: <winLocalAppData>Low is AppData/LocalLow")
  func gluedPlaceholder() throws {
    let dir = TemporaryDirectory("placement-glued")
    let (device, steam) = try Self.nativeSteam(dir)
    try device.steamGame(740, "Glued Game", in: steam)
    let user = device.protonUser(740, in: steam)
    try device.folder(user + "/AppData/Local")
    let glued = PortableLocation(
      template: "<winLocalAppData>Low/Maker/Glued", store: "steam", storeGameID: "740")
    #expect(
      glued.resolve(on: GameRoots.scan(host: device.host)) == .wouldBe(user + "/AppData/LocalLow/Maker/Glued")
    )

    try device.file(user + "/AppData/LocalLow/Maker/Glued/save.dat")
    let roots = GameRoots.scan(host: device.host)
    let found = Detection.detect(roots.games, host: roots.host, lookup: Self.manifest).flatMap(\.locations)
    #expect(found.map(\.path) == [user + "/AppData/LocalLow/Maker/Glued"])
    #expect(found.map(\.portable) == [glued])
    #expect(glued.resolve(on: roots) == .existing([user + "/AppData/LocalLow/Maker/Glued"]))
  }

  @Test("<storeUserId> glued to text (Silt's STEAMUSER<storeUserId>): the one account's id, the text kept")
  func gluedStoreUserID() throws {
    let dir = TemporaryDirectory("placement-glued-user")
    let (device, steam) = try Self.nativeSteam(dir)
    try device.steamGame(770, "Glued User", in: steam)
    try device.folder(steam + "/userdata/2222")
    let folder = device.protonUser(770, in: steam) + "/AppData/LocalLow/Maker/Silt"
    try device.folder(device.protonUser(770, in: steam) + "/AppData/LocalLow")
    let saves = PortableLocation(
      template: "<home>/AppData/LocalLow/Maker/Silt/STEAMUSER<storeUserId>/Saved Games", store: "steam",
      storeGameID: "770")
    // The game never ran here: the one Steam account's 64-bit id, inside the name.
    #expect(
      saves.resolve(on: GameRoots.scan(host: device.host))
        == .wouldBe(folder + "/STEAMUSER76561197960267950/Saved Games"))

    // Found where it is, its portable form naming no account; a name that holds no id is no
    // account's folder.
    try device.file(folder + "/STEAMUSER76561197960267950/Saved Games/slot0.sav")
    try device.folder(folder + "/STEAMUSER.not-an-id/Saved Games")
    let roots = GameRoots.scan(host: device.host)
    let found = Detection.detect(roots.games, host: roots.host, lookup: Self.manifest).flatMap(\.locations)
    #expect(found.map(\.path) == [folder + "/STEAMUSER76561197960267950/Saved Games"])
    #expect(found.map(\.portable) == [saves])
    #expect(saves.resolve(on: roots) == .existing([folder + "/STEAMUSER76561197960267950/Saved Games"]))
  }

  @Test("<storeUserId> matches only a Steam id, never SaveVault's own folders nor a sibling")
  func storeUserIDForm() throws {
    let dir = TemporaryDirectory("placement-user-form")
    let (device, steam) = try Self.nativeSteam(dir)
    try device.steamGame(760, "KH", in: steam)
    try device.folder(steam + "/userdata/2222")
    let folder = device.protonUser(760, in: steam) + "/Documents/My Games/KH/Steam"
    try device.folder(folder + "/.savevault-staging-KH-1234")
    try device.folder(folder + "/Config")
    let saves = PortableLocation(
      template: "<winDocuments>/My Games/KH/Steam/<storeUserId>", store: "steam", storeGameID: "760")
    let roots = GameRoots.scan(host: device.host)
    #expect(saves.resolve(on: roots) == .wouldBe(folder + "/76561197960267950"))
    let found = Detection.matches(
      of: try #require(Placeholders.candidates(saves.template, in: saves.resolutionContext(on: roots)).first),
      store: .steam, id: "760")
    #expect(found == [])
  }

  @Test("<storeUserId> on a machine where the game never ran: the one Steam account's id")
  func storeUserIDFromAccount() throws {
    let dir = TemporaryDirectory("placement-user-account")
    let (device, steam, _) = try Self.flatpakSteam(dir)
    try device.steamGame(760, "KH", in: steam)
    try device.folder(device.protonUser(760, in: steam) + "/Documents")
    // Signed in once, but no userdata folder yet: loginusers.vdf says who.
    try device.file(
      steam + "/config/loginusers.vdf",
      "\"users\"\n{\n\t\"76561197960267950\"\n\t{\n\t\t\"AccountName\"\t\t\"alice\"\n\t\t\"PersonaName\"\t\t\"Alice\"\n"
        + "\t\t\"RememberPassword\"\t\t\"1\"\n\t\t\"MostRecent\"\t\t\"1\"\n\t\t\"Timestamp\"\t\t\"1764000000\"\n\t}\n}\n"
    )
    let roots = GameRoots.scan(host: device.host)
    #expect(roots.steam.first?.accountIDs == ["2222"])
    let saves = PortableLocation(
      template: "<winDocuments>/My Games/KH/Steam/<storeUserId>", store: "steam", storeGameID: "760")
    #expect(
      saves.resolve(on: roots)
        == .wouldBe(device.protonUser(760, in: steam) + "/Documents/My Games/KH/Steam/76561197960267950"))
    let cloud = PortableLocation(
      template: "<root>/userdata/<storeUserId>/760/remote", store: "steam", storeGameID: "760")
    #expect(cloud.resolve(on: roots) == .wouldBe(steam + "/userdata/2222/760/remote"))

    // Two accounts and no folder of the game's: which one cannot be told.
    try device.folder(steam + "/userdata/3333")
    guard case .unresolvable(let why) = saves.resolve(on: GameRoots.scan(host: device.host)) else {
      Issue.record("chose one of two Steam accounts")
      return
    }
    #expect(why.description.contains("76561197960267950, 76561197960269061"), "\(why)")

    // The player names theirs (`--steam-user`, by either id): only its folders are the save's.
    for chosen in ["3333", "76561197960269061"] {
      let roots = GameRoots.scan(host: device.host).choosingSteamAccount(chosen)
      #expect(
        saves.resolve(on: roots)
          == .wouldBe(device.protonUser(760, in: steam) + "/Documents/My Games/KH/Steam/76561197960269061"))
      #expect(cloud.resolve(on: roots) == .wouldBe(steam + "/userdata/3333/760/remote"))
    }
    try device.folder(steam + "/userdata/2222/760/remote")
    try device.folder(steam + "/userdata/3333/760/remote")
    let both = GameRoots.scan(host: device.host)
    guard case .existing(let two) = cloud.resolve(on: both), two.count == 2 else {
      Issue.record("two accounts' folders are not both the game's: \(cloud.resolve(on: both))")
      return
    }
    #expect(
      cloud.resolve(on: both.choosingSteamAccount("3333")) == .existing([steam + "/userdata/3333/760/remote"])
    )
  }

  @Test("a home with no ~/.config yet: <xdgConfig> is still placed")
  func missingXDGFolder() throws {
    let dir = TemporaryDirectory("placement-no-config")
    let (device, steam) = try Self.nativeSteam(dir, user: "fresh")
    try device.steamGame(700, "Native Quest", in: steam)
    #expect(!isDirectory(device.home + "/.config"))
    let plain = PortableLocation(template: "<xdgConfig>/NativeQuest")
    let roots = GameRoots.scan(host: device.host)
    #expect(plain.resolve(on: roots) == .wouldBe(device.home + "/.config/NativeQuest"))
    let bound = PortableLocation(template: "<xdgConfig>/NativeQuest", store: "steam", storeGameID: "700")
    #expect(bound.resolve(on: roots) == .wouldBe(device.home + "/.config/NativeQuest"))
  }

  @Test("a native location beside a Proton prefix: <home>/.config is the player's, <winAppData> the prefix's")
  func nativeBesidePrefix() throws {
    let dir = TemporaryDirectory("placement-native-prefix")
    let (device, steam) = try Self.nativeSteam(dir)
    try device.steamGame(750, "Both Game", in: steam)
    let user = device.protonUser(750, in: steam)
    try device.folder(user + "/AppData/Roaming")
    try device.file(device.home + "/.config/unity3d/Maker/Both/prefs")
    let roots = GameRoots.scan(host: device.host)
    let native = PortableLocation(
      template: "<home>/.config/unity3d/Maker/Both", store: "steam", storeGameID: "750")
    #expect(native.resolve(on: roots) == .existing([device.home + "/.config/unity3d/Maker/Both"]))
    let found = Detection.detect(roots.games, host: roots.host, lookup: Self.manifest).flatMap(\.locations)
    #expect(found.map(\.portable) == [native])

    try FileManager.default.removeItem(atPath: device.home + "/.config")
    #expect(
      native.resolve(on: GameRoots.scan(host: device.host))
        == .wouldBe(device.home + "/.config/unity3d/Maker/Both"))
    let windows = PortableLocation(template: "<winAppData>/Maker/Both", store: "steam", storeGameID: "750")
    #expect(windows.resolve(on: roots) == .wouldBe(user + "/AppData/Roaming/Maker/Both"))
  }

  @Test("a location inside another is one with it, told by real path through a link, before either exists")
  func nestedThroughLink() throws {
    let dir = TemporaryDirectory("placement-nested-link")
    let device = try FakeDevice(dir, user: "alice")
    let installation = device.home + "/.steam/debian-installation"
    try device.folder(installation + "/pfx/AppData/Local")
    try device.link(device.home + "/.steam/steam", to: installation)
    let portable = PortableLocation(template: "<winLocalAppData>/Ninja")
    let folder = SaveLocation(
      name: "", path: installation + "/pfx/AppData/Local/Ninja", portable: portable)
    // A file the list names, not made yet, read as a folder, through Steam's link.
    let file = SaveLocation(
      name: "", path: device.home + "/.steam/steam/pfx/AppData/Local/Ninja/settings.ini", portable: portable)
    #expect(file.isInside(folder))
    #expect(!folder.isInside(file))
    #expect(SaveLocation.outermost([file, folder]) == [folder])
    let glob = SaveLocation(
      name: "", path: device.home + "/.steam/steam/pfx/AppData/Local", portable: portable,
      shape: .files(FilePattern(pattern: "Nin*", caseSensitive: false)))
    #expect(folder.isInside(glob))
  }
}
