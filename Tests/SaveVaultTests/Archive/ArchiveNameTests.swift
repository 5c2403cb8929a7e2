import Testing

@testable import SaveVault

@Suite("Archive names", .tags(.small))
struct ArchiveNameTests {
  @Test(
    "format and parse agree to the millisecond",
    arguments: [
      (Int64(0), "packsave-19700101T000000.000Z-deck.tar"),
      (1_795_968_071_609, "packsave-20261129T160111.609Z-deck.tar"),
      (951_782_400_001, "packsave-20000229T000000.001Z-deck.tar"),  // leap day
      (-1, "packsave-19691231T235959.999Z-deck.tar"),  // before 1970
      (253_402_300_799_999, "packsave-99991231T235959.999Z-deck.tar"),
    ])
  func roundTrip(ms: Int64, name: String) throws {
    #expect(ArchiveName(createdMs: ms, device: "deck").description == name)
    let parsed = try #require(ArchiveName(parsing: name))
    #expect(parsed.createdMs == ms)
    #expect(parsed.device == "deck")
  }

  @Test(
    "names that are not SaveVault's do not parse",
    arguments: [
      "packsave-.tar", "packsave-20261129T160111.609Z.tar", "packsave-20261129T160111.609Z-.tar",
      "packsave-20261329T160111.609Z-deck.tar", "packsave-20260230T160111.609Z-deck.tar",
      "packsave-20261129T246111.609Z-deck.tar", "packsave-20261129X160111.609Z-deck.tar",
      "packsave-2026112AT160111.609Z-deck.tar", "packsave-20261129T160111.609Z-deck.zip",
      "savepack-20261129T160111.609Z-deck.tar", "packsave-20261129T160111.609Z-de ck.tar",
    ])
  func rejects(name: String) {
    #expect(ArchiveName(parsing: name) == nil)
  }

  @Test(
    "device names become safe file-name parts",
    arguments: [
      ("steamdeck", "steamdeck"), ("Alice's PC", "Alice_s_PC-" + digest("Alice's PC")),
      ("..hidden", "hidden-" + digest("..hidden")), ("", "device"), ("a/b", "a_b-" + digest("a/b")),
      ("my-deck.local", "my-deck.local"), ("デッキ", "___-" + digest("デッキ")), ("パソコ", "___-" + digest("パソコ")),
      (
        String(repeating: "x", count: 70),
        String(repeating: "x", count: 57) + "-" + digest(String(repeating: "x", count: 70))
      ),
    ])
  func sanitize(device: String, expected: String) {
    #expect(expected.count <= 64)
    #expect(ArchiveName.sanitize(device: device) == expected)
    let name = ArchiveName(createdMs: 5, device: device)
    #expect(ArchiveName(parsing: name.description)?.device == expected)
  }

  @Test("names sort in time order")
  func sortOrder() {
    let times: [Int64] = [1_000, 999, 1_795_968_071_609, 86_400_000, 1_795_968_071_610]
    let names = times.map { ArchiveName(createdMs: $0, device: "x").description }
    #expect(names.sorted() == times.sorted().map { ArchiveName(createdMs: $0, device: "x").description })
  }

  @Test(
    "backup names are recognised, other files are not",
    arguments: [
      ("packsave-anything.tar", true), ("packsave-.tar", false), (".savevault-tmp-abc", false),
      ("notes.txt", false), ("packsave-x/y.tar", false), ("packsave-anything.tar.zst", true),
      ("packsave-.tar.zst", false), ("packsave-x.zst", false), ("packsave-x/y.tar.zst", false),
      ("packsave-x.tar.zst.part", false),
    ])
  func backupNames(name: String, isBackup: Bool) {
    #expect(ArchiveName.isBackupName(name) == isBackup)
  }
}

/// The first six hex digits of the SHA-256 of `text`: what a device name that had to change carries.
func digest(_ text: String) -> String { String(SHA256.hex(of: text).prefix(6)) }
