import Foundation
import Testing

@testable import SaveVault

/// A resolver that answers what the test says, and records that it was asked.
final class ScriptedResolver: ConflictResolver, @unchecked Sendable {
  let answer: ConflictChoice?
  private(set) var asked: [Conflict] = []
  init(_ answer: ConflictChoice?) { self.answer = answer }
  func choose(_ conflict: Conflict) -> ConflictChoice? {
    asked.append(conflict)
    return answer
  }
}

/// A resolver that must never be asked.
struct NeverAsk: ConflictResolver {
  func choose(_ conflict: Conflict) -> ConflictChoice? {
    Issue.record("the player was asked, but no conflict was expected")
    return nil
  }
}

@Suite("Conflict policies", .tags(.small))
struct ConflictPolicyTests {
  static let conflict = Conflict(
    game: "g", saveDir: "/s", localModifiedMs: 2_000, localFiles: 1, localBytes: 1,
    cloudArchive: "packsave-x.tar", cloudModifiedMs: 1_000, cloudDevice: "deck", cloudBytes: 1,
    container: "/c")

  @Test(
    "each policy settles a conflict as documented",
    arguments: [
      (ConflictPolicy.upload, Int64(2_000), ConflictPolicy.Resolution.chosen(.upload, by: "policy upload")),
      (.restore, 2_000, .chosen(.restore, by: "policy restore")),
      (.skip, 2_000, .chosen(.skip, by: "policy skip")),
      (.fail, 2_000, .unanswered(reason: "the policy is 'fail'")),
      (.newer, 2_000, .chosen(.upload, by: "policy newer (local is newer)")),
      (.newer, 500, .chosen(.restore, by: "policy newer (cloud is newer)")),
      (.newer, 1_000, .chosen(.skip, by: "policy newer (same millisecond)")),
    ])
  func policies(policy: ConflictPolicy, localMs: Int64, expected: ConflictPolicy.Resolution) {
    var conflict = Self.conflict
    conflict.localModifiedMs = localMs
    #expect(policy.resolve(conflict, resolver: NeverAsk()) == expected)
  }

  @Test("prompt asks the player, and with nobody to ask leaves the conflict")
  func prompt() {
    let resolver = ScriptedResolver(.restore)
    #expect(
      ConflictPolicy.prompt.resolve(Self.conflict, resolver: resolver) == .chosen(.restore, by: "player"))
    #expect(resolver.asked == [Self.conflict])
    #expect(
      ConflictPolicy.prompt.resolve(Self.conflict, resolver: NobodyToAsk())
        == .unanswered(reason: "nobody answered (no terminal or desktop to ask, or no answer)"))
  }
}

@Suite("Fingerprint", .tags(.small))
struct FingerprintTests {
  @Test("equal metadata is unchanged without reading the index or any file")
  func fastPath() throws {
    let dir = TemporaryDirectory("fingerprint")
    try writeFile(dir.sub("s/a.sav"), "a", modifiedNs: 1_600_000_000_123_456_789)
    let scan = try #require(try SaveScan.scan(dir.sub("s")))
    // Recorded a minute after the file was written: its metadata vouches for it.
    let record = Agreement(
      game: "g", container: "c", archive: "x", metadataDigest: scan.metadataDigest,
      contentDigest: "ignored",
      files: 1, bytes: 1, agreedAtMs: 1_600_000_060_000)
    var indexRead = false
    let changed = try Fingerprint(scan: scan).hasChanged(since: record) {
      indexRead = true
      return nil
    }
    #expect(!changed)
    #expect(!indexRead)
  }

