import Foundation
import Testing

@testable import SaveVault

/// An archive kept while the container was unreachable is overtaken by any later agreement:
/// once the player settled (here by restoring the cloud's save), it is never uploaded over
/// that choice, whichever device's clock named which archive later.
@Suite("Overtaken pending archives")
struct OvertakenPendingTests {
  /// The pc keeps an archive while offline ("v2 pc, offline"); `meanwhile` runs with its name;
  /// the deck uploads "v2 deck"; the pc restores it by policy. Returns the pending name.
  func pendingOvertaken(_ pair: SyncTests.Pair, meanwhile: (String) throws -> Void = { _ in }) throws
    -> String
  {
    try writeFile(pair.pcSave + "/slot.sav", "v1")
    _ = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
    _ = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk())

    let cloud = pair.dir.sub("cloud")
    try FileManager.default.moveItem(atPath: cloud, toPath: cloud + "-unmounted")
    let game = SimulatedGame { try? writeFile(pair.pcSave + "/slot.sav", "v2 pc, offline") }
    let offline = try pair.pc.wrap(
      pair.pcTarget, policy: .prompt, resolver: NobodyToAsk(), runner: game, command: ["game"])
    let pending = try #require(offline.pendingArchive)
    let name = (pending as NSString).lastPathComponent
    try meanwhile(name)
    try FileManager.default.moveItem(atPath: cloud + "-unmounted", toPath: cloud)

    try writeFile(pair.deckSave + "/slot.sav", "v2 deck")
    _ = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk())
    let chosen = try pair.pc.sync(pair.pcTarget, policy: .restore, resolver: NeverAsk())
    #expect(chosen.state == .conflict && chosen.action == .restored)

    let next = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NobodyToAsk())
    #expect(next.state == .inSync && next.action == SyncAction.none)
    #expect(
      (try? FileManager.default.contentsOfDirectory(atPath: pair.pc.paths.dataDirectory + "/pending/game"))
        ?? []
        == [], "an overtaken archive is still pending")
    #expect(pair.content(pair.pcSave) == "v2 deck")
    return name
  }

  @Test("a pending archive is not uploaded after the player chose the cloud's save")
  func notUploadedAfterRestore() throws {
    let pair = try SyncTests.Pair(pcOffsetMs: 86_400_000)
    let name = try pendingOvertaken(pair)
    let cloud = pair.dir.sub("cloud")
    let stored = try FileManager.default.contentsOfDirectory(atPath: cloud + "/game")
    #expect(!stored.contains(name), "the overtaken pending archive stays off the container")
    let kept = pair.pc.paths.preRestoreDirectory(game: "game") + "/" + name
    #expect(try runProgram("/usr/bin/tar", ["-xOf", kept, "slot.sav"]).stdout == "v2 pc, offline")
  }

  @Test(
    "an overtaken archive whose name a pre-restore copy already has is kept one millisecond later, not left pending"
  )
  func nameTaken() throws {
    let pair = try SyncTests.Pair(pcOffsetMs: 86_400_000)
    let copies = pair.pc.paths.preRestoreDirectory(game: "game")
    let name = try pendingOvertaken(pair) { name in
      // A name is taken again once its first holder was retired (a simulation found it).
      try writeFile(copies + "/" + name, "an earlier pending archive, retired")
    }
    #expect(
      try String(contentsOfFile: copies + "/" + name, encoding: .utf8)
        == "an earlier pending archive, retired")
    let parsed = try #require(ArchiveName(parsing: name))
    let next = ArchiveName(createdMs: parsed.createdMs + 1, device: parsed.device).description
    #expect(
      try runProgram("/usr/bin/tar", ["-xOf", copies + "/" + next, "slot.sav"]).stdout == "v2 pc, offline")
  }

  @Test(
    "an archive kept offline never takes the name of a pre-restore copy (a retired one had the name it would get)"
  )
  func keptNameNotReused() throws {
    // The pc's clock is a day behind: what it keeps offline is named 1 ms after the agreement.
    let pair = try SyncTests.Pair(pcOffsetMs: -86_400_000)
    try writeFile(pair.deckSave + "/slot.sav", "v1 deck")
    _ = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk())
    _ = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
    let cloud = pair.dir.sub("cloud")
    let agreed = try #require(
      try FileManager.default.contentsOfDirectory(atPath: cloud + "/game").compactMap(
        ArchiveName.init(parsing:)
      ).first)
    let next = { (ms: Int64) in ArchiveName(createdMs: agreed.createdMs + ms, device: "pc").description }
    let copies = pair.pc.paths.preRestoreDirectory(game: "game")
    try writeFile(copies + "/" + next(1), "a pending archive retired earlier")

    try FileManager.default.moveItem(atPath: cloud, toPath: cloud + "-unmounted")
    let game = SimulatedGame { try? writeFile(pair.pcSave + "/slot.sav", "v2 pc, offline") }
    let offline = try pair.pc.wrap(
      pair.pcTarget, policy: .prompt, resolver: NobodyToAsk(), runner: game, command: ["game"])
    let pending = try #require(offline.pendingArchive)
    #expect((pending as NSString).lastPathComponent == next(2))
    #expect(
      try String(contentsOfFile: copies + "/" + next(1), encoding: .utf8)
        == "a pending archive retired earlier")
  }
}
