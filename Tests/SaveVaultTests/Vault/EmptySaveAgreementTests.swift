import Foundation
import Testing

@testable import SaveVault

/// A deletion that was settled stays settled: a missing or empty save agreed on as empty with
/// the cloud's latest is in sync, not a new deletion to ask about at every launch.
@Suite("Empty save agreements", .tags(.small))
struct EmptySaveAgreementTests {
  @Test("an uploaded deletion, and its restore on another device, are in sync afterwards")
  func settledDeletion() throws {
    let pair = try SyncTests.Pair()
    try writeFile(pair.pcSave + "/slot.sav", "v1")
    _ = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
    _ = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk())

    try FileManager.default.removeItem(atPath: pair.pcSave)
    let asked = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NobodyToAsk())
    #expect(asked.state == .localMissing && asked.action == .unanswered, "a fresh deletion is asked about")
    // No policy uploads a missing save; the player makes the deletion the latest on purpose.
    let refused = try pair.pc.sync(pair.pcTarget, policy: .upload, resolver: NeverAsk())
    #expect(refused.action == .unanswered, "a policy uploaded a missing save")
    let uploaded = try pair.pc.backup(pair.pcTarget, force: true)
    #expect(uploaded.outcome == .uploaded)

    let after = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NobodyToAsk())
    #expect(after.state == .inSync && after.action == SyncAction.none)
    #expect(try pair.pc.status(pair.pcTarget).state == .inSync)

    let restored = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk())
    #expect(restored.state == .cloudChanged && restored.action == .restored)
    #expect(restored.preRestoreCopy != nil, "the deck's v1 is kept")
    let settled = try pair.deck.sync(pair.deckTarget, policy: .upload, resolver: NeverAsk())
    #expect(settled.state == .inSync && settled.action == SyncAction.none, "no second empty archive")
    #expect(try pair.deck.status(pair.deckTarget).state == .inSync)

    try writeFile(pair.deckSave + "/slot.sav", "v2")
    let played = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk())
    #expect(played.state == .localChanged && played.action == .uploaded, "a new save after it is an upload")
  }
}
