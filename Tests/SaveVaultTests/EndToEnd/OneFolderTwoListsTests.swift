import Foundation
import Testing

@testable import SaveVault

/// One folder is one location, whatever each device's list takes of it: a device whose list
/// takes `*.sav` of a folder and one that takes the folder whole share one location of every
/// archive, every archive restores on both, and neither device's upload drops what the other
/// keeps there.
@Suite("One folder, two lists: devices that take other files of one folder", .tags(.large))
struct OneFolderTwoListsTests {
  /// The game `g` on `sandbox`'s device: `~/saves/g` as `first` names it, and `~/cfg`.
  static func write(_ sandbox: Sandbox, first: String) throws {
    let config: [String: Any] = ["games": ["g": ["locations": [first, "~/cfg"]]]]
    try makeDirectory((sandbox.config as NSString).deletingLastPathComponent)
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: sandbox.config))
    try makeDirectory(sandbox.home + "/saves/g")
    try makeDirectory(sandbox.home + "/cfg")
  }

  /// Two devices of one container: the deck's list takes `deck` of `~/saves/g`, the desktop's
  /// `desktop`.
  static func devices(_ label: String, deck: String, desktop: String) throws -> (Sandbox, Sandbox) {
    let world = try Sandbox.world(label)
    let devices = (world.device("deck"), world.device("desktop"))
    try write(devices.0, first: deck)
    try write(devices.1, first: desktop)
    return devices
  }

  static func tree(_ sandbox: Sandbox) -> [String: String] {
    digestTree(sandbox.home + "/saves/g").filter { !$0.key.hasPrefix(".savevault") }
  }

  @Test(
    "`*.sav` on one device and the whole folder on another: every archive is read on both, nothing dropped")
  func patternAndFolder() async throws {
    let (deck, desktop) = try Self.devices(
      "one-folder-two-lists", deck: "~/saves/g/*.sav", desktop: "~/saves/g")
    try writeFile(deck.home + "/saves/g/1.sav", "deck 1\n")
    try writeFile(deck.home + "/saves/g/notes.txt", "the deck's notes, no save to its list\n")
    try writeFile(deck.home + "/cfg/a.ini", "a=1\n")
    try await deck.ok(["backup", "--game", "g"])

    // The desktop takes the deck's save: its own file the deck's list does not take stays.
    try writeFile(desktop.home + "/saves/g/extra.dat", "the desktop's own\n")
    try await desktop.ok(["restore", "--game", "g", "--latest"])
    #expect(text(desktop.home + "/saves/g/1.sav") == "deck 1\n")
    #expect(text(desktop.home + "/saves/g/extra.dat") == "the desktop's own\n")
    // Its next sync uploads the folder whole: 1.sav and extra.dat.
    try writeFile(desktop.home + "/saves/g/1.sav", "desktop 2\n")
    let synced = try await desktop.runAwaiting(["sync", "--game", "g", "--on-conflict", "fail"])
    #expect(synced.code == 0, "\(synced.stderr)")

    // Every archive in the container is read whole by both devices.
    for device in [deck, desktop] {
      let verified = try await device.runAwaiting(["verify", "--game", "g"])
      #expect(verified.code == 0, "\(device.device): \(verified.stdout) \(verified.stderr)")
    }
    // The deck takes the desktop's: the folder whole, its own notes kept where they are.
    let deckSync = try await deck.runAwaiting(["sync", "--game", "g", "--on-conflict", "fail"])
    #expect(deckSync.code == 0, "\(deckSync.stderr)")
    #expect(text(deck.home + "/saves/g/1.sav") == "desktop 2\n")
    #expect(text(deck.home + "/saves/g/extra.dat") == "the desktop's own\n")
    #expect(text(deck.home + "/saves/g/notes.txt") == "the deck's notes, no save to its list\n")
    // Nothing any device had is missing from the latest archive once both synced again.
    _ = try await deck.runAwaiting(["sync", "--game", "g", "--on-conflict", "fail"])
    _ = try await desktop.runAwaiting(["sync", "--game", "g", "--on-conflict", "fail"])
    #expect(
      Self.tree(deck) == Self.tree(desktop),
      "\(Self.tree(deck).keys.sorted()) \(Self.tree(desktop).keys.sorted())")
    for device in [deck, desktop] {
      let verified = try await device.runAwaiting(["verify", "--game", "g"])
      #expect(verified.code == 0, "\(device.device): \(verified.stdout) \(verified.stderr)")
      #expect(try await device.state(["--game", "g"]) == "in-sync")
    }
  }

  @Test("two patterns of one folder: the upload lists no file twice, and each device restores the other's")
  func twoPatterns() async throws {
    let (deck, desktop) = try Self.devices(
      "one-folder-two-patterns", deck: "~/saves/g/*.sav", desktop: "~/saves/g/*")
    try writeFile(desktop.home + "/saves/g/1.sav", "desktop 1\n")
    try writeFile(desktop.home + "/saves/g/profile.dat", "desktop profile\n")
    try await desktop.ok(["backup", "--game", "g"])
    try await deck.ok(["restore", "--game", "g", "--latest"])
    #expect(text(deck.home + "/saves/g/1.sav") == "desktop 1\n")
    try writeFile(deck.home + "/saves/g/1.sav", "deck 2\n")
    let synced = try await deck.runAwaiting(["sync", "--game", "g", "--on-conflict", "fail"])
    #expect(synced.code == 0, "\(synced.stderr)")
    let latest = try #require(deck.archives("g").first)
    let listed = try await runProgramAwaiting("/bin/tar", ["-tf", deck.cloud + "/g/" + latest]).stdout
      .split(separator: "\n").map(String.init)
    #expect(Set(listed).count == listed.count, "an entry listed twice: \(listed)")
    #expect(listed.contains { $0.hasSuffix("/profile.dat") }, "the desktop's profile was dropped: \(listed)")
    for device in [deck, desktop] {
      let verified = try await device.runAwaiting(["verify", "--game", "g"])
      #expect(verified.code == 0, "\(device.device): \(verified.stdout) \(verified.stderr)")
    }
    try await desktop.ok(["restore", "--game", "g", "--latest"])
    #expect(text(desktop.home + "/saves/g/1.sav") == "deck 2\n")
    #expect(text(desktop.home + "/saves/g/profile.dat") == "desktop profile\n")
  }
}
