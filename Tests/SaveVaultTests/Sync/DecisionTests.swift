import Testing

@testable import SaveVault

@Suite("The sync decision", .tags(.small))
struct DecisionTests {
  struct Row: CustomStringConvertible, Sendable {
    var description: String
    var facts: SyncFacts
    var state: SyncState
    /// The step of a full sync (before a game, or `sync`).
    var step: SyncStep
    /// The step after a game, when it differs.
    var afterGame: SyncStep?

    init(
      _ description: String, _ facts: SyncFacts, _ state: SyncState, _ step: SyncStep,
      afterGame: SyncStep? = nil
    ) {
      self.description = description
      self.facts = facts
      self.state = state
      self.step = step
      self.afterGame = afterGame
    }
  }

  static let rows: [Row] = [
    Row(
      "agreement: nothing changed", .bothHaveSaves(.recorded(localChanged: false, cloudLatestIsAgreed: true)),
      .inSync, .nothing),
    Row(
      "agreement: only local changed",
      .bothHaveSaves(.recorded(localChanged: true, cloudLatestIsAgreed: true)), .localChanged, .upload),
    Row(
      "agreement: only cloud changed",
      .bothHaveSaves(.recorded(localChanged: false, cloudLatestIsAgreed: false)), .cloudChanged,
      .restore, afterGame: .restoreAtNextLaunch),
    Row(
      "agreement: both changed", .bothHaveSaves(.recorded(localChanged: true, cloudLatestIsAgreed: false)),
      .conflict, .ask(.bothChanged)),
    Row("no agreement: identical content", .bothHaveSaves(.none(identicalContent: true)), .inSync, .nothing),
    Row(
      "no agreement: different content", .bothHaveSaves(.none(identicalContent: false)), .conflict,
      .ask(.noAgreement)),
    Row(
      "save on another drive than agreed: different content",
      .bothHaveSaves(.none(identicalContent: false, isOnOtherDrive: true)),
      .conflict, .ask(.otherDrive)),
    Row(
      "save on another drive than agreed: identical content",
      .bothHaveSaves(.none(identicalContent: true, isOnOtherDrive: true)), .inSync, .nothing),
    Row("empty cloud, a local save", .cloudEmpty(hasSave: true), .cloudEmpty, .upload),
    Row("nothing anywhere", .cloudEmpty(hasSave: false), .cloudEmpty, .nothing),
    Row(
      "no local save, nothing agreed that explains it", .noLocalSave(.unexplained), .localMissing, .restore,
      afterGame: .restoreAtNextLaunch),
    Row(
      "local save deleted since the agreement", .noLocalSave(.deletedSinceAgreement), .localMissing,
      .ask(.localDeleted)),
    Row("local save missing, as agreed", .noLocalSave(.agreedEmpty), .inSync, .nothing),
    Row(
      "unanswered conflict: still different", .bothHaveSaves(.unanswered(identicalContent: false)), .conflict,
      .ask(.stillUnanswered)),
    Row(
      "unanswered deletion: the save came back different",
      .bothHaveSaves(.unanswered(identicalContent: false, wasDeletion: true)), .conflict,
      .ask(.reappeared)),
    Row("unanswered: now identical", .bothHaveSaves(.unanswered(identicalContent: true)), .inSync, .nothing),
  ]

  @Test("the decision table, every row, before and after a game", arguments: rows)
  func table(row: Row) {
    let full = Decision.plan(row.facts, phase: .full)
    let after = Decision.plan(row.facts, phase: .afterGame)
    #expect(full.state == row.state)
    #expect(full.step == row.step)
    #expect(after.state == row.state)
    #expect(after.step == (row.afterGame ?? row.step))
    #expect(!full.reason.isEmpty)
  }

  @Test("no policy may upload a save that may not be the one agreed on")
  func askKinds() {
    for kind in [ConflictKind.reappeared, .otherDrive] { #expect(!kind.mayUploadByPolicy) }
    for kind in [ConflictKind.bothChanged, .noAgreement, .stillUnanswered, .localDeleted] {
      #expect(kind.mayUploadByPolicy)
    }
  }

  @Test("after a game nothing is restored: no row's after-game step is a restore")
  func noRestoreAfterGame() {
    for row in Self.rows { #expect(Decision.plan(row.facts, phase: .afterGame).step != .restore, "\(row)") }
  }
}

@Suite("Prune plan", .tags(.small))
struct PrunePlanTests {
  func archive(_ ms: Int64, _ device: String?) -> StoredArchive {
    StoredArchive(
      name: device.map { ArchiveName(createdMs: ms, device: $0).description } ?? "packsave-foreign-\(ms).tar",
      size: 1, modifiedMs: ms, device: device)
  }

  @Test("keeps the newest N and the newest of every device")
  func keepsNewestPerDevice() {
    let archives = [
      archive(1, "a"), archive(2, "a"), archive(3, "b"), archive(4, "a"), archive(5, "a"), archive(6, nil),
    ]
    let doomed = Set(PrunePlan.deletions(archives, keep: 2).map(\.modifiedMs))
    // kept: 6 and 5 (newest two), 3 (newest of b); 4, 2, 1 go.
    #expect(doomed == [4, 2, 1])
  }

  struct EmptyRow: CustomStringConvertible, Sendable {
    var description: String
    /// Times of archives that hold a save; every other archive is of an empty save.
    var holding: Set<Int64>
    var keep: Int
    var doomed: Set<Int64>
  }

  static let emptyRows = [
    EmptyRow(description: "the kept newest holds a save", holding: [1, 2, 3], keep: 1, doomed: [1, 2]),
    EmptyRow(
      description: "only empties kept: the newest that holds a save stays", holding: [1, 2], keep: 1,
      doomed: [1]),
    EmptyRow(description: "empties all the way down", holding: [], keep: 1, doomed: [1, 2]),
    EmptyRow(description: "a kept older one holds a save", holding: [2], keep: 2, doomed: [1]),
  ]

  @Test("never leaves only empty saves while deleting one that holds a save", arguments: emptyRows)
  func keepsLastRealSave(row: EmptyRow) {
    let archives = [archive(1, "a"), archive(2, "a"), archive(3, "a")]
    var asked: [Int64] = []
    let doomed = PrunePlan.deletions(archives, keep: row.keep) { archive in
      asked.append(archive.modifiedMs)
      return row.holding.contains(archive.modifiedMs)
    }
    #expect(Set(doomed.map(\.modifiedMs)) == row.doomed)
    // Kept archives first, newest first; doomed ones only when no kept one holds a save.
    #expect(asked.first == 3)
  }

  @Test("never deletes when every archive is some device's newest")
  func allNewest() {
    let archives = [archive(1, "a"), archive(2, "b"), archive(3, "c")]
    #expect(PrunePlan.deletions(archives, keep: 1).isEmpty)
  }
}
