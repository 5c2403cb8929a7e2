import Foundation
import Testing

/// A game whose save is a glob over a folder's files (`<home>/Saves/**/*.sav`), through the
/// built binary: folders and files of names that are not UTF-8, symlinks and symlink loops in
/// that folder.
@Suite("Glob locations through the binary", .tags(.medium))
struct GlobLocationTests {
  /// Python, which handles names as bytes (`dump ROOT` prints a tree as JSON, hex names and
  /// contents: Tests/Fixtures/names-as-bytes.py).
  static let script = fixture("names-as-bytes.py")

  /// Runs `code` in python3 with `arguments`; its output.
  @discardableResult
  static func python(_ code: String, _ arguments: [String]) async throws -> String {
    let result = try await runProgramAwaiting(try requiredProgram("python3"), ["-c", code] + arguments)
    try #require(result.code == 0, "python: \(result.stderr)")
    return result.stdout
  }

  /// The tree under `root` as `names-as-bytes.py dump` prints it.
  static func dump(_ root: String) async throws -> String {
    let result = try await runProgramAwaiting(try requiredProgram("python3"), [script, "dump", root])
    try #require(result.code == 0, "dump: \(result.stderr)")
    return result.stdout
  }

  /// Writes the bytes-named file `relative` (Python bytes literal syntax) under `root`.
  static func write(_ root: String, _ relative: String, _ content: String) async throws {
    try await python(
      "import os, sys; p = os.fsencode(sys.argv[1]) + b'/' + \(relative); os.makedirs(os.path.dirname(p), exist_ok=True); open(p, 'wb').write(sys.argv[2].encode())",
      [root, content])
  }

  /// Two devices of one container, each with the game `g` saving `<home>/Saves/**/*.sav`.
  static func devices(_ label: String, locations: [String] = ["<home>/Saves/**/*.sav"]) throws -> (
    pc: Sandbox, deck: Sandbox
  ) {
    let pc = try Sandbox("glob-" + label)
    let deck = pc.device("deck")
    for device in [pc, deck] {
      let config: [String: Any] = ["container": pc.cloud, "games": ["g": ["locations": locations]]]
      try makeDirectory((device.config as NSString).deletingLastPathComponent)
      try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: device.config))
    }
    return (pc, deck)
  }

  @Test(
    "files in subfolders whose names are not UTF-8 are archived, a change in them is seen, and another device gets them back byte for byte"
  )
  func nonUTF8Subfolders() async throws {
    let (pc, deck) = try Self.devices("non-utf8")
    let saves = pc.home + "/Saves"
    try await Self.write(saves, "b'sl\\xe9ot/a.sav'", "latin-1 folder")
    try await Self.write(saves, "b'\\x83Z\\x81[\\x83u/deep/b.sav'", "shift-jis folder")
    try await Self.write(saves, "b'top.sav'", "top")
    let backup = try jsonObject(await pc.ok(["backup", "--game", "g", "--json"]).stdout)
    #expect(backup["files"] as? Int == 3, "every file is archived: \(backup)")
    #expect(try await pc.state(["--game", "g"]) == "in-sync")

    try await Self.write(saves, "b'\\x83Z\\x81[\\x83u/deep/b.sav'", "shift-jis folder, played on")
    #expect(try await pc.state(["--game", "g"]) == "local-changed", "a change in a Shift-JIS folder is seen")
    try await pc.ok(["backup", "--game", "g"])

    let restore = try await deck.runAwaiting(["restore", "--game", "g", "--latest"])
    #expect(restore.code == 0, "\(restore.stderr)")
    #expect(try await Self.dump(deck.home + "/Saves") == (try await Self.dump(saves)))
    #expect(try await deck.state(["--game", "g"]) == "in-sync")
  }

  @Test(
    "a link in the glob's folder is kept as a link as a folder location keeps it, restored as a link; one leading out is skipped, never followed"
  )
  func symlinks() async throws {
    let (pc, deck) = try Self.devices("links", locations: ["<home>/Saves/**/*.sav", "<home>/Other/out.sav"])
    let saves = pc.home + "/Saves"
    try writeFile(saves + "/top.sav", "top")
    try writeFile(pc.path("elsewhere/out.sav"), "not the game's")
    try writeFile(pc.path("elsewhere/x.sav"), "not the game's either")
    #expect(symlink("top.sav", saves + "/current.sav") == 0)
    #expect(symlink(pc.path("elsewhere/out.sav"), saves + "/out.sav") == 0)
    #expect(symlink(pc.path("elsewhere"), saves + "/linked") == 0)
    try makeDirectory(pc.home + "/Other")
    #expect(symlink(pc.path("elsewhere/out.sav"), pc.home + "/Other/out.sav") == 0)

    let status = try await pc.status(["--game", "g"])
    let paths = (status["locations"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    #expect(!paths.contains { $0.contains("elsewhere") }, "no location is where a link leads: \(paths)")
    let backup = try jsonObject(await pc.ok(["backup", "--game", "g", "--json"]).stdout)
    #expect(backup["files"] as? Int == 1, "\(backup)")
    let skipped = backup["skipped"] as? [String] ?? []
    #expect(skipped.contains { $0.hasSuffix("/out.sav") }, "links leading out are skipped, said: \(skipped)")
    let archive = pc.cloud + "/g/" + (try #require(pc.archives("g").last))
    let listed = try await runProgramAwaiting("/bin/tar", ["-tvf", archive])
    #expect(!listed.stdout.contains("not the game"), "\(listed.stdout)")
    #expect(!listed.stdout.contains("x.sav"), "nothing through the linked folder: \(listed.stdout)")
    #expect(
      listed.stdout.contains("current.sav -> top.sav"), "the link is archived as a link: \(listed.stdout)")

    try await deck.ok(["restore", "--game", "g", "--latest"])
    let restored = deck.home + "/Saves"
    #expect(
      (try? FileManager.default.destinationOfSymbolicLink(atPath: restored + "/current.sav")) == "top.sav")
    #expect(text(restored + "/top.sav") == "top")
    #expect(try await deck.state(["--game", "g"]) == "in-sync")
  }

  @Test(
    "`scan` ends through folders that link to their parent or themselves, and counts files of any name once")
  func scanLoopsAndCounts() async throws {
    let player = try Sandbox("glob-scan")
    // The manifest's `<home>/Saves/ZOG/Hercules4CE/**/*.sav`, a linux game of no install folder.
    let saves = player.home + "/Saves/ZOG/Hercules4CE"
    try await Self.write(saves, "b'slot1.sav'", "12345")
    try await Self.write(saves, "b'caf\\xe9.sav'", "123")
    try await Self.write(saves, "b'sl\\xe9ot/deep/b.sav'", "12")
    #expect(symlink("..", saves + "/sl\u{e9}ot-up") == 0)
    try makeDirectory(saves + "/sub")
    #expect(symlink("..", saves + "/sub/up") == 0)
    #expect(symlink(".", saves + "/sub/here") == 0)
    let scan = try await player.runAwaiting(
      ["scan", "--everywhere", "--json"],
      environment: ["SAVEVAULT_MANIFEST": fixture("manifest-real-games.yaml")],
      timeLimit: 60)
    try #require(scan.code == 0, "\(scan.code): \(scan.stderr)")
    let game = try #require(
      try jsonList(scan.stdout).first {
        ($0["title"] as? String ?? "").hasPrefix("12 Labours of Hercules IV")
      },
      "\(scan.stdout)")
    #expect(game["files"] as? Int == 3, "\(game)")
    #expect(game["bytes"] as? Int == 10, "\(game)")
  }
}
