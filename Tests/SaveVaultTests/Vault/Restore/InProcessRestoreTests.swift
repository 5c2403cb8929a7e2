import Foundation
import Testing

@testable import SaveVault

/// Restore and sync in-process on a `MemoryContainer`: two devices (two vaults, two homes) and
/// one container, so that a change to the restore is checked in seconds before the binary runs.
@Suite(
  "In-process: restore and sync of every shape between two devices on one memory container", .tags(.small))
struct InProcessRestoreTests {
  /// A device: its home and config file under `dir/<name>`, the game `g` with `locations`
  /// (`~` is the device's home), and the shared container.
  struct Device {
    var home: String
    var vault: Vault
    var target: Target

    init(_ dir: TemporaryDirectory, _ name: String, locations: [String], container: MemoryContainer) throws {
      home = dir.sub(name + "/home")
      let config = home + "/.config/savevault/config.json"
      try makeDirectory((config as NSString).deletingLastPathComponent)
      let file: [String: Any] = [
        "container": dir.sub("unused-cloud"), "games": ["g": ["locations": locations]],
      ]
      try JSONSerialization.data(withJSONObject: file).write(to: URL(fileURLWithPath: config))
      vault = try Vault(context: testContext(home: home, environment: ["SAVEVAULT_DEVICE": name]))
      vault.makeContainer = { _, _ in container }
      target = try vault.resolve(TargetRequest(game: "g", configFile: config))
    }

    func file(_ path: String) -> String? { text(home + "/" + path) }
    func write(_ path: String, _ content: String) throws { try writeFile(home + "/" + path, content) }
    func sync() throws -> SyncReport { try vault.sync(target, policy: .fail, resolver: NobodyToAsk()) }
  }

  @Test(
    "a folder, one file and a glob restore on another device's layout; each side's changes reach the other")
  func shapes() throws {
    let dir = TemporaryDirectory("in-process-shapes")
    let container = MemoryContainer()
    let deck = try Device(
      dir, "deck", locations: ["~/saves/g", "~/cfg/options.ini", "~/shots/*.png"], container: container)
    try deck.write("saves/g/slot1.sav", "slot 1\n")
    try deck.write("cfg/options.ini", "volume=3\n")
    try deck.write("cfg/unrelated.txt", "no save\n")
    try deck.write("shots/a.png", "png a\n")
    _ = try deck.vault.backup(deck.target, force: false)

    let desktop = try Device(
      dir, "desktop", locations: ["~/saves/g", "~/cfg/options.ini", "~/shots/*.png"], container: container)
    try desktop.write("cfg/own.txt", "the desktop's own\n")
    #expect(try desktop.sync().action == .restored)
    #expect(desktop.file("saves/g/slot1.sav") == "slot 1\n")
    #expect(desktop.file("cfg/options.ini") == "volume=3\n")
    #expect(desktop.file("shots/a.png") == "png a\n")
    #expect(desktop.file("cfg/own.txt") == "the desktop's own\n", "a file of no location stays")
    #expect(desktop.file("cfg/unrelated.txt") == nil)

    try desktop.write("shots/b.png", "png b\n")
    try desktop.write("saves/g/slot1.sav", "slot 1, desktop\n")
    #expect(try desktop.sync().action == .uploaded)
    #expect(try deck.sync().action == .restored)
    #expect(deck.file("shots/b.png") == "png b\n")
    #expect(deck.file("saves/g/slot1.sav") == "slot 1, desktop\n")
    #expect(deck.file("cfg/unrelated.txt") == "no save\n")
    #expect(try deck.sync().state == .inSync)
    #expect(try desktop.sync().state == .inSync)
  }

  @Test("one folder taken as `*.sav` on one device and whole on the other: no entry twice, nothing dropped")
  func oneFolderTwoLists() throws {
    let dir = TemporaryDirectory("in-process-two-lists")
    let container = MemoryContainer()
    let deck = try Device(dir, "deck", locations: ["~/saves/g/*.sav", "~/cfg"], container: container)
    let desktop = try Device(dir, "desktop", locations: ["~/saves/g", "~/cfg"], container: container)
    try desktop.write("saves/g/1.sav", "desktop 1\n")
    try desktop.write("saves/g/profile.dat", "desktop profile\n")
    try desktop.write("cfg/a.ini", "a\n")
    _ = try desktop.vault.backup(desktop.target, force: false)
    try deck.write("saves/g/notes.txt", "the deck's notes\n")
    #expect(try deck.sync().action == .restored)
    #expect(deck.file("saves/g/1.sav") == "desktop 1\n")
    #expect(deck.file("saves/g/profile.dat") == "desktop profile\n")
    #expect(deck.file("saves/g/notes.txt") == "the deck's notes\n", "the deck's own file stays")
    try deck.write("saves/g/1.sav", "deck 2\n")
    _ = try deck.sync()
    for device in [deck, desktop] {
      let checks = try device.vault.verify(device.target, selection: .all)
      #expect(checks.failures.isEmpty, "\(checks)")
    }
    _ = try desktop.sync()
    #expect(desktop.file("saves/g/1.sav") == "deck 2\n")
    #expect(desktop.file("saves/g/profile.dat") == "desktop profile\n")
  }
}
