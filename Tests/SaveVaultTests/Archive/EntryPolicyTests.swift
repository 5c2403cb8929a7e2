import Foundation
import Testing

@testable import SaveVault

@Suite("Entry and symlink rules", .tags(.small))
struct EntryPolicyTests {
  @Test(
    "entry paths",
    arguments: [
      ("a/b.sav", EntryPolicy.PathCheck.accepted("a/b.sav")),
      ("./a//b/./c", .accepted("a/b/c")),
      ("dir/", .accepted("dir")),
      (".", .root), ("./", .root),
      ("../x", .refused("entry '../x' climbs out with '..'")),
      ("tmp/../../x", .refused("entry 'tmp/../../x' climbs out with '..'")),
      ("a/..", .refused("entry 'a/..' climbs out with '..'")),
      ("/etc/passwd", .refused("entry '/etc/passwd' has an absolute path")),
      ("//abs", .refused("entry '//abs' has an absolute path")),
      ("", .refused("an entry has an empty name")),
    ])
  func paths(raw: String, expected: EntryPolicy.PathCheck) {
    #expect(EntryPolicy.check(path: raw) == expected)
  }

  @Test(
    "symlinks stay inside",
    arguments: [
      ("link", "target", true), ("a/link", "../b", true), ("a/b/link", "../../c/d", true),
      ("a/link", "..", true), ("link", "sub/dir/file", true),
      ("link", "/etc/passwd", false), ("link", "../outside", false), ("a/link", "../../x", false),
      ("link", "b/../..", false), ("link", "b/..", false), ("link", ".", false), ("link", "", false),
      ("link", "./x", false),
    ])
  func symlinks(link: String, target: String, isInside: Bool) {
    #expect(SymlinkPolicy.staysInside(linkPath: link, target: target) == isInside)
  }

  @Test("ancestors, outermost first")
  func ancestors() {
    #expect(EntryPolicy.ancestors(of: "a/b/c") == ["a", "a/b"])
    #expect(EntryPolicy.ancestors(of: "a").isEmpty)
  }
}

@Suite("Times at the edges", .tags(.small))
struct TimeEdgeTests {
  @Test(
    "nanoseconds saturate instead of trapping",
    arguments: [
      (Int64(1), Int64(5), Int64(1_000_000_005)), (Int64(1) << 62, Int64(0), Int64.max),
      (-(Int64(1) << 62), Int64(0), Int64.min), (Int64.max / 1_000_000_000, Int64(999_999_999), Int64.max),
      (Int64(-1), Int64(500), Int64(-999_999_500)),
    ] as [(Int64, Int64, Int64)])
  func saturate(seconds: Int64, nanoseconds: Int64, expected: Int64) {
    #expect(FileTimes.nanoseconds(seconds: seconds, nanoseconds: nanoseconds) == expected)
  }

  @Test("floor division at the extremes", arguments: [Int64.min, Int64.min + 1, -1, 0, 1, Int64.max])
  func floors(value: Int64) {
    let quotient = floorDiv(value, 1_000_000)
    let remainder = floorMod(value, 1_000_000)
    #expect((0..<1_000_000).contains(remainder))
    #expect(quotient.multipliedReportingOverflow(by: 1_000_000).partialValue &+ remainder == value)
  }

  @Test("an archive entry dated 2^62 seconds is checked without crashing (found by the fuzzer)")
  func hugeMtime() throws {
    let seed = repositoryRoot + "/fuzz/corpus/archive/regression-huge-mtime"
    let data = try #require(FileManager.default.contents(atPath: seed))
    let dir = TemporaryDirectory("hugemtime")
    try writeFile(dir.sub("a.tar"), data.dropFirst())  // the first byte picks the fuzz input kind
    let fd = open(dir.sub("a.tar"), O_RDONLY)
    defer { close(fd) }
    _ = try? Extractor().extract(fd: fd, archiveName: "a.tar", into: nil)
  }
}
