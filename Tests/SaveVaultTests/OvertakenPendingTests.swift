import Foundation
import Testing

@testable import SaveVault

/// An archive kept while the container was unreachable is overtaken by any later agreement:
/// once the player settled (here by restoring the cloud's save), it is never uploaded over
/// that choice, whichever device's clock named which archive later.
@Suite("Overtaken pending archives")
struct OvertakenPendingTests {
  @Test("a pending archive is not uploaded after the player chose the cloud's save")
  func notUploadedAfterRestore() throws {
    let pair = try SyncTests.Pair(pcOffsetMs: 86_400_000)
    try writeFile(pair.pcSave + "/slot.sav", "v1")
    _ = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
    _ = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk())

    let cloud = pair.dir.sub("cloud")
    try FileManager.default.moveItem(atPath: cloud, toPath: cloud + "-unmounted")
    let game = SimulatedGame { try? writeFile(pair.pcSave + "/slot.sav", "v2 pc, offline") }
    let offline = try pair.pc.wrap(
      pair.pcTarget, policy: .prompt, resolver: NobodyToAsk(), runner: game, command: ["game"])
    let pending = try #require(offline.pendingArchive)
    try FileManager.default.moveItem(atPath: cloud + "-unmounted", toPath: cloud)

    try writeFile(pair.deckSave + "/slot.sav", "v2 deck")
    _ = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk())
    let chosen = try pair.pc.sync(pair.pcTarget, policy: .restore, resolver: NeverAsk())
    #expect(chosen.state == .conflict && chosen.action == .restored)

    let next = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NobodyToAsk())
    #expect(next.state == .inSync && next.action == SyncAction.none)
    let name = (pending as NSString).lastPathComponent
    let stored = try FileManager.default.contentsOfDirectory(atPath: cloud + "/game")
    #expect(!stored.contains(name), "the overtaken pending archive stays off the container")
    let kept = pair.pc.paths.preRestoreDirectory(game: "game") + "/" + name
    #expect(try runProgram("/usr/bin/tar", ["-xOf", kept, "slot.sav"]).stdout == "v2 pc, offline")
    #expect(pair.content(pair.pcSave) == "v2 deck")
  }
}
