import Foundation
import Testing

// What a new user found through the binary: a usage error printed once, a repeated option
// refused before anything is backed up, and completions that offer only what a command takes.

@Suite("Command lines through the binary: checked once, before anything runs", .tags(.medium))
struct CommandLineBinaryTests {
  /// A player with two games in the config file, each with a save.
  private func twoGames(_ label: String) async throws -> Sandbox {
    let player = try Sandbox(label)
    for game in ["one", "two"] {
      try writeFile(player.dir.sub("saves/\(game)/s.sav"), game)
      try await player.ok(["add", game, "--save-dir", "saves/\(game)", "--container", "cloud"])
    }
    return player
  }

  @Test("backup --compress bogus with two games: the usage error once, exit 2, nothing uploaded")
  func badChoiceOnce() async throws {
    let player = try await twoGames("bad-choice")
    let result = try await player.runAwaiting(["backup", "--compress", "bogus"])
    #expect(result.code == 2, "\(result.stderr)")
    let message = "--compress must be one of none, zstd, not 'bogus'"
    #expect(result.stderr.components(separatedBy: message).count == 2, "\(result.stderr)")
    #expect(result.stderr.components(separatedBy: "savevault: error:").count == 2, "\(result.stderr)")
    #expect(player.archives("one").isEmpty && player.archives("two").isEmpty)
  }

  @Test("backup --game one --game two: exit 2, and neither game is backed up")
  func repeatedGame() async throws {
    let player = try await twoGames("repeated-game")
    let result = try await player.runAwaiting(["backup", "--game", "one", "--game", "two"])
    #expect(result.code == 2, "\(result.stderr)")
    #expect(result.stderr.contains("option '--game' is given more than once"), "\(result.stderr)")
    #expect(result.stdout.isEmpty, "\(result.stdout)")
    #expect(player.archives("one").isEmpty && player.archives("two").isEmpty)
  }

  @Test("the bash completion after add offers add's options, not --game")
  func bashAfterAdd() async throws {
    let dir = TemporaryDirectory("bash-add")
    let player = try Sandbox("bash-add-script")
    try writeFile(dir.sub("bash"), try await player.ok(["completions", "bash"]).stdout)
    let bash = try #require(which("bash"), "bash is not installed")
    let script = """
      source '\(dir.sub("bash"))'
      COMP_WORDS=(savevault add celeste --); COMP_CWORD=3; COMPREPLY=()
      _savevault
      printf '%s\\n' "${COMPREPLY[@]}"
      """
    let result = try await runProgramAwaiting(
      bash, ["-c", script], environment: ["PATH": "/usr/bin:/bin", "HOME": "/tmp"])
    #expect(result.code == 0, "\(result.stderr)")
    let offered = Set(result.stdout.split(separator: "\n").map(String.init))
    #expect(
      offered.isSuperset(of: ["--save-dir", "--container", "--steam-app-id", "--replace", "--json"]),
      "\(offered)")
    #expect(!offered.contains("--game"), "\(offered)")
    #expect(!offered.contains("--endpoint") && !offered.contains("--allow-insecure-http"), "\(offered)")
  }
}
