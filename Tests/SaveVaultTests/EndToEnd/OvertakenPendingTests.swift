import Foundation
import Testing

@testable import SaveVault

/// An archive kept while the container was unreachable is overtaken by any later agreement:
/// once the player settled (here by restoring the cloud's save), it is never uploaded over
/// that choice, whichever device's clock named which archive later.
@Suite("Overtaken pending archives", .tags(.medium))
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
    let left =
      (try? FileManager.default.contentsOfDirectory(atPath: pair.pc.paths.dataDirectory + "/pending/game"))
      ?? []
    #expect(left.filter(ArchiveName.isBackupName).isEmpty, "an overtaken archive is still pending: \(left)")
    #expect(pair.content(pair.pcSave) == "v2 deck")
    return name
  }

  @Test("a pending archive is not uploaded after the player chose the cloud's save")
  func notUploadedAfterRestore() async throws {
    let pair = try SyncTests.Pair(pcOffsetMs: 86_400_000)
    let name = try pendingOvertaken(pair)
    let cloud = pair.dir.sub("cloud")
    let stored = try FileManager.default.contentsOfDirectory(atPath: cloud + "/game")
    #expect(!stored.contains(name), "the overtaken pending archive stays off the container")
    let kept = pair.pc.paths.preRestoreDirectory(game: "game") + "/" + name
    #expect(
      try await runProgramAwaiting("/usr/bin/tar", ["-xOf", kept, "slot.sav"]).stdout == "v2 pc, offline")
  }

  @Test(
    "an overtaken archive whose name a pre-restore copy already has is kept one millisecond later, not left pending"
  )
  func nameTaken() async throws {
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
      try await runProgramAwaiting("/usr/bin/tar", ["-xOf", copies + "/" + next, "slot.sav"]).stdout
        == "v2 pc, offline")
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

  @Test("an overtaken archive that cannot become a pre-restore copy is set aside in pending, never uploaded")
  func retireFails() async throws {
    let pair = try SyncTests.Pair(pcOffsetMs: 86_400_000)
    let copies = pair.pc.paths.preRestoreDirectory(game: "game")
    var pendingName = ""
    _ = try pendingOvertaken(pair) { name in
      pendingName = name
      // The pre-restore copies of this game cannot be written: a file stands where their folder goes.
      try writeFile(copies, "in the way")
    }
    let pending = pair.pc.paths.dataDirectory + "/pending/game"
    let aside = pending + "/" + Vault.overtakenPrefix + pendingName
    #expect(
      try await runProgramAwaiting("/usr/bin/tar", ["-xOf", aside, "slot.sav"]).stdout == "v2 pc, offline")
    let stored = try FileManager.default.contentsOfDirectory(atPath: pair.dir.sub("cloud/game"))
    #expect(!stored.contains(pendingName), "the overtaken archive was uploaded")
  }

  @Test("a move killed between its link and its unlink is finished by the next move, not refused")
  func moveFinishesHalfDoneMove() throws {
    let dir = TemporaryDirectory("move-half-done")
    try writeFile(dir.sub("from/a.tar"), "archive")
    try makeDirectory(dir.sub("to"))
    #expect(link(dir.sub("from/a.tar"), dir.sub("to/a.tar")) == 0)
    try Platform.moveNoReplace(from: dir.sub("from/a.tar"), to: dir.sub("to/a.tar"))
    #expect(!FileManager.default.fileExists(atPath: dir.sub("from/a.tar")))
    #expect(try String(contentsOfFile: dir.sub("to/a.tar"), encoding: .utf8) == "archive")
    try writeFile(dir.sub("from/b.tar"), "another archive")
    #expect(throws: SystemError.self) {
      try Platform.moveNoReplace(from: dir.sub("from/b.tar"), to: dir.sub("to/a.tar"))
    }
    #expect(try String(contentsOfFile: dir.sub("to/a.tar"), encoding: .utf8) == "archive")
    #expect(FileManager.default.fileExists(atPath: dir.sub("from/b.tar")))
  }

  @Test("keeping a pending archive takes the game's lock: never beside a restore or undo of the same game")
  func keepPendingLocks() throws {
    let pair = try SyncTests.Pair()
    var pc = pair.pc
    pc.lockWaitSeconds = 0.2
    try writeFile(pair.pcSave + "/slot.sav", "v1")
    let held = try pc.lock(pair.pcTarget, purpose: "restore", waitSeconds: 0)
    do {
      _ = try pc.keepPending(pair.pcTarget)
      Issue.record("kept a pending archive while another command held the game's lock")
    } catch VaultError.busy {
    }
    withExtendedLifetime(held) {}
  }
}
