import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Games in the config file: add, games, remove, status of every game", .tags(.large))
struct GamesTests {
  @Test("add creates the config file with absolute paths, and --game then finds the game")
  func addCreates() async throws {
    let player = try Sandbox("add")
    try writeFile(player.dir.sub("saves/celeste/slot1.sav"), "chapter 3")
    let added = try await player.ok([
      "add", "celeste", "--save-dir", "saves/celeste", "--container", "cloud", "--steam-app-id", "504230",
      "--json",
    ])
    let report = try jsonObject(added.stdout)
    #expect(report["replaced"] as? Bool == false)
    #expect(report["configFile"] as? String == player.config)
    let entry = try #require(lookup(try player.configObject(), "games.celeste") as? [String: Any])
    #expect(entry["saveDir"] as? String == player.dir.sub("saves/celeste"))
    #expect(entry["container"] as? String == player.cloud)
    #expect(entry["steamAppId"] as? String == "504230")
    var mode = stat()
    #expect(stat(player.config, &mode) == 0 && mode.st_mode & 0o077 == 0, "the config file is private")

    try await player.ok(["backup", "--game", "celeste"])
    #expect(player.archives("celeste").count == 1)

    let s3 = try await player.ok(["add", "hollow", "--save-dir", "~/hk", "--container", "s3://saves/deck"])
    #expect(s3.stdout.contains("Added hollow to \(player.config)"))
    #expect(lookup(try player.configObject(), "games.hollow.container") as? String == "s3://saves/deck")
    #expect(lookup(try player.configObject(), "games.hollow.saveDir") as? String == player.home + "/hk")
    #expect(s3.stderr.contains("does not exist yet"), "a missing save directory is allowed, with a note")
  }

  @Test("add keeps every other game and setting, including keys it does not know")
  func addKeepsTheRest() async throws {
    let player = try Sandbox("keep")
    let original = """
      {"device": "deck", "container": "/mnt/nas", "allowInsecureHTTP": true, "endpoint": "http://nas:9000",
       "limits": {"maxEntries": 1000, "maxBytes": 68719476736}, "x-note": ["kept", 1.5, null],
       "games": {"other": {"saveDir": "/o", "steamAppId": "7", "x-extra": {"a": false}}}}
      """
    try writeFile(player.config, original)
    let before = try player.configObject()
    try await player.ok(["add", "new", "--save-dir", "/n"])
    var after = try player.configObject()
    var games = try #require(after["games"] as? [String: Any])
    #expect(games.removeValue(forKey: "new") != nil)
    after["games"] = games
    func canonical(_ object: [String: Any]) throws -> String {
      let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
      return String(decoding: data, as: UTF8.self)
    }
    #expect(try canonical(after) == canonical(before))
    let text = try String(contentsOfFile: player.config, encoding: .utf8)
    #expect(text.contains("\"allowInsecureHTTP\" : true") && text.contains("\"a\" : false"), "\(text)")
  }

  @Test("a name already there is refused (exit 2, file unchanged) unless --replace")
  func duplicate() async throws {
    let player = try Sandbox("dup")
    try await player.ok(["add", "celeste", "--save-dir", "/a", "--steam-app-id", "504230"])
    let before = player.configBytes()
    let again = try await player.runAwaiting(["add", "celeste", "--save-dir", "/b"])
    #expect(again.code == 2)
    #expect(again.stderr.contains("already in config file") && again.stderr.contains("--replace"))
    #expect(player.configBytes() == before)

    let replaced = try await player.ok(["add", "celeste", "--save-dir", "/b", "--replace", "--json"])
    #expect(try jsonObject(replaced.stdout)["replaced"] as? Bool == true)
    let entry = try #require(lookup(try player.configObject(), "games.celeste") as? [String: Any])
    #expect(entry["saveDir"] as? String == "/b")
    #expect(entry["steamAppId"] == nil, "--replace replaces the entry whole")
  }

