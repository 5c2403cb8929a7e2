import Foundation
import Testing

// A conflict question nobody answers, under `wrap` from a launcher: at a real pseudo-terminal
// and in a real zenity dialog under Xvfb. Within SAVEVAULT_ASK_TIMEOUT (2 minutes by default,
// a few seconds here) the question gives up: the game starts on the local save, nothing is
// changed for the conflict, and the question stays (the agreement's `unresolved` mark), so that
// the sync after the game uploads nothing over the cloud's save either.

extension ConflictPromptTests {
  /// How long the questions of these tests wait.
  static let shortWait = 3

  /// `wrap`'s arguments: the deck's target, then a game that writes a new save over the
  /// deck's, as a session would.
  static func wrapArguments(_ world: Devices) -> [String] {
    ["wrap"] + world.deckSyncArguments + [
      "--", "/bin/sh", "-c", "printf 'deck v3' > \(shellQuoted(world.deckSlot))",
    ]
  }

  /// The game ran on the local save, nothing reached the container or was restored, the
  /// question is still open in the agreement, and wrap said why, on stderr and in its log.
  static func expectQuestionKept(
    _ world: Devices, before: Before, result: RunResult, messages: String
  ) async throws {
    let log = "exit \(result.code); output: \(result.stdout) \(result.stderr)"
    #expect(result.code == 0, "wrap did not exit with the game's code 0; \(log)")
    #expect(
      world.deckContent == "deck v3",
      "the game did not run on the local save: \(world.deckContent ?? "missing"); \(log)")
    #expect(world.archives == before.archives, "the container changed: \(world.archives); \(log)")
    #expect(world.preRestoreCopies.isEmpty, "something was restored: \(world.preRestoreCopies); \(log)")
    let status = try await world.status(.deck)
    #expect(status["state"] as? String == "conflict", "not a conflict after the game: \(status)")
    #expect(
      lookup(status, "ledger.unanswered.kind") as? String == "conflict",
      "the question was not kept in the agreement: \(status)")
    let said = "nobody answered within \(shortWait) seconds"
    #expect(messages.contains(said), "wrap did not say '\(said)': \(messages)")
    #expect(
      messages.contains("starting the game on the local save"),
      "wrap did not say the game starts: \(messages)")
    let wrapLog =
      (try? String(contentsOfFile: world.home(.deck) + "/.local/state/savevault/wrap.log", encoding: .utf8))
      ?? ""
    #expect(wrapLog.contains(said), "wrap.log does not say '\(said)': \(wrapLog)")
  }

  @Test("wrap at a terminal: a question nobody answers gives up, the game starts, the question stays")
  func terminalQuestionTimesOut() async throws {
    let world = try await Devices.inConflict("tty-timeout")
    let before = try await world.snapshotBefore()
    let session = try world.on(.deck).startAtTerminal(
      Self.wrapArguments(world), environment: ["SAVEVAULT_ASK_TIMEOUT": String(Self.shortWait)])
    defer { session.killNow() }
    let asked = await session.waitForOutputAwaiting(containing: "[u]", timeout: 30)
    #expect(asked, "no prompt appeared on the terminal: \(session.output)")
    // Nobody types, and the input stays open (its end would be an answer of its own).
    let result = try #require(
      await session.waitAwaiting(timeout: 90), "wrap is still waiting for an answer: \(session.output)")
    try await Self.expectQuestionKept(world, before: before, result: result, messages: result.stdout)
  }
}

extension ConflictPromptTests.Dialog {
  @Test("wrap with a dialog: a dialog nobody answers gives up, the game starts, the question stays")
  func dialogTimesOut() async throws {
    try #require(which("zenity") != nil, "zenity is needed: scripts/install-deps.sh --test")
    let world = try await ConflictPromptTests.Devices.inConflict("dialog-timeout")
    let before = try await world.snapshotBefore()
    let server = try ConflictPromptTests.VirtualDisplay.start()
    defer { server.stop() }
    var environment = world.environment(.deck)
    environment["DISPLAY"] = server.display
    environment["NO_AT_BRIDGE"] = "1"
    environment["SAVEVAULT_ASK_TIMEOUT"] = String(ConflictPromptTests.shortWait)
    let wrap = try ConflictPromptTests.Spawned(
      savevaultBinary, ConflictPromptTests.wrapArguments(world), environment: environment, interactive: false)
    defer { wrap.killNow() }
    let result = try #require(
      await wrap.waitAwaiting(timeout: 90),
      "wrap is still waiting for an answer: \(wrap.output) \(wrap.errorOutput)")
    try await ConflictPromptTests.expectQuestionKept(
      world, before: before, result: result, messages: result.stderr)
  }
}
