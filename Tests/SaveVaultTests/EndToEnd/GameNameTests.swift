import Foundation
import Testing

// Game names through the built binary: a name is part of the file names SaveVault keeps per
// game (lock, agreement, journals, their temporary names), so it is limited in bytes, and the
// rule the error states is the one `add --help` and docs/commands.md state and the code applies.

/// `text` with its lines joined by single spaces (help and the docs wrap their sentences).
private func unwrapped(_ text: String) -> String {
  text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
    .joined(separator: " ")
}

@Suite("Game names: limited in bytes, with room for every file name SaveVault makes of them", .tags(.medium))
struct GameNameTests {
  static let rule = "1 to 200 bytes in UTF-8, with no '/', '\\' or control character, not starting with '.'"

  @Test(
    "a name of the longest length works in every command; one byte more is refused by add",
    arguments: [String(repeating: "x", count: 200), String(repeating: "é", count: 100)])
  func longestName(_ name: String) async throws {
    let player = try Sandbox("longname")
    try writeFile(player.dir.sub("saves/long/slot.sav"), "level 1")
    try await player.ok(["add", name, "--save-dir", "saves/long", "--container", "cloud"])
    try await player.ok(["backup", "--game", name])
    try writeFile(player.dir.sub("saves/long/slot.sav"), "level 2")
    try await player.ok(["status", "--game", name])
    try await player.ok(["restore", "--game", name, "--latest"])
    try await player.ok(["restore", "--game", name, "--undo"])
    try await player.ok(["sync", "--game", name])
    try await player.ok(["prune", "--game", name, "--keep", "1"])
    #expect(player.archives(name).count == 1)

    let longer = try await player.runAwaiting(["add", name + "x", "--save-dir", "saves/long"])
    #expect(longer.code == 2, "\(longer.stderr)")
    #expect(longer.stderr.contains("(this one is 201 bytes)"), "\(longer.stderr)")
  }

  @Test("a name short in characters but long in bytes is refused by add, --game and --save-dir (exit 2)")
  func longInBytes() async throws {
    let player = try Sandbox("bytes")
    let name = String(repeating: "🎮", count: 60)  // 60 characters, 240 bytes
    let save = player.dir.sub("saves/" + name)
    try writeFile(save + "/slot.sav", "level 1")

    let added = try await player.runAwaiting(["add", name, "--save-dir", save, "--container", "cloud"])
    #expect(added.code == 2, "add: exit \(added.code), \(added.stderr)")
    #expect(added.stderr.contains(Self.rule), "\(added.stderr)")
    #expect(!FileManager.default.fileExists(atPath: player.config))

    let derived = try await player.runAwaiting(["backup", "--save-dir", save, "--container", "cloud"])
    #expect(derived.code == 2, "backup: exit \(derived.code), \(derived.stderr)")
    #expect(derived.stderr.contains(Self.rule) && derived.stderr.contains("--game NAME"), "\(derived.stderr)")
    #expect(!derived.stderr.contains("too long"), "\(derived.stderr)")

    let given = try await player.runAwaiting([
      "backup", "--save-dir", save, "--game", name, "--container", "cloud",
    ])
    #expect(given.code == 2, "backup --game: exit \(given.code), \(given.stderr)")
    try await player.ok(["backup", "--save-dir", save, "--game", "short", "--container", "cloud"])
  }

  @Test("the error, add --help and docs/commands.md state the same rule")
  func oneRule() async throws {
    let player = try Sandbox("rule")
    let refused = try await player.runAwaiting(["add", ".hidden", "--save-dir", "/s"])
    #expect(refused.code == 2)
    #expect(refused.stderr.contains(Self.rule), "\(refused.stderr)")
    let help = try await player.ok(["add", "--help"]).stdout
    #expect(unwrapped(help).contains(Self.rule), "\(help)")
    let commands = try String(contentsOfFile: repositoryRoot + "/docs/commands.md", encoding: .utf8)
    #expect(unwrapped(commands).contains(Self.rule), "docs/commands.md does not state the rule")
    // What the rule says is what is accepted: each clause, at its edge.
    for (index, accepted) in ["a", "Hollow Knight: Silksong", "x.y", "名前"].enumerated() {
      try await player.ok(["add", accepted, "--save-dir", "/s\(index)"])  // one folder each: no overlaps
    }
    for refusedName in ["", ".x", "a/b", "a\\b", "a\u{7f}b", "a\nb", String(repeating: "x", count: 201)] {
      #expect(
        try await player.runAwaiting(["add", refusedName, "--save-dir", "/s"]).code == 2,
        "\(refusedName.debugDescription)")
    }
  }
}
