import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// A game of several locations through the built binary: one archive holds them all (a plain
/// tar, each location under its own top-level folder), they are in sync or changed together,
/// a restore replaces them all (or none), undo puts them all back, a kill anywhere leaves every
/// location old or every location new, and what the `exclude` globs leave out stays in place.
@Suite("Locations: a game kept in several folders is one save", .tags(.large))
struct LocationsTests {
  /// A sandbox whose config has the game `multi` in `<dir>/a/Saves` and `<dir>/b/Config`
  /// (logs excluded), on the folder container.
  static func world(_ label: String, device: String = "pc") throws -> Sandbox {
    let sandbox = try Sandbox("locations-\(label)", device: device)
    try write(sandbox, locations: [sandbox.path("a/Saves"), sandbox.path("b/Config")])
    return sandbox
  }

  static func write(_ sandbox: Sandbox, locations: [String]) throws {
    let config: [String: Any] = [
      "container": sandbox.cloud,
      "games": ["multi": ["locations": locations, "exclude": ["*.log"]]],
    ]
    try makeDirectory((sandbox.config as NSString).deletingLastPathComponent)
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: sandbox.config))
  }

  /// Writes a save state `seed` into both locations (and a log that is no part of it).
  static func writeState(_ sandbox: Sandbox, _ seed: Int) throws {
    try makeDirectory(sandbox.path("a/Saves/slot"))
    try makeDirectory(sandbox.path("b/Config"))
    try writeFile(sandbox.path("a/Saves/slot/1.sav"), "save \(seed)\n")
    try writeFile(sandbox.path("a/Saves/profile.dat"), String(repeating: "p\(seed)", count: 20_000))
    try writeFile(sandbox.path("b/Config/options.ini"), "volume=\(seed)\n")
    try writeFile(sandbox.path("b/Config/game.log"), "log of run \(seed)\n")
  }

  /// Both locations' content (the log left out).
  static func state(_ sandbox: Sandbox) -> [String: String] {
    var state: [String: String] = [:]
    for (name, folder) in [("1", "a/Saves"), ("2", "b/Config")] {
      for (path, digest) in digestTree(sandbox.path(folder)) where !path.hasSuffix(".log") {
        state[name + "/" + path] = digest
      }
    }
    return state
  }

  @Test(
    "one archive holds every location, readable by GNU tar and Python; restore and undo move them together")
  func roundTrip() async throws {
    let sandbox = try Self.world("round-trip")
    try Self.writeState(sandbox, 1)
    let first = Self.state(sandbox)
    try await sandbox.ok(["backup", "--game", "multi"])
    let archive = try #require(sandbox.archives("multi").first)
    let path = sandbox.cloud + "/multi/" + archive
    let listed = try await runProgramAwaiting("/bin/tar", ["-tf", path]).stdout.split(separator: "\n")
    #expect(listed.contains("1-Saves/slot/1.sav") && listed.contains("2-Config/options.ini"), "\(listed)")
    #expect(!listed.contains { $0.hasSuffix(".log") }, "an excluded file was packed: \(listed)")
    let python = try await runProgramAwaiting(
      "/usr/bin/env",
      [
        "python3", "-c",
        "import tarfile,sys,json; t=tarfile.open(sys.argv[1]); h=json.load(t.extractfile('.savevault/header.json')); print(sorted(l['name'] for l in h['locations']))",
        path,
      ])
    #expect(python.stdout.contains("['1-Saves', '2-Config']"), "\(python.stdout) \(python.stderr)")
    #expect(try await sandbox.state(["--game", "multi"]) == "in-sync")

    try Self.writeState(sandbox, 2)
    #expect(try await sandbox.state(["--game", "multi"]) == "local-changed")
    try await sandbox.ok(["restore", "--game", "multi", "--latest"])
    #expect(Self.state(sandbox) == first, "restore brought back every location")
    #expect(text(sandbox.path("b/Config/game.log")) == "log of run 2\n", "the excluded log stayed")
    #expect(try await sandbox.state(["--game", "multi"]) == "in-sync")

    try await sandbox.ok(["restore", "--game", "multi", "--undo"])
    #expect(text(sandbox.path("a/Saves/slot/1.sav")) == "save 2\n", "undo put back the first location")
    #expect(text(sandbox.path("b/Config/options.ini")) == "volume=2\n", "undo put back the second location")
    #expect(text(sandbox.path("b/Config/game.log")) == "log of run 2\n")
    let leftovers = ["a", "b"].flatMap { folder in
      ((try? Platform.directoryNames(sandbox.path(folder))) ?? []).filter { $0.hasPrefix(".savevault") }
    }
    #expect(leftovers == [], "left beside the locations: \(leftovers)")
  }

  @Test("a change in any one location is a change of the game")
  func changeInOneLocation() async throws {
    let sandbox = try Self.world("one-changed")
    try Self.writeState(sandbox, 1)
    try await sandbox.ok(["backup", "--game", "multi"])
    try writeFile(sandbox.path("b/Config/options.ini"), "volume=9\n")
    #expect(try await sandbox.state(["--game", "multi"]) == "local-changed")
    try writeFile(sandbox.path("b/Config/game.log"), "only the log changed\n")
    try writeFile(sandbox.path("b/Config/options.ini"), "volume=1\n")
    #expect(
      try await sandbox.state(["--game", "multi"]) == "in-sync", "an excluded file is no part of the save")
  }

  @Test("a location gone (an unmounted drive) is not uploaded as an empty part of the save")
  func locationGone() async throws {
    let sandbox = try Self.world("gone")
    try Self.writeState(sandbox, 1)
    try await sandbox.ok(["backup", "--game", "multi"])
    try writeFile(sandbox.path("a/Saves/slot/1.sav"), "played on\n")
    try FileManager.default.removeItem(atPath: sandbox.path("b"))
    let sync = try await sandbox.runAwaiting(["sync", "--game", "multi"])
    #expect(sync.code == 1, "\(sync.stdout) \(sync.stderr)")
    #expect(sync.stderr.contains("is gone") && sync.stderr.contains("b/Config"), "\(sync.stderr)")
    #expect(sandbox.archives("multi").count == 1, "nothing uploaded")
    try await sandbox.ok(["backup", "--game", "multi", "--force"])
    #expect(sandbox.archives("multi").count == 2, "--force uploads the rest")
  }

  @Test("an excluded file stays as this device has it, even when another device's archive holds one")
  func excludedStays() async throws {
    let deck = try Self.world("excluded", device: "deck")
    let pc = deck.device("pc")
    // The pc excludes nothing: its archive holds its own game.log.
    let config: [String: Any] = [
      "container": pc.cloud, "games": ["multi": ["locations": [pc.path("pc/Saves"), pc.path("pc/Config")]]],
    ]
    try makeDirectory((pc.config as NSString).deletingLastPathComponent)
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: pc.config))
    try makeDirectory(pc.path("pc/Saves"))
    try makeDirectory(pc.path("pc/Config"))
    try writeFile(pc.path("pc/Saves/1.sav"), "pc\n")
    try writeFile(pc.path("pc/Config/game.log"), "the pc's log\n")
    try await pc.ok(["backup", "--game", "multi"])
    try Self.writeState(deck, 1)
    let restored = try await deck.runAwaiting(["sync", "--game", "multi", "--on-conflict", "restore"])
    #expect(restored.code == 0, "\(restored.stderr)")
    #expect(text(deck.path("a/Saves/1.sav")) == "pc\n", "the pc's save came")
    #expect(text(deck.path("b/Config/game.log")) == "log of run 1\n", "the deck's excluded log stayed")
    #expect(try await deck.state(["--game", "multi"]) == "in-sync")
  }

  @Test(
    "one game's location inside another of its folders is part of it: merged, each file packed once, existing or not"
  )
  func nestedLocations() async throws {
    let sandbox = try Sandbox("locations-nested")
    try writeFile(sandbox.path("a/Saves/slot/1.sav"), "one\n")
    try writeFile(sandbox.path("a/Saves/options.ini"), "opts\n")
    try Self.write(
      sandbox,
      locations: [
        sandbox.path("a/Saves"), sandbox.path("a/Saves/slot"), sandbox.path("a/Saves/options.ini"),
        sandbox.path("a/Saves/not-made-yet"),
      ])
    try await sandbox.ok(["backup", "--game", "multi"])
    let archive = try #require(sandbox.archives("multi").last)
    let listed = try await runProgramAwaiting("/bin/tar", ["-tf", sandbox.cloud + "/multi/" + archive])
    let names = listed.stdout.split(separator: "\n").filter { !$0.hasPrefix(".savevault") }.sorted()
    #expect(names == ["1-Saves/options.ini", "1-Saves/slot/", "1-Saves/slot/1.sav"], "\(listed.stdout)")
  }

  @Test("another device restores each location into its own folders, matched by name")
  func anotherDevice() async throws {
    let deck = try Self.world("two-devices", device: "deck")
    try Self.writeState(deck, 1)
    let made = Self.state(deck)
    try await deck.ok(["backup", "--game", "multi"])
    let desktop = deck.device("desktop")
    try Self.write(desktop, locations: [desktop.path("desk/one/Saves"), desktop.path("desk/two/Config")])
    try await desktop.ok(["restore", "--game", "multi", "--latest"])
    #expect(digestTree(desktop.path("desk/one/Saves")) == digestTree(deck.path("a/Saves")))
    #expect(
      digestTree(desktop.path("desk/two/Config")).keys.sorted() == ["options.ini"],
      "the desktop's second location holds the deck's (no log: excluded)")
    #expect(Self.state(deck) == made)
    #expect(try await desktop.state(["--game", "multi"]) == "in-sync")
  }

  @Test(
    "a restore whose archive leaves one of the save's locations as it is still keeps the save it changed, whole"
  )
  func partialArchiveKeepsTheWholeSave() async throws {
    // The deck knows only the first location: its archive holds nothing for the second.
    let deck = try Sandbox("locations-partial", device: "deck")
    try Self.write(deck, locations: [deck.path("a/Saves")])
    try writeFile(deck.path("a/Saves/slot/1.sav"), "deck\n")
    try await deck.ok(["backup", "--game", "multi"])
    // The desktop has both; its first is empty (deleted by the player), its second holds files.
    let desktop = deck.device("desktop")
    try Self.write(desktop, locations: [desktop.path("desk/Saves"), desktop.path("desk/Config")])
    try writeFile(desktop.path("desk/Config/options.ini"), "desktop's own\n")
    try await desktop.ok(["restore", "--game", "multi", "--latest"])
    #expect(text(desktop.path("desk/Saves/slot/1.sav")) == "deck\n")
    let copies = try await desktop.ok(["list", "--pre-restore", "--game", "multi", "--json"])
    let listed = try jsonObject(copies.stdout)["copies"] as? [[String: Any]] ?? []
    #expect(listed.count == 1, "the save from before the restore is kept: \(copies.stdout)")
  }

  @Test("an archive location with no place here is refused before anything changes (exit 2)")
  func locationNotHere() async throws {
    // The deck's second location is in the Proton prefix of Steam app 999, which the desktop
    // does not have.
    let deck = try Sandbox("locations-not-here", device: "deck")
    let steam = try deck.steamGame(999, "Nope")
    let documents = steam + "/steamapps/compatdata/999/pfx/drive_c/users/steamuser/Documents"
    try writeFile(documents + "/Nope/slot.sav", "the deck's save\n")
    try makeDirectory(deck.path("a/Saves"))
    try writeFile(deck.path("a/Saves/1.sav"), "one\n")
    let config: [String: Any] = [
      "container": deck.cloud,
      "games": ["multi": ["locations": [deck.path("a/Saves"), "<winDocuments>/Nope"], "steamAppId": "999"]],
    ]
    try makeDirectory((deck.config as NSString).deletingLastPathComponent)
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: deck.config))
    try await deck.ok(["backup", "--game", "multi"])

    let desktop = deck.device("desktop")
    try Self.write(desktop, locations: [desktop.path("only/Saves")])
    try makeDirectory(desktop.path("only/Saves"))
    try writeFile(desktop.path("only/Saves/mine.sav"), "the desktop's own\n")
    let refused = try await desktop.runAwaiting(["restore", "--game", "multi", "--latest"])
    #expect(refused.code == 2, "\(refused.stderr)")
    #expect(refused.stderr.contains("<winDocuments>/Nope"), "\(refused.stderr)")
    #expect(refused.stderr.contains("999"), "says which game is missing: \(refused.stderr)")
    #expect(text(desktop.path("only/Saves/mine.sav")) == "the desktop's own\n", "nothing changed")
    #expect(((try? Platform.directoryNames(desktop.path("only"))) ?? []) == ["Saves"], "nothing left beside")
  }

  @Test(
    "SIGKILL at every point of a restore leaves every location old or every location new",
    arguments: [
      "progress.extracting=kill@1", "restore.extracted=kill", "restore.journaled=kill",
      "restore.between-renames=kill", "restore.between-renames=kill@2", "restore.swapped=kill",
      "restore.kept=kill",
    ])
  func killDuringRestore(point: String) async throws {
    let sandbox = try Self.world("kill")
    try Self.writeState(sandbox, 1)
    let first = Self.state(sandbox)
    try await sandbox.ok(["backup", "--game", "multi"])
    let older = try #require(sandbox.archives("multi").first)
    try Self.writeState(sandbox, 2)
    let second = Self.state(sandbox)
    try await sandbox.ok(["backup", "--game", "multi"])
    let killed = try await sandbox.runAwaiting(
      ["restore", "--game", "multi", "--archive", older], environment: ["SAVEVAULT_FAILPOINTS": point])
    try #require(killed.wasSignaled && killed.code == SIGKILL, "\(point) never fired: \(killed.stderr)")
    let status = try await sandbox.runAwaiting(["status", "--game", "multi", "--json"])
    try #require(status.code == 0, "status after a kill at \(point): \(status.stderr)")
    let after = Self.state(sandbox)
    #expect(after == first || after == second, "the locations are a mix after a kill at \(point)")
    if ["restore.between-renames", "restore.swapped", "restore.kept"].contains(where: point.hasPrefix)
      || point == "restore.journaled=kill"
    {
      #expect(after == first, "a kill after the journal finishes the restore (\(point))")
    } else {
      #expect(after == second, "a kill before the journal keeps the old save (\(point))")
    }
    #expect(text(sandbox.path("b/Config/game.log")) == "log of run 2\n", "the excluded log stayed (\(point))")
    let leftovers = ["a", "b"].flatMap { folder in
      ((try? Platform.directoryNames(sandbox.path(folder))) ?? []).filter { $0.hasPrefix(".savevault") }
    }
    #expect(leftovers == [], "left beside the locations after \(point): \(leftovers)")
    // The replaced save can be got back: undo puts the second state back.
    if after == first {
      try await sandbox.ok(["restore", "--game", "multi", "--undo"])
      #expect(Self.state(sandbox) == second, "undo after a kill at \(point) puts the replaced save back")
    }
  }

  /// Found by the simulation (`SAVEVAULT_SIM_LOCATIONS=100 scripts/simulate.sh 20261149`): a
  /// restore killed between the renames of its second location, whose folder was empty; the
  /// game then runs (not through SaveVault) and writes into both locations; the next command
  /// finishes the restore. It takes the game's new second folder for the old one still to be
  /// moved aside (the folder set aside is empty), so the save becomes the game's first location
  /// with the archive's second, and the game's save exists whole nowhere.
  @Test("a game that wrote into every location after a killed restore keeps its save whole")
  func gameWroteAfterKilledRestore() async throws {
    let sandbox = try Self.world("played-after-kill")
    try makeDirectory(sandbox.path("b/Config"))
    try writeFile(sandbox.path("a/Saves/1.sav"), "first\n")
    try await sandbox.ok(["backup", "--game", "multi"])
    let restored = Self.state(sandbox)
    try writeFile(sandbox.path("a/Saves/1.sav"), "second\n")
    let killed = try await sandbox.runAwaiting(
      ["restore", "--game", "multi", "--latest"],
      environment: ["SAVEVAULT_FAILPOINTS": "restore.between-renames=kill@2"])
    try #require(killed.wasSignaled && killed.code == SIGKILL, "the kill never fired: \(killed.stderr)")
    // The game runs: the first location is the archive's by now, the second is set aside.
    try writeFile(sandbox.path("a/Saves/1.sav"), "played\n")
    try writeFile(sandbox.path("b/Config/options.ini"), "played\n")
    let played = Self.state(sandbox)
    try await sandbox.ok(["status", "--game", "multi"])
    let after = Self.state(sandbox)
    try await Self.expectWhole(sandbox, after: after, played: played, restored: restored)
  }

  /// After the recovery the save is the game's, or the archive's with the game's one undo away:
  /// never a mix.
  static func expectWhole(
    _ sandbox: Sandbox, after: [String: String], played: [String: String], restored: [String: String]
  ) async throws {
    #expect(after == played || after == restored, "the save is a mix after the recovery: \(after)")
    if after == restored {
      try await sandbox.ok(["restore", "--game", "multi", "--undo"])
      #expect(Self.state(sandbox) == played, "undo brings back the game's save whole")
    }
  }

  /// Found by the simulation (`SAVEVAULT_SIM_LOCATIONS=100 scripts/simulate.sh 20262086`): a
  /// restore of several locations fails once its journal is written; the game then writes into
  /// both locations; the next command finishes the restore, but packing the replaced save
  /// fails. The folders set aside are then kept as two pre-restore folders, one per location
  /// and without its name, so the game's save exists whole nowhere; `restore --undo` then
  /// leaves both locations without a save file.
  @Test("a restore of several locations finished with a failure keeps the replaced save whole")
  func finishingFailsToPack() async throws {
    let sandbox = try Self.world("finish-fails")
    try Self.writeState(sandbox, 1)
    try await sandbox.ok(["backup", "--game", "multi"])
    let restored = Self.state(sandbox)
    try Self.writeState(sandbox, 2)
    let failed = try await sandbox.runAwaiting(
      ["restore", "--game", "multi", "--latest"],
      environment: ["SAVEVAULT_FAILPOINTS": "restore.journaled=error"])
    try #require(failed.code != 0 && !failed.wasSignaled, "the failpoint never fired: \(failed.stderr)")
    // The game runs before the next command.
    try Self.writeState(sandbox, 3)
    let played = Self.state(sandbox)
    _ = try await sandbox.runAwaiting(
      ["status", "--game", "multi"], environment: ["SAVEVAULT_FAILPOINTS": "backup.packed=error"])
    let after = Self.state(sandbox)
    try await Self.expectWhole(sandbox, after: after, played: played, restored: restored)
  }
}
