import Foundation
import Testing

@testable import SaveVault

@Suite("Agreement index", .tags(.small))
struct AgreementIndexTests {
  @Test("is written in the index's line format, escapes included, and read back")
  func exactText() throws {
    let dir = TemporaryDirectory("agreement-index")
    let store = AgreementStore(directory: dir.path)
    let index = [
      AgreedFile(path: "d", kind: .directory, size: 0, modifiedNs: -5, mode: 0o755, detail: ""),
      AgreedFile(
        path: "a%b\tc\nd\re é", kind: .file, size: 12, modifiedNs: 1_700_000_000_123_456_789, mode: 0o644,
        changedNs: 1_700_000_001_000_000_002, inode: UInt64.max, detail: "ab12"),
      AgreedFile(
        path: "d/link", kind: .symlink, size: 0, modifiedNs: 7, mode: 0o777, changedNs: -8, inode: 9,
        detail: "../x%09"),
    ]
    let record = Agreement(
      game: "g", container: "c", archive: "a", metadataDigest: "m", contentDigest: "d", files: 1, bytes: 12,
      agreedAtMs: 0)
    try store.save(record, index: index)
    let path = store.base(game: "g", container: "c") + ".index"
    let text = try String(contentsOfFile: path, encoding: .utf8)
    #expect(
      text
        == "directory\t0\t-5\t493\t\td\n"
        + "file\t12\t1700000000123456789\t420\t1700000001000000002\t18446744073709551615\tab12\ta%25b%09c%0Ad%0De é\n"
        + "symlink\t0\t7\t511\t-8\t9\t../x%2509\td/link\n")
    let loaded = try #require(store.loadIndex(game: "g", container: "c"))
    #expect(loaded.count == 3)
    for entry in index { #expect(loaded[entry.path] == entry) }
  }

  @Test("a line without change time and inode (written before they were recorded) loads, and never matches")
  func sixFieldLines() throws {
    let dir = TemporaryDirectory("agreement-index-old")
    let store = AgreementStore(directory: dir.path)
    let record = Agreement(
      game: "g", container: "c", archive: "a", metadataDigest: "m", contentDigest: "d", files: 1, bytes: 3,
      agreedAtMs: 0)
    try store.save(record, index: [])
    let text = "file\t3\t100\t420\tab12\tslot.sav\nfile\t3\t100\t420\t5\t6\tcd34\tnew.sav\n"
    try text.write(
      toFile: store.base(game: "g", container: "c") + ".index", atomically: true, encoding: .utf8)
    let loaded = try #require(store.loadIndex(game: "g", container: "c"))
    let old = try #require(loaded["slot.sav"])
    #expect(old.detail == "ab12" && old.changedNs == nil && old.inode == nil)
    let file = SaveScanEntry(path: "slot.sav", kind: .file, size: 3, modifiedNs: 100, mode: 0o644)
    #expect(!old.matches(file), "unknown change time and inode: hashed, never taken as unchanged")
    let new = try #require(loaded["new.sav"])
    #expect(new.detail == "cd34" && new.changedNs == 5 && new.inode == 6)
    var same = file
    (same.path, same.changedNs, same.inode) = ("new.sav", 5, 6)
    #expect(new.matches(same))
    var copiedIn = same
    copiedIn.changedNs = 7
    #expect(!new.matches(copiedIn), "a new change time with the old size and mtime is not a match")
    copiedIn = same
    copiedIn.inode = 8
    #expect(!new.matches(copiedIn), "another inode with the old size and mtime is not a match")
  }

  @Test("takes each file's hash from the manifest, whatever the manifest's order")
  func detailsByPath() {
    let entries = [
      SaveScanEntry(path: "a", kind: .file, size: 1, modifiedNs: 1, mode: 0o644),
      SaveScanEntry(path: "b", kind: .symlink, size: 0, modifiedNs: 2, mode: 0o777, linkTarget: "a"),
      SaveScanEntry(path: "c", kind: .directory, size: 0, modifiedNs: 3, mode: 0o755),
    ]
    let scan = SaveScan(root: "/nowhere", entries: entries, skipped: [])
    let content = [
      ManifestEntry(path: "a", kind: .file, size: 1, sha256: "hash-a"),
      ManifestEntry(path: "b", kind: .symlink, target: "a"),
      ManifestEntry(path: "c", kind: .directory),
    ]
    let inOrder = AgreedFile.entries(scan: scan, content: content)
    #expect(inOrder.map(\.detail) == ["hash-a", "a", ""])
    #expect(AgreedFile.entries(scan: scan, content: content.reversed()) == inOrder)
    #expect(
      AgreedFile.entries(scan: scan, content: Array(content.prefix(1))).map(\.detail) == [
        "hash-a", "", "",
      ])
  }
}
