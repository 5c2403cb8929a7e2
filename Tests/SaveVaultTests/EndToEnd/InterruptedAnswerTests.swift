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
  private func askedSync(_ label: String) throws -> (Prompt.Devices, Prompt.Before, Prompt.Spawned) {
    let world = try Prompt.Devices.inConflict(label)
    let before = try world.snapshotBefore()
    let session = try world.on(.deck).startAtTerminal(["sync"] + world.deckSyncArguments)
    try #require(session.waitForOutput(containing: "[u]", timeout: 30), "no prompt: \(session.output)")
    return (world, before, session)
  }

  @Test("Ctrl-C at the prompt ends at once with 130, saying nothing was under way; nothing changed")
  func interruptAtPrompt() throws {
    let (world, before, session) = try askedSync("ctrl-c")
    let typed = Date()
    session.type("\u{03}")
    let result = try #require(session.wait(timeout: 30), "sync did not end: \(session.output)")
    let waited = Date().timeIntervalSince(typed)
    #expect(result.code == 130, "exit \(result.code): \(result.stdout)")
    #expect(result.stdout.contains("stopped by SIGINT at the question"), "\(result.stdout)")
    #expect(result.stdout.contains("the conflict stays unresolved"), "\(result.stdout)")
    #expect(!result.stdout.contains("cleaning up"), "nothing was being cleaned up: \(result.stdout)")
    #expect(waited < 1.9, "took \(waited) s: the old 2 s grace, or worse")
    try world.expectNothingChanged(before: before, log: result.stdout)
  }

  @Test("Ctrl-D at the prompt is nobody answering: exit 3, the conflict unresolved, nothing changed")
  func endOfInputAtPrompt() throws {
    let (world, before, session) = try askedSync("ctrl-d")
    session.type("\u{04}")
    let result = try #require(session.wait(timeout: 30), "sync did not end: \(session.output)")
    #expect(result.code == 3, "exit \(result.code): \(result.stdout)")
    #expect(!result.stdout.contains("skipped"), "end of input is not a choice: \(result.stdout)")
    #expect(result.stdout.contains("unresolved"), "\(result.stdout)")
    try world.expectNothingChanged(before: before, log: result.stdout)
    #expect(try world.status(.deck)["state"] as? String == "conflict")
  }
}
