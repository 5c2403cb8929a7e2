import Foundation
import Testing

/// wrap's log, `$XDG_STATE_HOME/savevault/wrap.log`, through the built binary: what a player
/// with no terminal (Steam's game mode) reads to learn why a save did not sync.
@Suite("wrap keeps a log of its messages", .tags(.medium))
struct WrapLogTests {
  /// The players of `SteamWrapTests`: games celeste (Steam app 504230) and other (10).
  func player() async throws -> Sandbox { try await SteamWrapTests().player() }

  /// A game that writes to stdout and stderr, saves its argument and exits 7.
  static let game = "echo \"playing $1\"; echo 'game-stderr-line' >&2; echo \"$1\" > \"$0/slot.sav\"; exit 7"

  /// The log of `player`'s HOME, with no XDG_STATE_HOME.
  func logPath(_ player: Sandbox) -> String { player.home + "/.local/state/savevault/wrap.log" }

  /// The log's lines, [] when there is none.
  func logLines(_ player: Sandbox) -> [String] {
    (text(logPath(player)) ?? "").split(separator: "\n").map(String.init)
  }

  /// Whether `line` starts with a local time to the second and a space.
  func isStamped(_ line: String) throws -> Bool {
    try Regex(#"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d "#).prefixMatch(in: line) != nil
  }

  @Test(
    "a wrapped game's before and after lines and how it ended are logged, stamped and named; its own output is not"
  )
  func configuredGame() async throws {
    var player = try await player()
    player.extra = ["SteamAppId": "504230"]
    let save = player.dir.sub("saves/celeste")
    let result = try await player.runAwaiting(["wrap", "--", "/bin/sh", "-c", Self.game, save, "v2"])
    #expect(result.code == 7, "\(result.stderr)")
    #expect(result.stderr.contains("game-stderr-line"), "the game's stderr is still the game's")
    let lines = logLines(player)
    for line in lines { #expect(try isStamped(line), "\(line)") }
    let messages = lines.map { String($0.dropFirst(20)) }
    #expect(messages.contains { $0.hasPrefix("celeste: before the game: ") }, "\(lines)")
    #expect(messages.contains { $0.hasPrefix("celeste: after the game: ") }, "\(lines)")
    #expect(messages.contains("celeste: the game exited with code 7"), "\(lines)")
    #expect(!lines.contains { $0.contains("game-stderr-line") || $0.contains("playing") }, "\(lines)")
    for line in result.stderr.split(separator: "\n") where line.hasPrefix("savevault: ") {
      #expect(messages.contains("celeste: " + line.dropFirst("savevault: ".count)), "not logged: \(line)")
    }

    let again = try await player.runAwaiting(["wrap", "--game", "celeste", "--", "/bin/sh", "-c", "exit 0"])
    #expect(again.code == 0, "\(again.stderr)")
    #expect(logLines(player).count > lines.count, "a second wrap appends")
    #expect(logLines(player).starts(with: lines))
  }

  @Test("a wrap of a game no config names logs its warning under the Steam app id")
  func unknownGame() async throws {
    var player = try await player()
    player.extra = ["SteamAppId": "999"]
    let result = try await player.runAwaiting([
      "wrap", "--", "/bin/sh", "-c", "echo 'game-stderr-line' >&2; exit 3",
    ])
    #expect(result.code == 3, "\(result.stderr)")
    let messages = logLines(player).map { String($0.dropFirst(20)) }
    #expect(
      messages.contains {
        $0.hasPrefix("Steam app 999: warning: no game in") && $0.hasSuffix("without syncing")
      },
      "\(messages)")
    #expect(messages.contains("Steam app 999: the game exited with code 3"), "\(messages)")
    #expect(!messages.contains { $0.contains("game-stderr-line") })
  }

  @Test("a log that cannot be written warns once and leaves wrap's exit code the game's")
  func unwritableLog() async throws {
    var player = try await player()
    player.extra = ["SteamAppId": "504230"]
    try makeDirectory(logPath(player))
    let save = player.dir.sub("saves/celeste")
    let result = try await player.runAwaiting(["wrap", "--", "/bin/sh", "-c", Self.game, save, "v2"])
    #expect(result.code == 7, "\(result.stderr)")
    #expect(result.stdout == "playing v2\n")
    #expect(result.stderr.components(separatedBy: "cannot keep a log").count == 2, "\(result.stderr)")
    #expect(result.stderr.contains("after the game"), "\(result.stderr)")
    #expect(player.archives("celeste").count == 2, "synced before and after the game all the same")
  }

  @Test("a log over 1 MiB is set aside as wrap.log.1 at the next wrap, replacing an older one")
  func rotation() async throws {
    var player = try await player()
    player.extra = ["SteamAppId": "504230"]
    let old = String(repeating: "2026-01-01 00:00:00 celeste: an old line\n", count: 30_000)
    #expect(old.utf8.count > 1 << 20)
    try writeFile(logPath(player) + ".1", "the oldest log\n")
    try writeFile(logPath(player), old)
    let result = try await player.runAwaiting(["wrap", "--", "/bin/sh", "-c", "exit 0"])
    #expect(result.code == 0, "\(result.stderr)")
    #expect(text(logPath(player) + ".1") == old)
    let lines = logLines(player)
    #expect(lines.contains { $0.dropFirst(20).hasPrefix("celeste: before the game: ") }, "\(lines)")
    #expect(!lines.contains { $0.contains("an old line") })

    let small = try await player.runAwaiting(["wrap", "--", "/bin/sh", "-c", "exit 0"])
    #expect(small.code == 0)
    #expect(text(logPath(player) + ".1") == old, "a log under 1 MiB is kept as it is")
    #expect(logLines(player).count > lines.count)
  }
}
