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
    /// The step of a manual backup (`backup` without `--force`), when it differs.
    var backup: SyncStep?

    init(
      _ description: String, _ facts: SyncFacts, _ state: SyncState, _ step: SyncStep,
      afterGame: SyncStep? = nil, backup: SyncStep? = nil
    ) {
      self.description = description
      self.facts = facts
      self.state = state
      self.step = step
      self.afterGame = afterGame
      self.backup = backup
    }
  }

  /// An agreement's facts, for the rows.
  static func since(
    localChanged: Bool = false, isRollback: Bool = false, cloudLatestIsAgreed: Bool,
    newArchives: Int? = nil, agreedArchiveIsListed: Bool = true, identical: Bool? = nil,
    descendsFromAgreed: Bool? = nil
  ) -> SyncFacts {
    .bothHaveSaves(
      .recorded(
        SinceAgreement.Recorded(
          localChanged: localChanged, isRollback: isRollback, cloudLatestIsAgreed: cloudLatestIsAgreed,
          newArchivesSinceAgreement: newArchives, agreedArchiveIsListed: agreedArchiveIsListed,
          latestIdenticalToLocal: identical, latestDescendsFromAgreed: descendsFromAgreed)))
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
      .restore, afterGame: .restoreAtNextLaunch, backup: .nothing),
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
      afterGame: .restoreAtNextLaunch, backup: .nothing),
    Row(
      "local save deleted since the agreement", .noLocalSave(.deletedSinceAgreement), .localMissing,
      .ask(.localDeleted), backup: .nothing),
    Row("local save missing, as agreed", .noLocalSave(.agreedEmpty), .inSync, .nothing),
    Row(
      "unanswered conflict: still different", .bothHaveSaves(.unanswered(identicalContent: false)), .conflict,
      .ask(.stillUnanswered)),
    Row(
      "unanswered deletion: the save came back different",
      .bothHaveSaves(.unanswered(identicalContent: false, wasDeletion: true)), .conflict,
      .ask(.reappeared)),
    Row("unanswered: now identical", .bothHaveSaves(.unanswered(identicalContent: true)), .inSync, .nothing),
    Row(
      "agreement: a rollback, the cloud's latest as agreed",
      since(isRollback: true, cloudLatestIsAgreed: true), .localChanged, .upload),
    Row(
      "agreement: a rollback, and the save changed since",
      since(localChanged: true, isRollback: true, cloudLatestIsAgreed: true), .localChanged, .upload),
    Row(
      "agreement: both changed, into the content of the cloud's one new archive",
      since(localChanged: true, cloudLatestIsAgreed: false, newArchives: 1, identical: true), .inSync,
      .nothing),
    Row(
      "agreement: both changed, the cloud's one new archive differs",
      since(localChanged: true, cloudLatestIsAgreed: false, newArchives: 1, identical: false), .conflict,
      .ask(.bothChanged)),
    Row(
      "agreement: both changed, the newest of two new archives holds the save",
      since(localChanged: true, cloudLatestIsAgreed: false, newArchives: 2, identical: true), .conflict,
      .ask(.bothChanged)),
    Row(
      "agreement: a rollback, and the cloud's one new archive holds the save",
      since(isRollback: true, cloudLatestIsAgreed: false, newArchives: 1, identical: true), .inSync, .nothing),
    Row(
      "agreement: a rollback, and the cloud changed since, differently",
      since(isRollback: true, cloudLatestIsAgreed: false, newArchives: 1, identical: false), .conflict,
      .ask(.bothChanged)),
    Row(
      "agreement: only the cloud changed, its latest descends from the agreed archive",
      since(cloudLatestIsAgreed: false, descendsFromAgreed: true), .cloudChanged, .restore,
      afterGame: .restoreAtNextLaunch, backup: .nothing),
    Row(
      "agreement: the cloud's latest does not descend from the agreed archive (made apart, at the same moment)",
      since(cloudLatestIsAgreed: false, descendsFromAgreed: false), .conflict, .ask(.bothChanged)),
    Row(
      "agreement: only the cloud changed, and the agreed archive is gone from the container",
      since(cloudLatestIsAgreed: false, agreedArchiveIsListed: false, descendsFromAgreed: true),
      .cloudChanged,
      .restore, afterGame: .restoreAtNextLaunch, backup: .upload),
    Row(
      "agreement: the cloud's latest does not descend from the agreed archive, which is gone from the container",
      since(cloudLatestIsAgreed: false, agreedArchiveIsListed: false, descendsFromAgreed: false), .conflict,
      .ask(.bothChanged)),
    Row(
      "a save in folders made anew since the agreement (the game installed again), its content the cloud's",
      .bothHaveSaves(.remade(identicalContent: true)), .inSync, .nothing),
    Row(
      "a save in folders made anew since the agreement (the game installed again), different content",
      .bothHaveSaves(.remade(identicalContent: false)), .conflict, .ask(.reappeared)),
    Row(
      "folders made anew since the agreement hold nothing, the rest of the save as agreed: it went with them",
      .bothHaveSaves(.remade(identicalContent: false, onlyRemadeEmpty: true)), .localMissing, .restore,
      afterGame: .restoreAtNextLaunch, backup: .nothing),
    Row(
      "a location gained since the agreement (the agreed archive's, no place here then), its content the cloud's",
      .bothHaveSaves(.gained(identicalContent: true)), .inSync, .nothing),
    Row(
      "a location gained since the agreement, different content: asked about, never uploaded as a change",
      .bothHaveSaves(.gained(identicalContent: false)), .conflict, .ask(.noAgreement)),
  ]

  @Test("the decision table, every row, before and after a game, and for a backup", arguments: rows)
  func table(row: Row) {
    let full = Decision.plan(row.facts, phase: .full)
    let after = Decision.plan(row.facts, phase: .afterGame)
    let backup = Decision.plan(row.facts, phase: .backup)
    #expect(full.state == row.state)
    #expect(full.step == row.step)
    #expect(after.state == row.state)
    #expect(after.step == (row.afterGame ?? row.step))
    #expect(backup.state == row.state)
    #expect(backup.step == (row.backup ?? row.step))
    #expect(!full.reason.isEmpty)
    #expect(!backup.reason.isEmpty)
  }

  @Test("a fact that costs a download is needed only where it can change the plan")
  func factNeeded() {
    typealias Recorded = SinceAgreement.Recorded
    // The cloud's latest as agreed: nothing to download.
    for (changed, rollback) in [(false, false), (true, false), (false, true)] {
      #expect(
        Decision.factNeeded(Recorded(localChanged: changed, isRollback: rollback, cloudLatestIsAgreed: true))
          == nil)
    }
    // Both changed: the cloud's latest is compared with the save only when it is the one new
    // archive, and its header is never read.
    #expect(
      Decision.factNeeded(
        Recorded(localChanged: true, cloudLatestIsAgreed: false, newArchivesSinceAgreement: 1))
        == .latestIdenticalToLocal)
    #expect(
      Decision.factNeeded(Recorded(localChanged: false, isRollback: true, cloudLatestIsAgreed: false))
        == .latestIdenticalToLocal)
    #expect(
      Decision.factNeeded(
        Recorded(localChanged: true, cloudLatestIsAgreed: false, newArchivesSinceAgreement: 2))
        == nil)
    #expect(
      Decision.factNeeded(
        Recorded(localChanged: true, cloudLatestIsAgreed: false, latestIdenticalToLocal: false))
        == nil)
    // Only the cloud changed: its latest's header is read, its content never.
    #expect(
      Decision.factNeeded(Recorded(localChanged: false, cloudLatestIsAgreed: false))
        == .latestDescendsFromAgreed)
    #expect(
      Decision.factNeeded(
        Recorded(localChanged: false, cloudLatestIsAgreed: false, agreedArchiveIsListed: false))
        == .latestDescendsFromAgreed)
    #expect(
      Decision.factNeeded(
        Recorded(localChanged: false, cloudLatestIsAgreed: false, latestDescendsFromAgreed: true))
        == nil)
  }

  @Test("at most one fact is downloaded, and what is left ungathered never changes the plan, in any phase")
  func ungatheredFactsDoNotMatter() {
    for changed in [false, true] {
      for rollback in [false, true] {
        for agreed in [false, true] {
          for newArchives in 0...2 {
            for listed in [false, true] {
              for answer in [false, true] {
                var since = SinceAgreement.Recorded(
                  localChanged: changed, isRollback: rollback, cloudLatestIsAgreed: agreed,
                  newArchivesSinceAgreement: newArchives, agreedArchiveIsListed: listed)
                var gathered = 0
                while let fact = Decision.factNeeded(since) {
                  since[fact] = answer
                  gathered += 1
                }
                #expect(gathered <= 1, "\(since)")
                for fact in SinceAgreement.Recorded.Fact.allCases where since[fact] == nil {
                  var yes = since
                  var no = since
                  yes[fact] = true
                  no[fact] = false
                  for phase in SyncPhase.allCases {
                    let (a, b) = (
                      Decision.plan(.bothHaveSaves(.recorded(yes)), phase: phase),
                      Decision.plan(.bothHaveSaves(.recorded(no)), phase: phase)
                    )
                    #expect(a.state == b.state && a.step == b.step, "\(since) \(fact) \(phase)")
                  }
                }
              }
            }
          }
        }
      }
    }
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

  @Test("a backup never restores, and uploads nothing where there is no local save")
  func backupNeverRestores() {
    for row in Self.rows {
      let step = Decision.plan(row.facts, phase: .backup).step
      #expect(step != .restore && step != .restoreAtNextLaunch, "\(row)")
      if case .noLocalSave = row.facts { #expect(step == .nothing, "\(row)") }
    }
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
