import Foundation
import Testing

@testable import SaveVault

/// Lutris's game database through the built binary. `pga.db` is a real Lutris database
/// (Tests/Fixtures/lutris/ludusavi-lutris-split-pga.db: Ludusavi's launcher fixture,
/// https://github.com/mtkennerly/ludusavi `tests/launchers/lutris-split/data/pga.db` at commit
/// 7cf8e8d6d4eaacf6d9beae88bde43176f5e69540), its two rows' names, slugs and folders set to
/// this test's games (real manifest entries, Tests/Fixtures/manifest-real-games.yaml).
@Suite("Lutris's pga.db end to end: games of the database, read-only", .tags(.medium))
struct LutrisDatabaseEndToEndTests {
  @Test("a row alone, and a row with its game file (whose prefix wins): scanned, added, backed up, restored")
  func database() async throws {
    let sandbox = try Sandbox.withRealManifest("lutris-db")
    let home = sandbox.home
    let lutris = home + "/.local/share/lutris"
    let database = lutris + "/pga.db"
    try makeDirectory(lutris)
    try FileManager.default.copyItem(atPath: fixture("lutris/ludusavi-lutris-split-pga.db"), toPath: database)
    // Row 2 (game file `windows-game-1683516078`, none here): 1348 Ex Voto, by its Lutris slug,
    // in a Wine prefix. Row 3 (`windows-game-1683516079`): a folder the game file overrides.
    let voto = home + "/Games/1348/drive_c/users/alice/AppData/Local/P1348/Saved/SaveGames"
    let gnorpPrefix = home + "/Games/gnorp"
    let gnorp = gnorpPrefix + "/drive_c/users/alice/AppData/Roaming/Gnorp/Apologue/Saves"
    try makeDirectory(home + "/Games/stale/drive_c")
    let update = """
      import sqlite3, sys
      db = sqlite3.connect(sys.argv[1])
      db.execute("UPDATE games SET name = '1348 Ex Voto', slug = '1348-ex-voto', directory = ? WHERE id = 2", (sys.argv[2],))
      db.execute("UPDATE games SET platform = 'Windows', directory = ? WHERE id = 3", (sys.argv[3],))
      db.commit()
      """
    try await runProgramAwaiting(
      "/usr/bin/python3", ["-c", update, database, home + "/Games/1348", home + "/Games/stale"])
    try writeFile(
      home + "/.config/lutris/games/windows-game-1683516079.yml",
      "game:\n  exe: \(home)/Games/gnorp/drive_c/Gnorp/Gnorp.exe\n  prefix: \(gnorpPrefix)\ngame_slug: the-gnorp-apologue\nname: (the) Gnorp Apologue\n"
    )
    try writeFile(voto + "/slot.sav", "voto progress")
    try writeFile(gnorp + "/slot.sav", "gnorp progress")
    let before = try FileManager.default.contentsOfDirectory(atPath: lutris).sorted()
    let bytes = FileManager.default.contents(atPath: database)
    let modified = try FileManager.default.attributesOfItem(atPath: database)[.modificationDate] as? Date

    let found = try jsonList(await sandbox.ok(["scan", "--json"]).stdout)
    #expect(
      Set(found.compactMap { $0["title"] as? String }) == ["1348 Ex Voto", "(the) Gnorp Apologue"], "\(found)"
    )
    let paths = found.flatMap {
      ($0["locations"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    }
    #expect(paths.contains(voto) && paths.contains(gnorp), "the game file's prefix, not the row's: \(paths)")

    try await sandbox.addBackUpAndRestore("1348 Ex Voto", save: voto + "/slot.sav", content: "voto progress")
    try await sandbox.addBackUpAndRestore(
      "(the) Gnorp Apologue", save: gnorp + "/slot.sav", content: "gnorp progress")
    let entry = (try sandbox.configObject()["games"] as? [String: Any])?["1348 Ex Voto"] as? [String: Any]
    #expect(entry?["store"] as? String == "lutris" && entry?["storeGameId"] as? String == "1348-ex-voto")

    // Read-only and immutable: the database is as it was, and nothing was made beside it.
    #expect(try FileManager.default.contentsOfDirectory(atPath: lutris).sorted() == before)
    #expect(FileManager.default.contents(atPath: database) == bytes)
    #expect(
      try FileManager.default.attributesOfItem(atPath: database)[.modificationDate] as? Date == modified)
  }