  @Test(
    "bad input exits 2 and writes nothing",
    arguments: [
      ["add", "../x", "--save-dir", "/s"], ["add", ".", "--save-dir", "/s"],
      ["add", "..", "--save-dir", "/s"],
      ["add", "a/b", "--save-dir", "/s"], ["add", ".hidden", "--save-dir", "/s"],
      ["add", String(repeating: "x", count: 201), "--save-dir", "/s"], ["add", "", "--save-dir", "/s"],
      ["add", "tab\tname", "--save-dir", "/s"], ["add", "g"], ["add", "--save-dir", "/s"],
      ["add", "g", "extra", "--save-dir", "/s"], ["add", "g", "--save-dir", "/s", "--container", "ftp://x"],
      ["add", "g", "--save-dir", "/s", "--container", "s3://"],
      ["add", "g", "--save-dir", "/s", "--container", "rclone:nocolon"],
      ["add", "g", "--save-dir", "/s", "--steam-app-id", "12a"],
      ["add", "g", "--save-dir", "/s", "--steam-app-id", "0"],
      ["add", "g", "--save-dir", "/s", "--steam-app-id", "99999999999"],
      ["add", "g", "--save-dir", "pipe"], ["add", "g", "--save-dir", "/s", "--force"],
      ["remove"], ["remove", "a", "b"], ["remove", "unknown"], ["games", "--game", "x"], ["games", "x"],
    ])
  func badInput(_ arguments: [String]) async throws {
    let player = try Sandbox("bad")
    // Neither a folder nor a regular file (a file is a save of that one file).
    try #require(mkfifo(player.dir.sub("pipe"), 0o600) == 0)
    let fresh = try await player.runAwaiting(arguments)
    #expect(fresh.code == 2, "\(arguments): \(fresh.stderr)")
    #expect(!fresh.stderr.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: player.config), "no config file was created")

    try await player.ok(["add", "kept", "--save-dir", "/k"])
    let before = player.configBytes()
    #expect(try await player.runAwaiting(arguments).code == 2)
    #expect(player.configBytes() == before)
  }

  @Test("one Steam app id names one game; a broken config file is never overwritten")
  func steamIdsAndBrokenConfig() async throws {
    let player = try Sandbox("steamid")
    try await player.ok(["add", "celeste", "--save-dir", "/a", "--steam-app-id", "504230"])
    let taken = try await player.runAwaiting(["add", "other", "--save-dir", "/b", "--steam-app-id", "504230"])
    #expect(taken.code == 2 && taken.stderr.contains("already belongs to game 'celeste'"))
    try await player.ok(["add", "celeste", "--save-dir", "/a", "--steam-app-id", "504230", "--replace"])

    try writeFile(player.config, "{\"games\": {\"x\": ")
    for arguments in [["add", "g", "--save-dir", "/s"], ["remove", "x"], ["games"]] {
      let result = try await player.runAwaiting(arguments)
      #expect(result.code == 2 && result.stderr.contains("is unusable"), "\(arguments): \(result.stderr)")
      #expect(String(data: player.configBytes() ?? Data(), encoding: .utf8) == "{\"games\": {\"x\": ")
    }
  }

