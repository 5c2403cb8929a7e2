import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// A restore of a game of several locations through the one restore transaction, where it
/// differs from a one-folder game's: its journal commits it, and its first location's drive is
/// not the whole save's.
@Suite("Restoring a game of several locations", .tags(.large))
struct LocationsRestoreTests {
  /// Writes `device`'s config: the game `multi` in `locations`, on the sandbox's container.
  static func configure(_ sandbox: Sandbox, locations: [String]) throws {
    let config: [String: Any] = [
      "container": sandbox.cloud, "games": ["multi": ["locations": locations]],
    ]
    try makeDirectory((sandbox.config as NSString).deletingLastPathComponent)
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: sandbox.config))
  }

  /// A restore of a game of several locations, killed once its journal is written, is finished
  /// by the next command; the archive brought a location this device's list of the game lacks.
  /// The undo point names the restored archive, so `restore --undo` forgets the agreement and
  /// the next sync asks (exit 3), rather than restoring the archive the player just undid.
  @Test("undo after a recovered restore of several locations is not undone by the next sync")
  func undoAfterRecoveredLocationsRestore() async throws {
    let world = try Sandbox("regression-undo-locations")
    let pc = world.device("pc")
    let deck = world.device("deck")
    try Self.configure(pc, locations: [world.path("pc/a/Saves"), world.path("pc/b/Config")])
    try Self.configure(deck, locations: [world.path("deck/a/Saves")])

    try makeDirectory(world.path("deck/a/Saves"))
    try writeFile(world.path("deck/a/Saves/slot.sav"), "deck save 0\n")
    try await deck.ok(["backup", "--game", "multi"])
    usleep(20_000)
    try makeDirectory(world.path("pc/a/Saves"))
    try makeDirectory(world.path("pc/b/Config"))
    try writeFile(world.path("pc/a/Saves/slot.sav"), "pc save 1\n")
    try writeFile(world.path("pc/b/Config/o.ini"), "opt\n")
    try await pc.ok(["backup", "--game", "multi", "--force"])
    try FileManager.default.removeItem(atPath: world.path("pc/a"))
    try FileManager.default.removeItem(atPath: world.path("pc/b"))
    #expect(try await deck.state(["--game", "multi"]) == "cloud-changed")

    let killed = try await deck.runAwaiting(
      ["restore", "--game", "multi", "--latest"],
      environment: ["SAVEVAULT_FAILPOINTS": "restore.journaled=kill"])
    #expect(killed.code != 0)
    try await deck.ok(["status", "--game", "multi"])  // finishes the restore
    #expect(text(world.path("deck/a/Saves/slot.sav")) == "pc save 1\n")
    let undo = try String(
      contentsOfFile: deck.home + "/.local/state/savevault/undo/multi.json", encoding: .utf8)
    #expect(undo.contains("\"restoredArchive\""), "the undo point forgot the archive restored: \(undo)")

    try await deck.ok(["restore", "--game", "multi", "--undo"])
    #expect(text(world.path("deck/a/Saves/slot.sav")) == "deck save 0\n")
    let sync = try await deck.runAwaiting(["sync", "--game", "multi"])
    #expect(text(world.path("deck/a/Saves/slot.sav")) == "deck save 0\n", "the next sync undid the undo")
    #expect(sync.code == 3, "exit \(sync.code): \(sync.stdout) \(sync.stderr)")
  }

  /// A game of several locations whose first location was missing when it last agreed, the
  /// other on another filesystem (/dev/shm here): the agreement's mount is the other's, so the
  /// first location's drive is not compared with it, and a sync restores the cloud's save.
  @Test("a game of several locations on two filesystems still restores")
  func locationsOnTwoFilesystems() async throws {
    let shm = "/dev/shm"
    guard Platform.mountPoint(of: shm) == shm, Platform.mountPoint(of: NSTemporaryDirectory()) != shm else {
      return  // needs a second filesystem
    }
    // On /tmp, so that /dev/shm is the other filesystem.
    let world = try Sandbox(in: TemporaryDirectory("regression-two-drives", durable: true))
    let other = shm + "/savevault-regression-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: other) }
    let pc = world.device("pc")
    let deck = world.device("deck")
    let locations = [world.path("a/Saves"), other + "/b/Config"]
    try Self.configure(pc, locations: locations)
    try Self.configure(deck, locations: locations)
    try makeDirectory(other + "/b/Config")
    try writeFile(other + "/b/Config/options.ini", "volume=1\n")
    try await pc.ok(["backup", "--game", "multi"])
    usleep(20_000)
    try writeFile(other + "/b/Config/options.ini", "volume=2\n")
    try await deck.ok(["backup", "--game", "multi", "--force"])
    try writeFile(other + "/b/Config/options.ini", "volume=1\n")
    #expect(try await pc.state(["--game", "multi"]) == "cloud-changed")
    let sync = try await pc.runAwaiting(["sync", "--game", "multi"])
    #expect(sync.code == 0, "exit \(sync.code): \(sync.stderr)")
    #expect(text(other + "/b/Config/options.ini") == "volume=2\n")
  }
}