  @Test("a file that is not a database skips it with a warning; the game files are still read")
  func damaged() async throws {
    let sandbox = try Sandbox.withRealManifest("lutris-db-damaged")
    let home = sandbox.home
    try writeFile(
      home + "/.local/share/lutris/pga.db", "not a database, just text long enough to be a header")
    let prefix = home + "/Games/gnorp"
    try writeFile(
      home + "/.config/lutris/games/gnorp.yml",
      "game:\n  prefix: \(prefix)\ngame_slug: the-gnorp-apologue\nname: (the) Gnorp Apologue\n")
    try writeFile(prefix + "/drive_c/users/alice/AppData/Roaming/Gnorp/Apologue/Saves/slot.sav", "x")
    let scanned = try await sandbox.ok(["scan", "--json"])
    #expect(
      try jsonList(scanned.stdout).compactMap { $0["title"] as? String } == ["(the) Gnorp Apologue"],
      "\(scanned.stdout)")
    #expect(scanned.stderr.contains("Lutris's game database was not read"), "\(scanned.stderr)")
  }

  @Test("a database damaged after its game was added: each command names it instead of a missing game")
  func damagedLater() async throws {
    let sandbox = try Sandbox.withRealManifest("lutris-db-damaged-later")
    let home = sandbox.home
    let database = home + "/.local/share/lutris/pga.db"
    try makeDirectory(home + "/.local/share/lutris")
    try FileManager.default.copyItem(atPath: fixture("lutris/ludusavi-lutris-split-pga.db"), toPath: database)
    let update = """
      import sqlite3, sys
      db = sqlite3.connect(sys.argv[1])
      db.execute("UPDATE games SET name = '1348 Ex Voto', slug = '1348-ex-voto', directory = ? WHERE id = 2", (sys.argv[2],))
      db.commit()
      """
    try await runProgramAwaiting("/usr/bin/python3", ["-c", update, database, home + "/Games/1348"])
    try writeFile(home + "/Games/1348/drive_c/users/alice/AppData/Local/P1348/Saved/SaveGames/slot.sav", "x")
    try await sandbox.ok(["add", "1348 Ex Voto", "--detect"])
    try await sandbox.ok(["backup", "--game", "1348 Ex Voto"])

    let bytes = try #require(FileManager.default.contents(atPath: database))
    try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: database))
    for command in [["backup", "--game", "1348 Ex Voto"], ["status", "--game", "1348 Ex Voto"], ["doctor"]] {
      let run = try await sandbox.runAwaiting(command)
      #expect(run.stderr.contains(database) || run.stdout.contains(database), "\(command): \(run.stderr)")
      #expect(!(run.stderr + run.stdout).contains("not installed here"), "\(command): \(run.stderr)")
    }
  }

  @Test("a game installed twice (two game files): each install's save is backed up and restored to it")
  func installedTwice() async throws {
    let sandbox = try Sandbox.withRealManifest("lutris-twice")
    let home = sandbox.home
    var saves: [String] = []
    for install in [1, 2] {
      let prefix = home + "/Games/gnorp-\(install)"
      try writeFile(
        home + "/.config/lutris/games/the-gnorp-apologue-\(install).yml",
        "game:\n  prefix: \(prefix)\ngame_slug: the-gnorp-apologue\nname: (the) Gnorp Apologue\n")
      let save = prefix + "/drive_c/users/alice/AppData/Roaming/Gnorp/Apologue/Saves/slot.sav"
      try writeFile(save, "progress of install \(install)")
      saves.append(save)
    }
    let found = try jsonList(await sandbox.ok(["scan", "--json"]).stdout)
    let paths = found.flatMap {
      ($0["locations"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    }
    #expect(
      saves.allSatisfy { save in paths.contains { save.hasPrefix($0) } }, "every install's save: \(paths)")
    try await sandbox.ok(["add", "(the) Gnorp Apologue", "--detect"])
    try await sandbox.ok(["backup", "--game", "(the) Gnorp Apologue"])
    for save in saves { try writeFile(save, "lost progress") }
    try await sandbox.ok(["restore", "--game", "(the) Gnorp Apologue", "--latest"])
    #expect(saves.map(text) == ["progress of install 1", "progress of install 2"])
  }
}
