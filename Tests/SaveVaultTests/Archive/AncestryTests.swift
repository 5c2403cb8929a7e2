import Testing

@testable import SaveVault

/// What an archive's save descends from (`ArchiveHeader.ancestry`): how an upload's ancestry is
/// made from its parents, and how a device reads it against the archive it agreed on.
@Suite("Ancestry: what an archive's save descends from", .tags(.small))
struct AncestryTests {
  static func name(_ ms: Int64, _ device: String = "deck") -> String {
    ArchiveName(createdMs: ms, device: device).description
  }

  static func header(ancestry: [String]? = nil, madeOver: [String]? = nil) -> ArchiveHeader {
    var header = ArchiveHeader(format: 1, game: "g", device: "deck", createdMs: 10_000, ancestry: ancestry)
    header.madeOver = madeOver
    return header
  }

  @Test("an upload's ancestry: every parent and what it descends from, once each, newest first")
  func madeFromParents() {
    let made = ArchiveHeader.ancestry(parents: [
      (Self.name(50, "desk"), [Self.name(30), Self.name(10)]),
      (Self.name(40), [Self.name(30), Self.name(20), Self.name(10)]),
    ])
    #expect(made == [50, 40, 30, 20, 10].map { Self.name($0, $0 == 50 ? "desk" : "deck") })
    #expect(ArchiveHeader.ancestry(parents: []) == [])
    #expect(ArchiveHeader.ancestry(parents: [(Self.name(5), nil)]) == [Self.name(5)])
  }

  @Test("an ancestry keeps the newest names only")
  func keepsTheNewest() {
    let long = (1...100).map { Self.name(Int64($0)) }
    let made = ArchiveHeader.ancestry(parents: [(Self.name(101), long.reversed())])
    #expect(made.count == ArchiveHeader.ancestryLimit)
    #expect(made.first == Self.name(101))
    #expect(made.last == Self.name(Int64(101 - ArchiveHeader.ancestryLimit + 1)))
  }

  @Test(
    "descent: named in the ancestry; an archive made apart is not; a full list of later names reaches beyond")
  func descent() {
    let header = Self.header(ancestry: [Self.name(30), Self.name(10)])
    #expect(header.descent(from: Self.name(30)) == .descends)
    #expect(header.descent(from: Self.name(10)) == .descends)
    // Made at the same moment as the archive at 30 by another device: not in the ancestry.
    #expect(header.descent(from: Self.name(31, "desk")) == .apart)
    #expect(header.descent(from: Self.name(20)) == .apart)
    // A full list that names only later archives: whether its oldest descends is the question.
    let full = Self.header(
      ancestry: (1...ArchiveHeader.ancestryLimit).reversed().map { Self.name(Int64(100 + $0)) })
    #expect(full.descent(from: Self.name(50)) == .beyond(oldest: Self.name(101)))
    #expect(full.descent(from: Self.name(150, "desk")) == .apart)
  }

  @Test("an archive of an earlier version is read by its madeOver; one that says nothing is taken to descend")
  func earlierArchives() {
    let earlier = Self.header(madeOver: [Self.name(30), Self.name(10)])
    #expect(earlier.descent(from: Self.name(10)) == .descends)
    #expect(earlier.descent(from: Self.name(20)) == .descends, "a later archive is listed")
    #expect(earlier.descent(from: Self.name(40)) == .apart)
    #expect(Self.header().descent(from: Self.name(40)) == .descends)
    #expect(earlier.lineage == [Self.name(30), Self.name(10)], "what an upload over it names after it")
  }
}
