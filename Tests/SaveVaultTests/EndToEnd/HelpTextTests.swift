import Foundation
import Testing

// The help texts through the built binary: what they promise is what the commands do.

/// The `(none)` line of a help text (with its continuation), or nil.
private func noTargetLine(_ help: String) -> String? {
  let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  guard let start = lines.firstIndex(where: { $0.hasPrefix("  (none)") }) else { return nil }
  var text = lines[start]
  for line in lines[(start + 1)...] {
    guard line.hasPrefix(String(repeating: " ", count: 23)) else { break }
    text += " " + line.trimmingCharacters(in: .whitespaces)
  }
  return text
}

@Suite("Help texts: each says what the command really does", .tags(.medium))
struct HelpTextTests {
  static let targetCommands = [
    "backup", "status", "sync", "doctor", "restore", "list", "verify", "prune", "wrap",
  ]

  @Test("each command's help says what no target means, and the command does that", arguments: targetCommands)
  func noTarget(_ command: String) async throws {
    let player = try Sandbox("none-\(command)")
    for (game, id) in [("a", "10"), ("b", "20")] {
      try writeFile(player.dir.sub("saves/\(game)/s.sav"), game)
      try await player.ok([
        "add", game, "--save-dir", "saves/\(game)", "--container", "cloud", "--steam-app-id", id,
      ])
    }
    let help = try await player.ok([command, "--help"]).stdout
    let line = try #require(noTargetLine(help), "\(command) --help does not say what no target means")
    var extra: [String] = []
    switch command {
    case "restore", "verify": extra = ["--latest"]
    case "prune": extra = ["--keep", "1"]
    case "wrap": extra = ["--", "/bin/true"]
    default: break
    }
    if line.contains("every game of the config file") {
      let result = try await player.runAwaiting([command] + extra)
      #expect(result.code == 0, "\(command): exit \(result.code), \(result.stderr)")
      for game in ["a", "b"] {
        #expect(
          result.stdout.split(separator: "\n").contains {
            $0.hasPrefix(game + " ") || $0.contains(" \(game):") || $0.hasPrefix(game + ":")
              || $0.contains("Backed up \(game):")
          },
          "\(command) with no target did not cover game \(game): \(result.stdout)")
      }
    } else if line.contains("usage error (exit 2)") {
      let result = try await player.runAwaiting([command] + extra)
      #expect(result.code == 2, "\(command): exit \(result.code), \(result.stderr)")
      #expect(result.stderr.contains("--game") && result.stderr.contains("--save-dir"), "\(result.stderr)")
    } else if line.contains("$SteamAppId") {
      let result = try await player.runAwaiting([command] + extra, environment: ["SteamAppId": "20"])
      #expect(result.code == 0, "\(result.stderr)")
      #expect(
        player.archives("b").count == 1 && player.archives("a").isEmpty, "wrap synced the game of id 20")
    } else {
      Issue.record("\(command): '\(line)' says something this test does not know")
    }
  }

  @Test(
    "wrap --help and sync --help list every conflict policy and describe --json", arguments: ["wrap", "sync"])
  func policies(_ command: String) async throws {
    let player = try Sandbox("policies-\(command)")
    let help = try await player.ok([command, "--help"]).stdout
    let lines = help.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    #expect(lines.contains { $0.hasPrefix("--on-conflict POLICY ") }, "\(help)")
    for policy in ["prompt", "upload", "restore", "newer", "skip", "fail"] {
      #expect(
        lines.contains { $0.hasPrefix(policy + " ") }, "\(command) --help does not describe '\(policy)'")
    }
    #expect(lines.contains { $0.hasPrefix("--json ") }, "\(command) --help does not describe --json: \(help)")
  }

  @Test("--help lists every command, manpage too, and each has its help")
  func everyCommandListed() async throws {
    let player = try Sandbox("commands")
    let main = try await player.ok(["--help"]).stdout
    let block = main.components(separatedBy: "Commands:\n").last?.components(separatedBy: "\n\n").first ?? ""
    let listed = block.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
    let all = Self.targetCommands + ["add", "games", "remove", "scan", "manifest", "completions", "manpage"]
    #expect(Set(listed) == Set(all), "listed: \(listed)")
    for command in all {
      #expect(
        try await player.runAwaiting([command, "--help"]).stdout.hasPrefix("Usage: savevault \(command)"),
        "\(command)")
    }
  }
}
