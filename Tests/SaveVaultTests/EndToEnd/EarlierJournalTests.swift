import Foundation
import Testing

/// A restore killed under an earlier version left its journal in that version's shape: a
/// one-folder game's (`destination`, `staging`, `aside`) in `restores/`, a game of several
/// locations' (`moves`, no `commit`) in `restores-locations/`. The next command finishes or
/// undoes it exactly as that version's recovery did. The folders are those a real kill leaves:
/// the binary is killed, and its journal rewritten in the earlier shape.
@Suite(
  "Journals of earlier versions: a restore killed under them is still finished or undone", .tags(.large))
struct EarlierJournalTests {
  /// Rewrites the journal at `path` (this version's shape) in the earlier one: for one folder,
  /// its one move's folders at the top; for several locations, without `commit`.
  static func rewriteAsEarlier(_ path: String, oneFolder: Bool) throws {
    let data = try #require(FileManager.default.contents(atPath: path), "no journal at \(path)")
    var journal = try jsonObject(String(decoding: data, as: UTF8.self))
    #expect(journal["commit"] as? String == (oneFolder ? "swap" : "journal"), "\(journal)")
    journal["commit"] = nil
    if oneFolder {
      let moves = try #require(journal["moves"] as? [[String: Any]])
      try #require(moves.count == 1 && moves[0]["name"] as? String == "", "\(moves)")
      journal["moves"] = nil
      journal["destination"] = moves[0]["destination"]
      journal["staging"] = moves[0]["staging"]
      journal["aside"] = moves[0]["aside"]
    }
    try JSONSerialization.data(withJSONObject: journal).write(to: URL(fileURLWithPath: path))
  }

  @Test(
    "a one-folder restore killed under an earlier version: put back before its swap, finished after",
    arguments: ["restore.between-renames", "restore.swapped"])
  func oneFolder(point: String) async throws {
    let sandbox = try Sandbox("earlier-journal-one")
    let target = ["--save-dir", sandbox.save, "--container", sandbox.cloud]
    try writeFile(sandbox.save + "/slot1.sav", "agreed")
    try await sandbox.ok(["backup"] + target)
    let restored = digestTree(sandbox.save)
    try writeFile(sandbox.save + "/slot1.sav", "played since")
    let replaced = digestTree(sandbox.save)
    let killed = try await sandbox.runAwaiting(
      ["restore", "--latest"] + target, environment: ["SAVEVAULT_FAILPOINTS": point + "=kill"])
    try #require(killed.wasSignaled && killed.code == SIGKILL, "\(point) never fired: \(killed.stderr)")
    let journal = sandbox.home + "/.local/state/savevault/restores/game.json"
    try Self.rewriteAsEarlier(journal, oneFolder: true)

    let status = try jsonObject(try await sandbox.ok(["status", "--json"] + target).stdout)
    #expect(!FileManager.default.fileExists(atPath: journal), "the journal stayed")
    let beside = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.path("saves"))) ?? []
    #expect(beside == ["game"], "left beside the save: \(beside)")
    if point == "restore.between-renames" {
      #expect(digestTree(sandbox.save) == replaced, "the save from before the restore is not back")
      #expect(status["state"] as? String == "local-changed", "\(status)")
    } else {
      #expect(digestTree(sandbox.save) == restored, "the restore was not finished")
      #expect(status["state"] as? String == "in-sync", "the agreement was not recorded: \(status)")
      try await sandbox.ok(["restore", "--undo"] + target)
      #expect(digestTree(sandbox.save) == replaced, "undo did not put back the replaced save")
    }
  }

  @Test("a restore of several locations killed under an earlier version once journaled is finished")
  func severalLocations() async throws {
    let sandbox = try LocationsTests.world("earlier-journal")
    try LocationsTests.writeState(sandbox, 1)
    try await sandbox.ok(["backup", "--game", "multi"])
    let restored = LocationsTests.state(sandbox)
    try LocationsTests.writeState(sandbox, 2)
    let replaced = LocationsTests.state(sandbox)
    let killed = try await sandbox.runAwaiting(
      ["restore", "--game", "multi", "--latest"],
      environment: ["SAVEVAULT_FAILPOINTS": "restore.journaled=kill"])
    try #require(killed.wasSignaled && killed.code == SIGKILL, "the kill never fired: \(killed.stderr)")
    let journal = sandbox.home + "/.local/state/savevault/restores-locations/multi.json"
    try Self.rewriteAsEarlier(journal, oneFolder: false)

    let status = try jsonObject(try await sandbox.ok(["status", "--game", "multi", "--json"]).stdout)
    #expect(!FileManager.default.fileExists(atPath: journal), "the journal stayed")
    #expect(LocationsTests.state(sandbox) == restored, "not every location was restored")
    #expect(status["state"] as? String == "in-sync", "the agreement was not recorded: \(status)")
    let leftovers = ["a", "b"].flatMap { folder in
      ((try? FileManager.default.contentsOfDirectory(atPath: sandbox.path(folder))) ?? []).filter {
        $0.hasPrefix(".savevault")
      }
    }
    #expect(leftovers == [], "left beside the locations: \(leftovers)")
    try await sandbox.ok(["restore", "--game", "multi", "--undo"])
    #expect(LocationsTests.state(sandbox) == replaced, "undo did not put back the replaced save")
  }
}
