import Foundation
import Testing

@testable import SaveVault

/// `backup` follows the plan of the backup phase (the decision table of docs/architecture.md):
/// the rows where it differs from a sync, through a folder container.
@Suite("Backup follows its plan", .tags(.small))
struct BackupPlanTests {
  /// The pc uploads v1, the deck restores it, and the pc uploads v2: the deck's save is
  /// unchanged, the cloud's latest is the pc's v2. Returns v1's and v2's archives.
  func cloudMovedOn(_ pair: SyncTests.Pair) throws -> (agreed: String, newer: String) {
    try writeFile(pair.pcSave + "/slot.sav", "v1")
    let agreed = try #require(try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk()).archive)
    #expect(try pair.deck.sync(pair.deckTarget, policy: .prompt, resolver: NeverAsk()).action == .restored)
    try writeFile(pair.pcSave + "/slot.sav", "v2 pc")
    let newer = try #require(try pair.pc.sync(pair.pcTarget, policy: .prompt, resolver: NeverAsk()).archive)
    return (agreed, newer)
  }

  func archiveNames(_ pair: SyncTests.Pair) throws -> Set<String> {
    let all = FileManager.default.enumerator(atPath: pair.dir.sub("cloud"))?.allObjects as? [String] ?? []
    return Set(all.map { ($0 as NSString).lastPathComponent }.filter { $0.hasPrefix("packsave-") })
  }

  @Test("only the cloud changed: nothing is uploaded, and the report names the newer archive")
  func cloudChanged() throws {
    let pair = try SyncTests.Pair()
    let (agreed, newer) = try cloudMovedOn(pair)
    let before = try archiveNames(pair)
    let report = try pair.deck.backup(pair.deckTarget, force: false)
    #expect(report.outcome == .unchanged && report.archive == agreed, "\(report)")
    #expect(report.newerCloudArchive == newer, "\(report)")
    #expect(try archiveNames(pair) == before, "a backup uploaded a save the cloud holds")
    #expect(pair.content(pair.deckSave) == "v1", "a backup restored")
  }

  @Test("only the cloud changed, and the archive agreed on is gone: the save is uploaded over the latest")
  func agreedArchiveGone() throws {
    let pair = try SyncTests.Pair()
    let (agreed, newer) = try cloudMovedOn(pair)
    let path = try #require(
      (FileManager.default.enumerator(atPath: pair.dir.sub("cloud"))?.allObjects as? [String])?
        .first { $0.hasSuffix(agreed) })
    try FileManager.default.removeItem(atPath: pair.dir.sub("cloud") + "/" + path)
    let report = try pair.deck.backup(pair.deckTarget, force: false)
    #expect(report.outcome == .uploaded && report.overrodeArchive == newer, "\(report)")
    #expect(try archiveNames(pair).contains(report.archive))
    #expect(try pair.deck.status(pair.deckTarget).state == .inSync)
  }

  @Test("both changed into the content of the cloud's one new archive: agreed on, nothing uploaded")
  func sameChange() throws {
    let pair = try SyncTests.Pair()
    let (_, newer) = try cloudMovedOn(pair)
    try writeFile(pair.deckSave + "/slot.sav", "v2 pc")  // the change the pc made, made here too
    let before = try archiveNames(pair)
    let report = try pair.deck.backup(pair.deckTarget, force: false)
    #expect(report.outcome == .unchanged && report.archive == newer, "\(report)")
    #expect(report.newerCloudArchive == nil, "\(report)")
    #expect(try archiveNames(pair) == before)
    #expect(try pair.deck.status(pair.deckTarget).state == .inSync, "the agreement was not recorded")
  }

  @Test("both changed: asked (upload or skip); nobody to ask uploads nothing; skip names the cloud's latest")
  func bothChanged() throws {
    let pair = try SyncTests.Pair()
    let (_, newer) = try cloudMovedOn(pair)
    try writeFile(pair.deckSave + "/slot.sav", "v2 deck")
    let before = try archiveNames(pair)
    #expect(throws: UnansweredQuestion.self) { try pair.deck.backup(pair.deckTarget, force: false) }
    #expect(try archiveNames(pair) == before)
    let resolver = ScriptedResolver(.skip)
    let skipped = try pair.deck.backup(pair.deckTarget, force: false, resolver: resolver)
    #expect(skipped.outcome == .skipped && skipped.newerCloudArchive == newer, "\(skipped)")
    #expect(resolver.asked.first?.choices == [.upload, .skip])
    #expect(try archiveNames(pair) == before)
  }

  @Test("no local save: refused, whatever the plan of a sync would do")
  func noSave() throws {
    let pair = try SyncTests.Pair()
    _ = try cloudMovedOn(pair)
    try FileManager.default.removeItem(atPath: pair.deckSave)
    #expect(throws: VaultError.saveDirectoryMissing(path: pair.deckTarget.saveDirectory)) {
      try pair.deck.backup(pair.deckTarget, force: false)
    }
    try makeDirectory(pair.deckSave)
    #expect(throws: VaultError.saveDirectoryEmpty(path: pair.deckTarget.saveDirectory)) {
      try pair.deck.backup(pair.deckTarget, force: false)
    }
  }
}