  @Test(
    "different metadata falls back to content: same bytes unchanged, other bytes changed, no index changed")
  func contentFallback() throws {
    let dir = TemporaryDirectory("fingerprint")
    try writeFile(dir.sub("s/a.sav"), "same", modifiedNs: 1_000_000_000_000_000_000)
    try writeFile(dir.sub("s/b.sav"), "keep", modifiedNs: 1_000_000_000_000_000_000)
    let agreed = try #require(try SaveScan.scan(dir.sub("s")))
    let content = try Fingerprint(scan: agreed).contentEntries()
    let index = Dictionary(
      uniqueKeysWithValues: AgreedFile.entries(scan: agreed, content: content).map { ($0.path, $0) }
    )
    let record = Agreement(
      game: "g", container: "c", archive: "x", metadataDigest: agreed.metadataDigest,
      contentDigest: ContentDigest.of(content), files: 2, bytes: 8, agreedAtMs: 0)

    try writeFile(dir.sub("s/a.sav"), "same", modifiedNs: 1_100_000_000_000_000_000)
    let touched = try #require(try SaveScan.scan(dir.sub("s")))
    #expect(touched.metadataDigest != agreed.metadataDigest)
    #expect(try !Fingerprint(scan: touched).hasChanged(since: record) { index })
    #expect(
      try Fingerprint(scan: touched).hasChanged(since: record) { nil },
      "no index must never mean agreement")

    try writeFile(dir.sub("s/a.sav"), "diff", modifiedNs: 1_100_000_000_000_000_000)
    let edited = try #require(try SaveScan.scan(dir.sub("s")))
    #expect(try Fingerprint(scan: edited).hasChanged(since: record) { index })
  }

  /// What a FAT or exFAT card shows of a same-size rewrite within its 2 s of time: the same
  /// size, modification time, change time and inode, other bytes. `recordedAfterNs` is how long
  /// after the file's time the agreement was recorded; the scan after the rewrite is the one
  /// whose metadata the agreement holds, with the hash of the bytes before it.
  /// The test's folder comes back too: it goes with its value.
  func rewrittenUnseen(_ label: String, modifiedNs: Int64, recordedAfterNs: Int64) throws -> (
    Fingerprint, Agreement, [String: AgreedFile], TemporaryDirectory
  ) {
    let dir = TemporaryDirectory(label)
    try writeFile(dir.sub("s/slot.sav"), "chapter 7", modifiedNs: modifiedNs)
    try writeFile(dir.sub("s/old.sav"), "older", modifiedNs: modifiedNs - 3_600_000_000_000)
    let before = try Fingerprint(scan: try #require(try SaveScan.scan(dir.sub("s")))).contentEntries()
    try writeFile(dir.sub("s/slot.sav"), "chapter 1", modifiedNs: modifiedNs)
    let after = try #require(try SaveScan.scan(dir.sub("s")))
    let index = Dictionary(
      uniqueKeysWithValues: AgreedFile.entries(scan: after, content: before).map { ($0.path, $0) })
    let record = Agreement(
      game: "g", container: "c", archive: "x", metadataDigest: after.metadataDigest,
      contentDigest: ContentDigest.of(before), files: 2, bytes: 14,
      agreedAtMs: (modifiedNs + recordedAfterNs) / 1_000_000)
    return (Fingerprint(scan: after), record, index, dir)
  }

  @Test(
    "a file whose whole-second time is within 2 s of the recording is hashed: a same-size rewrite under that time is a change",
    arguments: [0, 500_000_000, 1_999_000_000] as [Int64])
  func racyWholeSecond(recordedAfterNs: Int64) throws {
    let (fingerprint, record, index, dir) = try rewrittenUnseen(
      "fingerprint-racy", modifiedNs: 1_700_000_000_000_000_000, recordedAfterNs: recordedAfterNs)
    #expect(
      try fingerprint.hasChanged(since: record) { index }, "the rewrite in \(dir.path) read as unchanged")
  }

  @Test("a file clearly older than the recording keeps the fast path: its metadata alone decides")
  func olderKeepsFastPath() throws {
    // Whole seconds, recorded 3 s later; and nanoseconds (not a 2 s filesystem), 50 ms later.
    for (modifiedNs, after) in [
      (1_700_000_000_000_000_000, 3_000_000_000), (1_700_000_000_123_456_789, 50_000_000),
    ]
      as [(Int64, Int64)]
    {
      let (fingerprint, record, _, dir) = try rewrittenUnseen(
        "fingerprint-old", modifiedNs: modifiedNs, recordedAfterNs: after)
      var indexRead = false
      let changed = try fingerprint.hasChanged(since: record) {
        indexRead = true
        return nil
      }
      #expect(
        !changed && !indexRead, "a file \(after) ns older than the recording (\(dir.path)) was not trusted")
    }
  }
}

