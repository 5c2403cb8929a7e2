import Foundation
import Testing

@testable import SaveVault

/// A game whose manifest entries overlap, through the built binary: a Steam Cloud file the
/// manifest names inside the Steam Cloud folder scanning adds, and a glob over an install
/// folder that matches a folder another entry names. Each place is one location wherever the
/// list comes from, so a restore on a second machine (Flatpak Steam, another Steam account)
/// puts everything where the game reads it and leaves nothing of its own behind.
@Suite("Nested locations: one place is one location, on both machines", .tags(.medium))
struct NestedLocationsTests {
  static let hades = LocationManifestGame(
    title: "Hades",
    files: [
      "<winDocuments>/Saved Games/Hades", "<root>/userdata/<storeUserId>/1145360/remote/Profile1.sav",
      "<base>/0_*", "<base>/0_Options",
    ], steamID: 1_145_360)

  @Test(
    "a Steam Cloud file inside the Steam Cloud folder, a glob matching a folder entry: backed up and restored whole"
  )
  func overlappingEntries() async throws {
    let dir = TemporaryDirectory("nested-locations")
    let (deck, desktop, onDeck, onDesktop) = try FakeDeck.withDesktop(dir, manifest: [Self.hades])
    let base = deck.card + "/steamapps/common/Hades"
    try writeFile(base + "/0_slot.dat", "slot\n")
    try writeFile(base + "/0_Options/options.ini", "volume=3\n")
    try writeFile(base + "/readme.txt", "not a save\n")

    try await onDeck.ok(["add", "Hades", "--detect"])
    try await onDeck.ok(["backup", "--game", "Hades"])
    let archive = dir.sub("cloud/Hades/") + (try #require(onDeck.archives("Hades").last))
    let listing = try await runProgramAwaiting("/bin/tar", ["-tf", archive])
    let members = listing.stdout.split(separator: "\n").map(String.init).filter {
      !$0.hasPrefix(".savevault")
    }
    // Each file once: the cloud file within its folder (beside the prefix's own Profile1.sav),
    // the options folder within the glob.
    #expect(members.filter { $0.hasSuffix("/Profile1.sav") }.count == 2, "\(members)")
    #expect(members.filter { $0.hasSuffix("options.ini") }.count == 1, "\(members)")

    let restore = try await onDesktop.runAwaiting(["restore", "--game", "Hades", "--latest"])
    #expect(restore.code == 0, "\(restore.stderr)")
    let cloud = desktop.steam + "/userdata/2222/1145360/remote/Profile1.sav"
    #expect((try? String(contentsOfFile: cloud, encoding: .utf8)) == "cloud")
    let desktopBase = desktop.steam + "/steamapps/common/Hades"
    #expect((try? String(contentsOfFile: desktopBase + "/0_slot.dat", encoding: .utf8)) == "slot\n")
    #expect(
      (try? String(contentsOfFile: desktopBase + "/0_Options/options.ini", encoding: .utf8)) == "volume=3\n")
    #expect(!FileManager.default.fileExists(atPath: desktopBase + "/readme.txt"))
    let leftovers =
      (FileManager.default.enumerator(atPath: desktop.device.home)?.allObjects as? [String] ?? [])
      .filter { ($0 as NSString).lastPathComponent.hasPrefix(".savevault-") }
    #expect(leftovers == [], "\(leftovers)")
    let state = try await onDesktop.state(["--game", "Hades"])
    let status = try await onDesktop.runAwaiting(["status", "--game", "Hades", "--verbose"])
    #expect(state == "in-sync", "\(status.stdout)\(status.stderr)")
  }
}
