import Foundation
import Testing

@testable import SaveVault

/// A game kept in several locations, on a device that lacks one of them: a location the
/// archive had stays part of the game's cloud save. One this device places (a restore put it
/// where its portable form says) is part of the save here from then on; one it cannot place
/// is carried forward unchanged into its next upload, from the archive that had it.
@Suite("A location this device lacks stays in the game's cloud save", .tags(.medium))
struct LackingLocationTests {
  /// A Steam install in `device`'s home with app 4000 ("Lacking") and the Steam user `user`.
  static func steam(_ device: Sandbox, user: String) async throws -> String {
    let steam = try device.steamGame(4000, "Lacking")
    try makeDirectory(steam + "/userdata/" + user)
    return steam
  }

  /// Writes `device`'s config: the game `lacking` (Steam app 4000) in `locations`.
  static func configure(_ device: Sandbox, locations: [String]) async throws {
    let config: [String: Any] = [
      "container": device.cloud, "games": ["lacking": ["locations": locations, "steamAppId": "4000"]],
    ]
    try makeDirectory((device.config as NSString).deletingLastPathComponent)
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: device.config))
  }

  static let remote = "<root>/userdata/<storeUserId>/4000/remote"

  /// The issue's two devices: the deck keeps the game in `deck/Saves` and in its Steam user's
  /// `userdata/111/4000/remote`, and has backed both up; the desktop lists only
  /// `desktop/Saves` (its Steam user 222 has no `userdata/222/4000` yet).
  static func issueWorld(_ label: String) async throws -> (deck: Sandbox, desktop: Sandbox, remote: String) {
    let deck = try Sandbox("lacking-\(label)", device: "deck")
    let desktop = deck.device("desktop")
    let deckSteam = try await steam(deck, user: "111")
    let desktopSteam = try await steam(desktop, user: "222")
    try await configure(deck, locations: [deck.path("deck/Saves"), remote])
    try await configure(desktop, locations: [desktop.path("desktop/Saves")])
    try writeFile(deck.path("deck/Saves/slot.sav"), "deck 1\n")
    try writeFile(deckSteam + "/userdata/111/4000/remote/cloud.sav", "steam cloud 1\n")
    try await deck.ok(["backup", "--game", "lacking"])
    return (deck, desktop, desktopSteam + "/userdata/222/4000/remote")
  }

  /// The content of `member` in the archive `name` of `lacking` in the container.
  static func member(_ sandbox: Sandbox, _ name: String, _ member: String) async throws -> String? {
    let result = try await runProgramAwaiting(
      "/usr/bin/tar", ["-xOf", sandbox.cloud + "/lacking/" + name, member])
    return result.code == 0 ? result.stdout : nil
  }

  /// The header's locations of the archive `name`, by name.
  static func headerLocations(_ sandbox: Sandbox, _ name: String) async throws -> [String: [String: Any]] {
    let text = try await #require(try member(sandbox, name, ".savevault/header.json"))
    let header = try jsonObject(text)
    let locations = try #require(header["locations"] as? [[String: Any]], "no locations: \(text)")
    return Dictionary(locations.map { ($0["name"] as? String ?? "", $0) }) { a, _ in a }
  }

  @Test("after a restore placed a location this device's list lacks, the save is in sync")
  func inSyncAfterPlacingRestore() async throws {
    let (_, desktop, remote) = try await Self.issueWorld("in-sync")
    try await desktop.ok(["sync", "--game", "lacking"])
    #expect(text(remote + "/cloud.sav") == "steam cloud 1\n", "the restore placed the second location")
    #expect(text(desktop.path("desktop/Saves/slot.sav")) == "deck 1\n")
    #expect(try await desktop.state(["--game", "lacking"]) == "in-sync")
    let backup = try await desktop.ok(["backup", "--game", "lacking"])
    #expect(backup.stdout.contains("unchanged"), "\(backup.stdout)")
    #expect(desktop.archives("lacking").count == 1, "nothing uploaded")
  }

  /// The issue: the desktop restores the deck's two-location archive, plays, and uploads; the
  /// cloud's latest still holds the second location byte for byte, and the deck's next sync
  /// restores the desktop's save with it.
  @Test("a device that restored a location it lacked uploads it again, and the other device keeps it")
  func restoredLocationUploadsAgain() async throws {
    let (deck, desktop, remote) = try await Self.issueWorld("round-trip")
    let first = try #require(deck.archives("lacking").first)
    try await desktop.ok(["sync", "--game", "lacking"])
    try writeFile(desktop.path("desktop/Saves/slot.sav"), "desktop 2\n")
    #expect(try await desktop.state(["--game", "lacking"]) == "local-changed")
    try await desktop.ok(["sync", "--game", "lacking"])
    let archives = desktop.archives("lacking")
    #expect(archives.count == 2, "\(archives)")
    let latest = try #require(archives.last)
    await #expect(try Self.member(desktop, latest, "1-Saves/slot.sav") == "desktop 2\n")
    await #expect(
      try Self.member(desktop, latest, "2-remote/cloud.sav")
        == Self.member(deck, first, "2-remote/cloud.sav"),
      "the cloud's latest lost the second location")
    let header = try await Self.headerLocations(desktop, latest)
    let portable = try #require(header["2-remote"]?["portable"] as? [String: Any], "\(header)")
    #expect(portable["template"] as? String == Self.remote)
    #expect(header["2-remote"]?["path"] as? String == remote, "made here, in the folder the restore placed")

    let deckRemote = deck.home + "/.local/share/Steam/userdata/111/4000/remote/cloud.sav"
    try await deck.ok(["sync", "--game", "lacking"])
    #expect(text(deck.path("deck/Saves/slot.sav")) == "desktop 2\n", "the deck restored the desktop's save")
    #expect(text(deckRemote) == "steam cloud 1\n")
    #expect(try await deck.state(["--game", "lacking"]) == "in-sync")
  }

  @Test("a change in a location a restore placed is a change of the save, and uploads")
  func placedLocationChangeUploads() async throws {
    let (deck, desktop, remote) = try await Self.issueWorld("placed-change")
    try await desktop.ok(["sync", "--game", "lacking"])
    try writeFile(remote + "/cloud.sav", "desktop cloud 2\n")
    #expect(try await desktop.state(["--game", "lacking"]) == "local-changed")
    try await desktop.ok(["sync", "--game", "lacking"])
    let latest = try #require(desktop.archives("lacking").last)
    await #expect(try Self.member(desktop, latest, "2-remote/cloud.sav") == "desktop cloud 2\n")
    try await deck.ok(["sync", "--game", "lacking"])
    #expect(text(deck.home + "/.local/share/Steam/userdata/111/4000/remote/cloud.sav") == "desktop cloud 2\n")
  }

  /// The deck keeps its second location in the Proton prefix of Steam app 999, which the
  /// desktop does not have: the desktop cannot restore the deck's archive (that is refused
  /// whole), and the player uploads the desktop's own save over it.
  static func unplaceableWorld(_ label: String) async throws -> (
    deck: Sandbox, desktop: Sandbox, nope: String
  ) {
    let deck = try Sandbox("lacking-\(label)", device: "deck")
    let steam = try deck.steamGame(999, "Nope")
    let nope = steam + "/steamapps/compatdata/999/pfx/drive_c/users/steamuser/Documents/Nope"
    try writeFile(nope + "/slot.sav", "the deck's save\n")
    try writeFile(deck.path("deck/Saves/1.sav"), "deck one\n")
    let config: [String: Any] = [
      "container": deck.cloud,
      "games": [
        "lacking": ["locations": [deck.path("deck/Saves"), "<winDocuments>/Nope"], "steamAppId": "999"]
      ],
    ]
    try makeDirectory((deck.config as NSString).deletingLastPathComponent)
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: deck.config))
    try await deck.ok(["backup", "--game", "lacking"])
    let desktop = deck.device("desktop")
    try await configure(desktop, locations: [desktop.path("desktop/Saves")])
    try writeFile(desktop.path("desktop/Saves/mine.sav"), "the desktop's own\n")
    return (deck, desktop, nope)
  }

  @Test("a location this device cannot place is carried forward when it uploads over it, and after")
  func unplaceableCarriedForward() async throws {
    let (deck, desktop, nope) = try await Self.unplaceableWorld("carried")
    let first = try #require(deck.archives("lacking").first)
    let over = try await desktop.runAwaiting(["sync", "--game", "lacking", "--on-conflict", "upload"])
    #expect(over.code == 0, "\(over.stderr)")
    #expect(
      over.stderr.contains("kept '<winDocuments>/Nope' from \(first): it has no place on this device"),
      "\(over.stderr)")
    let second = try #require(desktop.archives("lacking").last)
    #expect(second != first)
    await #expect(try Self.member(desktop, second, "1-Saves/mine.sav") == "the desktop's own\n")
    await #expect(
      try Self.member(desktop, second, "2-Nope/slot.sav") == "the deck's save\n", "dropped from the cloud")
    let header = try await Self.headerLocations(desktop, second)
    #expect(header["2-Nope"]?["path"] as? String == nope, "kept as the archive said it: \(header)")
    let portable = header["2-Nope"]?["portable"] as? [String: Any]
    #expect(
      portable?["template"] as? String == "<winDocuments>/Nope"
        && portable?["storeGameID"] as? String == "999")

    // Played again: the next upload carries it from the archive this device agreed on.
    #expect(try await desktop.state(["--game", "lacking"]) == "in-sync")
    try writeFile(desktop.path("desktop/Saves/mine.sav"), "the desktop's second\n")
    let again = try await desktop.runAwaiting(["sync", "--game", "lacking"])
    #expect(again.code == 0, "\(again.stderr)")
    #expect(again.stderr.contains("kept '<winDocuments>/Nope' from \(second)"), "\(again.stderr)")
    let third = try #require(desktop.archives("lacking").last)
    #expect(third != second)
    await #expect(try Self.member(desktop, third, "2-Nope/slot.sav") == "the deck's save\n")

    // The deck restores the desktop's save into both of its locations, its own second one as it was.
    try await deck.ok(["sync", "--game", "lacking"])
    #expect(text(deck.path("deck/Saves/mine.sav")) == "the desktop's second\n")
    #expect(text(nope + "/slot.sav") == "the deck's save\n")
    #expect(try await deck.state(["--game", "lacking"]) == "in-sync")
  }

  @Test(
    "an upload that cannot carry a location (its archive damaged) is refused (exit 5); --force uploads without it"
  )
  func carryingImpossible() async throws {
    let (_, desktop, _) = try await Self.unplaceableWorld("damaged")
    try await desktop.ok(["sync", "--game", "lacking", "--on-conflict", "upload"])
    let agreed = try #require(desktop.archives("lacking").last)
    // One byte of the carried file's content changed in the archive: it no longer verifies.
    let path = desktop.cloud + "/lacking/" + agreed
    var bytes = try #require(FileManager.default.contents(atPath: path))
    let range = try #require(bytes.range(of: Data("the deck's save".utf8)))
    bytes[range.lowerBound] = UInt8(ascii: "T")
    try bytes.write(to: URL(fileURLWithPath: path))

    try writeFile(desktop.path("desktop/Saves/mine.sav"), "the desktop's second\n")
    let refused = try await desktop.runAwaiting(["sync", "--game", "lacking"])
    #expect(refused.code == 5, "exit \(refused.code): \(refused.stderr)")
    #expect(
      refused.stderr.contains("<winDocuments>/Nope") && refused.stderr.contains(agreed), "\(refused.stderr)")
    #expect(desktop.archives("lacking").count == 2, "nothing uploaded")
    let forced = try await desktop.runAwaiting(["backup", "--game", "lacking", "--force"])
    #expect(forced.code == 0, "\(forced.stderr)")
    #expect(forced.stderr.contains("<winDocuments>/Nope"), "says what the upload lacks: \(forced.stderr)")
    #expect(desktop.archives("lacking").count == 3)
  }

  @Test("a restore that placed a location, killed once its journal is written, is finished with it")
  func killedPlacingRestore() async throws {
    let (_, desktop, remote) = try await Self.issueWorld("killed-restore")
    let killed = try await desktop.runAwaiting(
      ["restore", "--game", "lacking", "--latest"],
      environment: ["SAVEVAULT_FAILPOINTS": "restore.journaled=kill"])
    #expect(killed.wasSignaled, "the kill never fired: \(killed.stderr)")
    try await desktop.ok(["status", "--game", "lacking"])  // finishes the restore
    #expect(text(remote + "/cloud.sav") == "steam cloud 1\n")
    #expect(try await desktop.state(["--game", "lacking"]) == "in-sync")
    try writeFile(remote + "/cloud.sav", "desktop cloud 2\n")
    try await desktop.ok(["sync", "--game", "lacking"])
    let latest = try #require(desktop.archives("lacking").last)
    await #expect(try Self.member(desktop, latest, "2-remote/cloud.sav") == "desktop cloud 2\n")
  }

  /// After a game the container is gone (the game moves it away): a pending archive would go
  /// up later without the location this device carries forward, so none is kept; the save
  /// stays as the game left it, and the next sync uploads it with that location.
  @Test("no pending archive drops a location carried forward: the next sync uploads the save with it")
  func noPendingWithoutCarried() async throws {
    let (_, desktop, _) = try await Self.unplaceableWorld("pending")
    try await desktop.ok(["sync", "--game", "lacking", "--on-conflict", "upload"])
    let game = "echo played > \"$0/mine.sav\"; mv \"$1\" \"$1.away\""
    let wrap = try await desktop.runAwaiting([
      "wrap", "--game", "lacking", "--", "/bin/sh", "-c", game, desktop.path("desktop/Saves"), desktop.cloud,
    ])
    #expect(wrap.code == 0, "\(wrap.stderr)")
    #expect(
      wrap.stderr.contains("<winDocuments>/Nope"), "says why no pending archive was kept: \(wrap.stderr)")
    let pending = desktop.home + "/.local/share/savevault/pending/lacking"
    #expect(((try? FileManager.default.contentsOfDirectory(atPath: pending)) ?? []).isEmpty)
    try FileManager.default.moveItem(atPath: desktop.cloud + ".away", toPath: desktop.cloud)
    try await desktop.ok(["sync", "--game", "lacking"])
    let latest = try #require(desktop.archives("lacking").last)
    await #expect(try Self.member(desktop, latest, "1-Saves/mine.sav") == "played\n")
    await #expect(try Self.member(desktop, latest, "2-Nope/slot.sav") == "the deck's save\n")
  }
}