@Suite("Sync between devices", .tags(.small))
struct SyncTests {
  /// Two devices sharing one folder container; `deckOffsetMs` skews the deck's clock.
  struct Pair {
    let dir = TemporaryDirectory("sync")
    let pc: Vault
    let deck: Vault
    let pcTarget: Target
    let deckTarget: Target
    var pcSave: String { dir.sub("pc-save/game") }
    var deckSave: String { dir.sub("deck-save/game") }

    init(pcOffsetMs: Int64 = 0, deckOffsetMs: Int64 = 0) throws {
      try makeDirectory(dir.sub("cloud"))
      let now: Int64 = 1_795_968_000_000
      pc = try Vault(
        context: testContext(
          home: dir.sub("pc"), startMs: now + pcOffsetMs, environment: ["SAVEVAULT_DEVICE": "pc"]))
      deck = try Vault(
        context: testContext(
          home: dir.sub("deck"), startMs: now + 10_000 + deckOffsetMs,
          environment: ["SAVEVAULT_DEVICE": "deck"]))
      pcTarget = try pc.resolve(
        TargetRequest(saveDirectory: dir.sub("pc-save/game"), containerURL: dir.sub("cloud")))
      deckTarget = try deck.resolve(
        TargetRequest(saveDirectory: dir.sub("deck-save/game"), containerURL: dir.sub("cloud")))
    }

    func content(_ save: String) -> String? {
      try? String(contentsOfFile: save + "/slot.sav", encoding: .utf8)
    }
  }

  @Test("first upload, first restore on a new device, then each state acts as the table says")
  func table() throws {
    let pair = try Pair()
    try writeFile(pair.pcSave + "/slot.sav", "v1")
    #expect(try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk()).action == .uploaded)
    let first = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk())
    #expect(first.state == .localMissing && first.action == .restored)
    #expect(pair.content(pair.deckSave) == "v1")
    #expect(try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk()).action == .none)