  @Test("a symlinked config file is changed where it really is; the link stays")
  func symlinkedConfig() async throws {
    let player = try Sandbox("link")
    let real = player.dir.sub("dotfiles/savevault.json")
    try writeFile(real, "{\"device\": \"deck\"}")
    try makeDirectory(player.home + "/.config/savevault")
    try FileManager.default.createSymbolicLink(atPath: player.config, withDestinationPath: real)
    try await player.ok(["add", "celeste", "--save-dir", "/a"])
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: player.config)) == real)
    let text = try String(contentsOfFile: real, encoding: .utf8)
    #expect(text.contains("\"celeste\"") && text.contains("\"deck\""))
  }

  @Test("remove forgets the game and its agreements, and deletes no save; an unknown name exits 2 saying so")
  func remove() async throws {
    let player = try Sandbox("remove")
    try writeFile(player.dir.sub("saves/a/s.sav"), "a")
    try await player.ok(["add", "a", "--save-dir", "saves/a", "--container", "cloud"])
    try await player.ok(["add", "b", "--save-dir", "/b"])
    try await player.ok(["sync", "--game", "a"])
    let agreements = player.home + "/.local/state/savevault/ledger"
    #expect(try FileManager.default.contentsOfDirectory(atPath: agreements).contains { $0.hasPrefix("a-") })

    let removed = try await player.ok(["remove", "a"])
    #expect(removed.stdout.contains("No save was deleted"))
    #expect(lookup(try player.configObject(), "games.a") == nil)
    #expect(lookup(try player.configObject(), "games.b.saveDir") as? String == "/b")
    #expect(FileManager.default.contents(atPath: player.dir.sub("saves/a/s.sav")) == Data("a".utf8))
    #expect(player.archives("a").count == 1)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: agreements).allSatisfy { !$0.hasPrefix("a-") })
    // Added back, the save is the cloud's: in sync at once.
    try await player.ok(["add", "a", "--save-dir", "saves/a", "--container", "cloud"])
    #expect(try await player.ok(["status", "--game", "a"]).stdout.contains("in-sync"))
    try await player.ok(["remove", "a"])

    let unknown = try await player.runAwaiting(["remove", "a"])
    #expect(unknown.code == 2)
    #expect(
      unknown.stderr.contains("no game 'a' in config file") && unknown.stderr.contains("its games: b"),
      "\(unknown.stderr)")
    let json = try await player.ok(["remove", "b", "--json"])
    #expect(try jsonObject(json.stdout)["saveDir"] as? String == "/b")
    #expect(lookup(try player.configObject(), "games") as? [String: Any] != nil)
  }

  @Test(
    "games lists each game with its state; an unreachable container is that game's row, and its exit code as in status"
  )
  func listing() async throws {
    let player = try Sandbox("games")
    let empty = try await player.ok(["games"])
    #expect(empty.stdout.contains("No games in"))
    #expect(try jsonList(try await player.ok(["games", "--json"]).stdout).isEmpty)

    try writeFile(player.dir.sub("saves/a/s.sav"), "a")
    try writeFile(player.dir.sub("saves/b/s.sav"), "b")
    try await player.ok(["add", "a", "--save-dir", "saves/a", "--container", "cloud", "--steam-app-id", "10"])
    try await player.ok(["add", "b", "--save-dir", "saves/b", "--container", "unplugged-drive"])
    try await player.ok(["sync", "--game", "a"])

    let text = try await player.runAwaiting(["games"])
    #expect(text.code == 4, "as status: the unavailable game's exit code, after every game is listed")
    let lines = text.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first?.hasPrefix("GAME") == true)
    #expect(
      lines.contains {
        $0.hasPrefix("a ") && $0.contains("in-sync") && $0.contains(player.cloud) && $0.hasSuffix("10")
      })
    #expect(lines.contains { $0.hasPrefix("b ") && $0.contains("unavailable") })
    #expect(lines.contains { $0.hasPrefix("b: ") && $0.contains("does not exist") })

    let json = try await player.runAwaiting(["games", "--json"])
    let status = try await player.runAwaiting(["status"])
    #expect(json.code == 4 && json.code == status.code, "games exits as status does")
    let list = try jsonList(json.stdout)
    #expect(list.map { $0["game"] as? String } == ["a", "b"])
    #expect(list[0]["state"] as? String == "in-sync" && list[0]["error"] is NSNull)
    #expect(list[0]["steamAppId"] as? String == "10")
    #expect(list[1]["state"] is NSNull)
    #expect((list[1]["error"] as? String)?.contains("unavailable") == true)
  }

  @Test("status with no target prints one line per game; --json stays a list")
  func statusTable() async throws {
    let player = try Sandbox("table")
    try writeFile(player.dir.sub("saves/a/s.sav"), "a")
    try writeFile(player.dir.sub("saves/b/s.sav"), "b")
    try await player.ok(["add", "a", "--save-dir", "saves/a", "--container", "cloud"])
    try await player.ok(["add", "b", "--save-dir", "saves/b", "--container", "cloud"])
    try await player.ok(["sync", "--game", "a"])

    let table = try await player.ok(["status"])
    let lines = table.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 3, "\(table.stdout)")
    #expect(
      lines[0].split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        == "GAME STATE LOCAL NEWEST CHANGE CLOUD LATEST DEVICE")
    let a = lines[1].split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    #expect(a.first == "a" && a[1] == "in-sync" && a.last == "pc", "\(lines[1])")
    let b = lines[2].split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    #expect(b.first == "b" && b[1] == "cloud-empty" && b.last == "-" && b.contains("none"), "\(lines[2])")

    let list = try jsonList(try await player.ok(["status", "--json"]).stdout)
    #expect(list.map { $0["state"] as? String } == ["in-sync", "cloud-empty"])

    try await player.ok(["add", "c", "--save-dir", "saves/c", "--container", "unplugged-drive"])
    let partly = try await player.runAwaiting(["status"])
    #expect(partly.code == 4, "the unreachable game's exit code, after every game is listed")
    #expect(partly.stdout.split(separator: "\n").count == 4)
    #expect(partly.stdout.contains("unavailable"))
    #expect(partly.stderr.contains("c: container"))
  }
}