/// A location placed by a restore within the run of the command that then uploads: the upload
/// holds it (found by the simulation: `wrap` uploaded, after the game, an archive without the
/// location its sync before the game had placed, and the agreement forgot it; so did a `sync`
/// that finished a stopped restore first).
@Suite("A location placed earlier in the same run is part of what that run uploads", .tags(.medium))
struct PlacedInTheSameRunTests {
  @Test("wrap: the sync before the game places the location, the sync after uploads it")
  func wrapUploadsWhatItsRestorePlaced() async throws {
    let (deck, desktop, remote) = try await LackingLocationTests.issueWorld("wrap-placed")
    let game = "echo 'desktop 2' > \"$0/slot.sav\""
    let wrap = try await desktop.runAwaiting([
      "wrap", "--game", "lacking", "--", "/bin/sh", "-c", game, desktop.path("desktop/Saves"),
    ])
    #expect(wrap.code == 0, "\(wrap.stderr)")
    #expect(text(remote + "/cloud.sav") == "steam cloud 1\n", "the sync before the game placed it")
    let archives = desktop.archives("lacking")
    #expect(archives.count == 2, "uploaded after the game: \(archives)")
    let latest = try #require(archives.last)
    await #expect(try LackingLocationTests.member(desktop, latest, "1-Saves/slot.sav") == "desktop 2\n")
    await #expect(
      try LackingLocationTests.member(desktop, latest, "2-remote/cloud.sav") == "steam cloud 1\n",
      "the upload after the game dropped the location its restore placed")
    #expect(try await desktop.state(["--game", "lacking"]) == "in-sync")
    try writeFile(remote + "/cloud.sav", "desktop cloud 3\n")
    #expect(
      try await desktop.state(["--game", "lacking"]) == "local-changed",
      "the placed location is still part of the save")
    try await deck.ok(["sync", "--game", "lacking"])
    #expect(text(deck.path("deck/Saves/slot.sav")) == "desktop 2\n")
  }

  @Test("sync: a stopped restore that placed the location is finished, and the save is in sync")
  func syncAfterStoppedPlacingRestore() async throws {
    let (_, desktop, remote) = try await LackingLocationTests.issueWorld("sync-placed")
    let killed = try await desktop.runAwaiting(
      ["restore", "--game", "lacking", "--latest"],
      environment: ["SAVEVAULT_FAILPOINTS": "restore.journaled=kill"])
    #expect(killed.wasSignaled, "the kill never fired: \(killed.stderr)")
    let sync = try await desktop.runAwaiting(["sync", "--game", "lacking", "--json"])
    #expect(sync.code == 0, "\(sync.stderr)")
    let report = try jsonObject(sync.stdout)
    #expect(report["state"] as? String == "in-sync", "\(sync.stdout)")
    #expect(desktop.archives("lacking").count == 1, "nothing uploaded: \(desktop.archives("lacking"))")
    #expect(text(remote + "/cloud.sav") == "steam cloud 1\n")
    try writeFile(desktop.path("desktop/Saves/slot.sav"), "desktop 2\n")
    try await desktop.ok(["backup", "--game", "lacking"])
    let latest = try #require(desktop.archives("lacking").last)
    await #expect(try LackingLocationTests.member(desktop, latest, "2-remote/cloud.sav") == "steam cloud 1\n")
  }
}

