import Foundation
import Testing

@testable import SaveVault

@Suite("Manifest index", .tags(.small))
struct LocationManifestIndexTests {
  func index() throws -> LocationManifestIndex {
    let games = try LocationManifestReader.games(from: Array(LocationManifestFixture.realEntries.utf8))
    return try #require(LocationManifestIndex(bytes: LocationManifestIndex.encode(games, stamp: "fixture")))
  }

  @Test("finds games by Steam, GOG and Lutris ids, titles and install folders, aliases followed")
  func lookups() throws {
    let index = try index()
    #expect(index.gameCount == LocationManifestFixture.realTitles.count)
    #expect(index.game(steamAppID: 525480)?.title == ".hack//G.U. Last Recode")
    #expect(index.game(steamAppID: 746970)?.title == ".hack//G.U. Last Recode")
    #expect(index.game(steamAppID: 1534820)?.title == "1/4平方米的星空")
    #expect(index.game(steamAppID: 42)?.title == "y")
    #expect(index.game(steamAppID: 5) == nil)
    #expect(index.game(gogID: 1_207_659_163)?.title == "'83")
    #expect(index.game(gogID: 1_400_000_001)?.title == "2014-12-31")
    #expect(index.game(lutrisSlug: "klaus")?.title == "Klaus")
    #expect(index.game(title: "0°N 0°W")?.steamID == 1081770)
    #expect(index.game(title: "-KLAUS-")?.title == "Klaus")
    #expect(index.game(title: "klaus")?.title == "Klaus")
    #expect(index.game(title: "Hack G.U. Last") == nil)
    #expect(index.game(title: ".HACK//g.u. LAST-RECODE")?.title == ".hack//G.U. Last Recode")
    #expect(index.game(title: "0000")?.registry == ["HKEY_CURRENT_USER/Software/Zero"])
    #expect(index.games(installDir: "hackgu").map(\.title) == [".hack//G.U. Last Recode"])
    #expect(index.games(installDir: "$1 Ride").map(\.title) == ["$1 Ride"])
    #expect(index.games(installDir: "nothing").isEmpty)
  }

  @Test("an alias loop stops instead of spinning")
  func aliasLoop() throws {
    let games = [
      LocationManifestGame(title: "A", alias: "B"), LocationManifestGame(title: "B", alias: "C"),
      LocationManifestGame(title: "C", alias: "A"),
      LocationManifestGame(title: "D", alias: "missing"),
    ]
    let index = try #require(LocationManifestIndex(bytes: LocationManifestIndex.encode(games, stamp: "")))
    #expect(index.game(title: "A")?.title == "C")
    #expect(index.game(title: "D")?.title == "D")
  }

  @Test("the index holds every game as it was read")
  func roundTrip() throws {
    let games = LocationManifestFixture.games(500)
    let index = try #require(LocationManifestIndex(bytes: LocationManifestIndex.encode(games, stamp: "s")))
    #expect(index.allGames == games)
    #expect(index.game(steamAppID: 100_123)?.title == "Game 123")
    #expect(index.game(title: "Alias 129")?.title == "Game 128")
  }

  @Test("a damaged, truncated or stale index is not used, and load makes it again")
  func damaged() throws {
    let dir = TemporaryDirectory("manifest-index")
    let path = dir.sub("manifest.index")
    let games = LocationManifestFixture.games(50)
    var builds = 0
    let first = LocationManifestIndex.load(path: path, stamp: "one") {
      builds += 1
      return games
    }
    #expect(first.gameCount == 50)
    #expect(LocationManifestIndex.open(path: path, stamp: "one") != nil)
    #expect(LocationManifestIndex.open(path: path, stamp: "two") == nil)
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    // A damaged header is refused at once; a damaged block of the body when a lookup reads it:
    // the lookup answers nothing, never another game, and the whole-file check fails.
    for damage in [20, bytes.count / 2, bytes.count - 1] {
      var broken = bytes
      broken[damage] ^= 0x40
      guard let index = LocationManifestIndex(bytes: broken) else { continue }
      #expect(!index.isWhole, "byte \(damage)")
      #expect(index.allGames.isEmpty, "byte \(damage)")
      for game in games {
        let found = index.game(title: game.title)
        #expect(found == nil || found?.title == game.title || found?.title == game.alias, "byte \(damage)")
      }
      #expect(games.contains { index.game(title: $0.title) == nil }, "byte \(damage): no lookup noticed")
    }
    // A mapped file found damaged by a lookup is removed, so that the next run makes it again:
    // a byte of the second block of the body, among the records of many games.
    let manyFolder = TemporaryDirectory("manifest-index-many")
    let many = manyFolder.sub("manifest.index")
    var broken = LocationManifestIndex.encode(LocationManifestFixture.games(2000), stamp: "one")
    let blocks = broken.withUnsafeBytes {
      Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 16, as: UInt32.self)))
    }
    broken[20 + 8 * blocks + 4096 + 10] ^= 0x40
    try Data(broken).write(to: URL(fileURLWithPath: many))
    let mapped = try #require(LocationManifestIndex.open(path: many, stamp: "one"))
    #expect(mapped.game(title: "Game 1") != nil)
    #expect(mapped.allGames.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: many))
    for length in [0, 8, 16, bytes.count / 3, bytes.count - 1] {
      #expect(LocationManifestIndex(bytes: Array(bytes.prefix(length))) == nil, "\(length) bytes")
    }
    try Data(bytes.prefix(bytes.count / 2)).write(to: URL(fileURLWithPath: path))
    _ = LocationManifestIndex.load(path: path, stamp: "one") {
      builds += 1
      return games
    }
    #expect(builds == 2)
    #expect(LocationManifestIndex.open(path: path, stamp: "one")?.gameCount == 50)
  }
}

@Suite("Manifest titles compared loosely", .tags(.small))
struct LocationManifestTitleTests {
  @Test(
    "case, spaces and punctuation ignored, ASCII or not",
    arguments: [
      ("Half-Life 2", "half life 2"), ("  HADES  ii!", "hades ii"), (".hack//G.U.", "hack g u"), ("___", ""),
      ("0°N 0°W", "0 n 0 w"), ("Ōkami HD", "ōkami hd"), ("1 ⛷ 1", "1 1"), ("Tab\there", "tab here"),
    ])
  func normalized(title: String, expected: String) {
    #expect(LocationManifestTitle.normalized(title) == expected)
  }
}
