import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

// Signals and the end of input at the conflict prompt, through the built binary, at a real
// pseudo-terminal (util-linux `script`).

@Suite("Interrupted answers: Ctrl-C and Ctrl-D at the conflict prompt", .tags(.medium))
struct InterruptedAnswerTests {
  typealias Prompt = ConflictPromptTests

  /// `sync` at a terminal on the deck, in conflict, with the question on the screen.
  private func askedSync(_ label: String) async throws -> (Prompt.Devices, Prompt.Before, Prompt.Spawned) {
    let world = try await Prompt.Devices.inConflict(label)
    let before = try await world.snapshotBefore()
    let session = try world.on(.deck).startAtTerminal(["sync"] + world.deckSyncArguments)
    try #require(
      await session.waitForOutputAwaiting(containing: "[u]", timeout: 30), "no prompt: \(session.output)")
    return (world, before, session)
  }

  @Test("Ctrl-C at the prompt ends at once with 130, saying nothing was under way; nothing changed")
  func interruptAtPrompt() async throws {
    let (world, before, session) = try await askedSync("ctrl-c")
    // Timed from the key to the end, on the test's thread: the wait must not include one for a thread.
    let (result, waited) = try withinWindow {
      let typed = Date()
      session.type("\u{03}")
      let result = try #require(session.wait(timeout: 30), "sync did not end: \(session.output)")
      let waited = Date().timeIntervalSince(typed)
      return (result, waited)
    }
    #expect(result.code == 130, "exit \(result.code): \(result.stdout)")
    #expect(result.stdout.contains("stopped by SIGINT at the question"), "\(result.stdout)")
    #expect(result.stdout.contains("the conflict stays unresolved"), "\(result.stdout)")
    #expect(!result.stdout.contains("cleaning up"), "nothing was being cleaned up: \(result.stdout)")
    #expect(waited < 1.9, "took \(waited) s: the old 2 s grace, or worse")
    try world.expectNothingChanged(before: before, log: result.stdout)
  }

  @Test("Ctrl-D at the prompt is nobody answering: exit 3, the conflict unresolved, nothing changed")
  func endOfInputAtPrompt() async throws {
    let (world, before, session) = try await askedSync("ctrl-d")
    session.type("\u{04}")
    let result = try #require(await session.waitAwaiting(timeout: 30), "sync did not end: \(session.output)")
    #expect(result.code == 3, "exit \(result.code): \(result.stdout)")
    #expect(!result.stdout.contains("skipped"), "end of input is not a choice: \(result.stdout)")
    #expect(result.stdout.contains("unresolved"), "\(result.stdout)")
    try world.expectNothingChanged(before: before, log: result.stdout)
    #expect(try await world.status(.deck)["state"] as? String == "conflict")
  }
}