    try writeFile(pair.deckSave + "/slot.sav", "v2 deck")
    let up = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk())
    #expect(up.state == .localChanged && up.action == .uploaded)
    let down = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
    #expect(down.state == .cloudChanged && down.action == .restored)
    #expect(pair.content(pair.pcSave) == "v2 deck")
    #expect(down.preRestoreCopy != nil, "the replaced local save is kept")
  }

  @Test("a conflict asks, shows both sides, and keeps the loser")
  func conflict() async throws {
    let pair = try Pair()
    try writeFile(pair.pcSave + "/slot.sav", "v1")
    _ = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
    _ = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk())
    try writeFile(pair.pcSave + "/slot.sav", "v2 pc")
    let pcUpload = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
    try writeFile(pair.deckSave + "/slot.sav", "v2 deck")

    let nobody = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NobodyToAsk())
    #expect(nobody.state == .conflict && nobody.action == .unanswered)
    #expect(pair.content(pair.deckSave) == "v2 deck")

    let resolver = ScriptedResolver(.restore)
    let restored = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: resolver)
    #expect(restored.action == .restored && restored.decidedBy == "player")
    let asked = try #require(resolver.asked.first)
    #expect(asked.cloudArchive == pcUpload.archive)
    #expect(asked.cloudDevice == "pc")
    #expect(asked.localFiles == 1)
    #expect(pair.content(pair.deckSave) == "v2 pc")
    let copy = try #require(restored.preRestoreCopy)
    #expect(
      try await fileInPreRestoreCopy(copy, "slot.sav") == "v2 deck",
      "the losing local save is in the pre-restore copy")
  }

  @Test("after the game, a cloud that changed meanwhile is not restored unasked")
  func afterGameNeverRestores() throws {
    let pair = try Pair()
    try writeFile(pair.pcSave + "/slot.sav", "v1")
    _ = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
    _ = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk())
    try writeFile(pair.pcSave + "/slot.sav", "v2 pc")
    _ = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
    let after = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk(), phase: .afterGame)
    #expect(after.state == .cloudChanged && after.action == .none)
    #expect(pair.content(pair.deckSave) == "v1")
  }

  @Test(
    "a device whose clock is a day ahead or behind never causes a wrong-direction sync",
    arguments: [Int64(86_400_000), -86_400_000])
  func clockSkew(deckOffsetMs: Int64) throws {
    let pair = try Pair(deckOffsetMs: deckOffsetMs)
    try writeFile(pair.pcSave + "/slot.sav", "pc 1")
    _ = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
    _ = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk())
    // Alternate play: each device's new progress must reach the other, whatever the clocks say.
    for round in 1...3 {
      try writeFile(pair.deckSave + "/slot.sav", "deck \(round)")
      let deckUp = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk())
      #expect(deckUp.action == .uploaded)
      let pcDown = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
      #expect(pcDown.state == .cloudChanged && pcDown.action == .restored, "round \(round)")
      #expect(pair.content(pair.pcSave) == "deck \(round)")

      try writeFile(pair.pcSave + "/slot.sav", "pc \(round + 1)")
      let pcUp = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
      #expect(pcUp.action == .uploaded)
      let deckDown = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk())
      #expect(deckDown.state == .cloudChanged && deckDown.action == .restored, "round \(round)")
      #expect(pair.content(pair.deckSave) == "pc \(round + 1)")
    }
  }

  @Test(
    "an unreachable container after the game keeps a pending archive, uploaded (and reported) at the next run"
  )
  func pendingUpload() throws {
    let pair = try Pair()
    try writeFile(pair.pcSave + "/slot.sav", "v1")
    _ = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
    try writeFile(pair.pcSave + "/slot.sav", "offline progress")
    try FileManager.default.moveItem(atPath: pair.dir.sub("cloud"), toPath: pair.dir.sub("unmounted"))
    #expect(throws: ContainerError.self) {
      try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk(), phase: .afterGame)
    }
    let pending = try #require(try pair.pc.keepPending(pair.pcTarget))
    try FileManager.default.moveItem(atPath: pair.dir.sub("unmounted"), toPath: pair.dir.sub("cloud"))
    #expect(try pair.pc.status(pair.pcTarget).pending.count == 1)
    let name = (pending as NSString).lastPathComponent
    let sent = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
    // The sync that sends it says so (the state it then finds is in-sync).
    #expect(sent.action == .uploaded && sent.archive == name && sent.state == .inSync, "\(sent)")
    #expect(try pair.pc.list(pair.pcTarget).archives.contains { $0.name == name })
    #expect(
      !FileManager.default.fileExists(atPath: pending), "an uploaded pending archive leaves this device")
    #expect(try pair.pc.status(pair.pcTarget).pending.count == 0)
    _ = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk())
    #expect(pair.content(pair.deckSave) == "offline progress")
  }

  @Test("a damaged agreement is no agreement, never a match")
  func damagedLedger() throws {
    let pair = try Pair()
    try writeFile(pair.pcSave + "/slot.sav", "v1")
    _ = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
    try writeFile(pair.pcSave + "/slot.sav", "v2, not uploaded")
    let agreements = pair.pc.paths.agreementsDirectory
    for name in try FileManager.default.contentsOfDirectory(atPath: agreements) where name.hasSuffix(".json")
    {
      try writeFile(agreements + "/" + name, "{ truncated")
    }
    // With the agreement gone, local and cloud differ: a conflict, not an agreement and not a restore.
    #expect(try pair.pc.status(pair.pcTarget).state == .conflict)
    let report = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NobodyToAsk())
    #expect(report.action == .unanswered)
    #expect(pair.content(pair.pcSave) == "v2, not uploaded")
  }

  @Test("a new device whose save is the cloud's records the agreement: its next change uploads")
  func newDeviceAgreement() throws {
    let pair = try Pair()
    try writeFile(pair.pcSave + "/slot.sav", "same")
    try writeFile(pair.deckSave + "/slot.sav", "same")
    _ = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
    #expect(try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk()).state == .inSync)
    try writeFile(pair.deckSave + "/slot.sav", "deck progress")
    let next = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk(), phase: .afterGame)
    #expect(next.state == .localChanged && next.action == .uploaded)
  }

  @Test("a save deleted since the agreement is asked about, never restored unasked")
  func deletedSave() throws {
    let pair = try Pair()
    try writeFile(pair.pcSave + "/slot.sav", "run 1, alive")
    _ = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
    try FileManager.default.removeItem(atPath: pair.pcSave + "/slot.sav")  // permadeath
    let unasked = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NobodyToAsk())
    #expect(unasked.state == .localMissing && unasked.action == .unanswered)
    #expect(
      unasked.note?.contains("was deleted") == true, "the message says what happened: \(unasked.note ?? "")")
    #expect(pair.content(pair.pcSave) == nil)
    let after = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NobodyToAsk(), phase: .afterGame)
    #expect(after.action == .unanswered)
    let chosen = try pair.pc.sync(pair.pcTarget, policy: .restore, resolver: NeverAsk())
    #expect(chosen.action == .restored)
    #expect(pair.content(pair.pcSave) == "run 1, alive")
  }

  @Test("pending archives overtaken by a resolved conflict become pre-restore copies, not the agreement")
  func stalePending() throws {
    let pair = try Pair()
    try writeFile(pair.pcSave + "/slot.sav", "v1")
    _ = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
    _ = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk())
    // pc plays offline: its session is kept as a pending archive.
    try writeFile(pair.pcSave + "/slot.sav", "pc offline")
    let pending = try #require(try pair.pc.keepPending(pair.pcTarget))
    // deck uploads meanwhile; pc resolves the conflict by uploading.
    try writeFile(pair.deckSave + "/slot.sav", "deck v2")
    _ = try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk())
    let resolved = try pair.pc.sync(pair.pcTarget, policy: .upload, resolver: NeverAsk())
    #expect(resolved.state == .conflict && resolved.action == .uploaded)
    // The next runs agree: the overtaken pending archive is no longer pending, and nothing conflicts.
    let next = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NobodyToAsk())
    #expect(next.state == .inSync, "\(next)")
    #expect(!FileManager.default.fileExists(atPath: pending))
    #expect(try pair.pc.status(pair.pcTarget).pending.count == 0)
    try writeFile(pair.pcSave + "/slot.sav", "pc v3")
    #expect(try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NobodyToAsk()).action == .uploaded)
  }

  @Test("a restore killed between its renames is rolled back even when the container is unreachable")
  func recoveryBeforeProbe() throws {
    let pair = try Pair()
    try writeFile(pair.pcSave + "/slot.sav", "50 hours")
    _ = try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
    let aside = pair.dir.sub("pc-save/" + Vault.asidePrefix("game") + "k1ll3d")
    #expect(rename(pair.pcSave, aside) == 0)
    try FileManager.default.moveItem(atPath: pair.dir.sub("cloud"), toPath: pair.dir.sub("unmounted"))
    #expect(throws: ContainerError.self) {
      try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk())
    }
    #expect(pair.content(pair.pcSave) == "50 hours")
  }
}

@Suite("Program runner", .tags(.small))
struct ProgramRunnerTests {
  @Test("a program past its time limit is killed and says so")
  func timeLimit() throws {
    let started = Date()
    let result = try ProgramRunner().run("/bin/sleep", ["10"], timeLimit: 0.3)
    #expect(result.timedOut)
    #expect(Date().timeIntervalSince(started) < 5)
    #expect(try !ProgramRunner().run("/bin/true", [], timeLimit: 5).timedOut)
  }
}
