import Testing

@testable import SaveVault

@Suite("The sync decision")
struct DecisionTests {
  struct Row: CustomStringConvertible, Sendable {
    var description: String
    var localExists: Bool
    var cloudHasArchives: Bool
    var agreement: Agreement
    var expected: SyncState
  }

  static let rows: [Row] = [
    Row(
      description: "ledger: nothing changed", localExists: true, cloudHasArchives: true,
      agreement: .recorded(localChanged: false, cloudLatestIsAgreed: true), expected: .inSync),
    Row(
      description: "ledger: only local changed", localExists: true, cloudHasArchives: true,
      agreement: .recorded(localChanged: true, cloudLatestIsAgreed: true), expected: .localChanged),
    Row(
      description: "ledger: only cloud changed", localExists: true, cloudHasArchives: true,
      agreement: .recorded(localChanged: false, cloudLatestIsAgreed: false), expected: .cloudChanged),
    Row(
      description: "ledger: both changed", localExists: true, cloudHasArchives: true,
      agreement: .recorded(localChanged: true, cloudLatestIsAgreed: false), expected: .conflict),
    Row(
      description: "no ledger: identical content", localExists: true, cloudHasArchives: true,
      agreement: .none(identicalContent: true), expected: .inSync),
    Row(
      description: "no ledger: different content", localExists: true, cloudHasArchives: true,
      agreement: .none(identicalContent: false), expected: .conflict),
    Row(
      description: "no ledger: empty cloud", localExists: true, cloudHasArchives: false,
      agreement: .none(identicalContent: false), expected: .cloudEmpty),
    Row(
      description: "no ledger: missing local", localExists: false, cloudHasArchives: true,
      agreement: .none(identicalContent: false), expected: .localMissing),
    Row(
      description: "ledger: cloud emptied", localExists: true, cloudHasArchives: false,
      agreement: .recorded(localChanged: false, cloudLatestIsAgreed: false), expected: .cloudEmpty),
    Row(
      description: "ledger: local deleted", localExists: false, cloudHasArchives: true,
      agreement: .recorded(localChanged: true, cloudLatestIsAgreed: true), expected: .localMissing),
    Row(
      description: "unanswered earlier: still different", localExists: true, cloudHasArchives: true,
      agreement: .unresolved(identicalContent: false), expected: .conflict),
    Row(
      description: "unanswered earlier: now identical", localExists: true, cloudHasArchives: true,
      agreement: .unresolved(identicalContent: true), expected: .inSync),
    Row(
      description: "nothing anywhere", localExists: false, cloudHasArchives: false,
      agreement: .none(identicalContent: false), expected: .cloudEmpty),
  ]

  @Test("the sync decision table, every row", arguments: rows)
  func table(row: Row) {
    let state = Decision.state(localExists: row.localExists, cloudHasArchives: row.cloudHasArchives) {
      row.agreement
    }
    #expect(state == row.expected)
  }

  @Test("the agreement is not consulted when one side is empty (no needless download)")
  func lazyAgreement() {
    var asked = false
    _ = Decision.state(localExists: false, cloudHasArchives: true) {
      asked = true
      return .none(identicalContent: true)
    }
    #expect(!asked)
  }
}

@Suite("Prune plan")
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