/// A location this device had no place for, added to the game's list since (Steam made the
/// folder, the player added it): the agreement does not say what this device holds there.
@Suite("A location added to the list after it was carried forward", .tags(.medium))
struct GainedLocationTests {
  /// The desktop uploads over the deck's archive, carrying `2-remote` forward; then Steam makes
  /// its folder (empty) and the player adds it to the desktop's list.
  static func gainedWorld(_ label: String) async throws -> (deck: Sandbox, desktop: Sandbox, remote: String) {
    let (deck, desktop, remote) = try await LackingLocationTests.issueWorld(label)
    try writeFile(desktop.path("desktop/Saves/slot.sav"), "desktop 1\n")
    try await desktop.ok(["sync", "--game", "lacking", "--on-conflict", "upload"])
    let carried = try #require(desktop.archives("lacking").last)
    await #expect(
      try LackingLocationTests.member(desktop, carried, "2-remote/cloud.sav") == "steam cloud 1\n")
    try makeDirectory(remote)
    try await LackingLocationTests.configure(
      desktop, locations: [desktop.path("desktop/Saves"), LackingLocationTests.remote])
    return (deck, desktop, remote)
  }

  @Test(
    "the save is compared by content: a conflict, and nothing uploaded without what the cloud holds there")
  func gainedLocationIsAskedAbout() async throws {
    let (_, desktop, remote) = try await Self.gainedWorld("gained")
    #expect(try await desktop.state(["--game", "lacking"]) == "conflict")
    let sync = try await desktop.runAwaiting(["sync", "--game", "lacking"])
    #expect(sync.code == 3, "nobody to ask: \(sync.stderr)")
    #expect(desktop.archives("lacking").count == 2, "nothing uploaded: \(desktop.archives("lacking"))")
    let restored = try await desktop.ok([
      "sync", "--game", "lacking", "--on-conflict", "restore", "--verbose",
    ])
    #expect(
      text(remote + "/cloud.sav") == "steam cloud 1\n",
      "the cloud's content of the location: \(restored.stderr)")
    #expect(text(desktop.path("desktop/Saves/slot.sav")) == "desktop 1\n")
    #expect(try await desktop.state(["--game", "lacking"]) == "in-sync")
  }

  @Test("with the cloud's content there already (Steam Cloud brought it), the save is in sync and stays so")
  func gainedLocationWithItsContentIsInSync() async throws {
    let (_, desktop, remote) = try await Self.gainedWorld("gained-same")
    try writeFile(remote + "/cloud.sav", "steam cloud 1\n")
    #expect(try await desktop.state(["--game", "lacking"]) == "in-sync")
    try await desktop.ok(["sync", "--game", "lacking"])
    #expect(desktop.archives("lacking").count == 2, "nothing uploaded")
    try writeFile(remote + "/cloud.sav", "desktop cloud 2\n")
    #expect(try await desktop.state(["--game", "lacking"]) == "local-changed", "its own location now")
    try await desktop.ok(["sync", "--game", "lacking"])
    let latest = try #require(desktop.archives("lacking").last)
    await #expect(
      try LackingLocationTests.member(desktop, latest, "2-remote/cloud.sav") == "desktop cloud 2\n")
  }

  @Test("wrap keeps no pending archive that would go up without what the cloud holds there")
  func gainedLocationNoPending() async throws {
    let (_, desktop, _) = try await Self.gainedWorld("gained-pending")
    let game = "echo played > \"$0/slot.sav\"; mv \"$1\" \"$1.away\""
    let wrap = try await desktop.runAwaiting([
      "wrap", "--game", "lacking", "--on-conflict", "skip", "--", "/bin/sh", "-c", game,
      desktop.path("desktop/Saves"), desktop.cloud,
    ])
    #expect(wrap.code == 0, "\(wrap.stderr)")
    let pending = desktop.home + "/.local/share/savevault/pending/lacking"
    #expect(((try? FileManager.default.contentsOfDirectory(atPath: pending)) ?? []).isEmpty, "\(wrap.stderr)")
  }
}
