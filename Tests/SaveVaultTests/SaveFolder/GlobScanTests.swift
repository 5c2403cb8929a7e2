import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// The scan of a location of files (a glob over a folder): names of any bytes walked and
/// matched as they are, a symlink treated as a folder location treats it, and `**` never
/// walked round a loop.
@Suite("Glob locations: names of any bytes, symlinks, loops", .tags(.small))
struct GlobScanTests {
  /// Writes `content` to `relative` (bytes, `/`-separated) under `root`, making its folders.
  static func write(_ root: String, _ relative: [UInt8], _ content: String) throws {
    var path = Array(root.utf8)
    let names = relative.split(separator: UInt8(ascii: "/"))
    for name in names.dropLast() {
      path += [UInt8(ascii: "/")] + name
      let made = RawName.withCString(RawName.string(path)) { mkdir($0, 0o755) }
      try #require(made == 0 || errno == EEXIST, "mkdir: \(errno)")
    }
    path += [UInt8(ascii: "/")] + (names.last ?? [])
    let fd = RawName.withCString(RawName.string(path)) { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
    try #require(fd >= 0, "open: \(errno)")
    defer { close(fd) }
    try #require(Glibc.write(fd, content, content.utf8.count) == content.utf8.count)
  }

  /// A Latin-1 folder name and a Shift-JIS one (セーブ), neither of them UTF-8.
  static let latin1 = Array("sl".utf8) + [0xE9] + Array("ot".utf8)
  static let shiftJIS: [UInt8] = [0x83, 0x5A, 0x81, 0x5B, 0x83, 0x75]

  @Test(
    "`**` walks into folders whose names are not UTF-8, and `*` matches such names: their files are the save's",
    arguments: [true, false])
  func nonUTF8Folders(caseSensitive: Bool) throws {
    let dir = TemporaryDirectory("glob-raw")
    try Self.write(dir.path, Self.latin1 + Array("/a.sav".utf8), "latin-1 folder")
    try Self.write(dir.path, Self.shiftJIS + Array("/deep/b.sav".utf8), "shift-jis folder")
    try Self.write(dir.path, Array("top.sav".utf8), "top")
    try Self.write(dir.path, Array("notes.txt".utf8), "not a save")
    let scan = try #require(
      try SaveScan.scan(dir.path, files: FilePattern(pattern: "**/*.sav", caseSensitive: caseSensitive)))
    let expected = [
      RawName.string(Self.latin1 + Array("/a.sav".utf8)),
      RawName.string(Self.shiftJIS + Array("/deep/b.sav".utf8)), "top.sav",
    ]
    #expect(scan.entries.map(\.path).sorted() == expected.sorted())
    #expect(scan.skipped.isEmpty, "\(scan.skipped)")
    // A folder the pattern names is the save's whole, whatever its name's bytes.
    let folders = try #require(
      try SaveScan.scan(dir.path, files: FilePattern(pattern: "s?*", caseSensitive: caseSensitive)))
    #expect(folders.entries.map(\.path) == [RawName.string(Self.latin1 + Array("/a.sav".utf8))])
    // Discovery's walk, which follows links, finds them too.
    let found = Glob.expand(anchor: dir.path, components: ["**", "*.sav"], caseSensitive: caseSensitive)
    #expect(found.map(\.path).sorted() == expected.map { dir.path + "/" + $0 }.sorted())
  }

  @Test(
    "a link the glob names is kept as a link when it stays inside the location's folder (as in a folder location), skipped when it leads out; a linked folder is not walked"
  )
  func symlinks() throws {
    let dir = TemporaryDirectory("glob-links")
    let saves = dir.sub("Saves")
    try writeFile(saves + "/top.sav", "top")
    try writeFile(saves + "/sub/slot.sav", "slot")
    try writeFile(dir.sub("elsewhere/out.sav"), "not this game's")
    try writeFile(saves + "/world.sav/region.dat", "region")
    #expect(symlink("top.sav", saves + "/current.sav") == 0)
    #expect(symlink("../top.sav", saves + "/sub/back.sav") == 0)
    #expect(symlink(dir.sub("elsewhere/out.sav"), saves + "/out.sav") == 0)
    #expect(symlink("../../elsewhere/out.sav", saves + "/sub/up.sav") == 0)
    #expect(symlink("../elsewhere", saves + "/linked") == 0)
    #expect(symlink("region.dat", saves + "/world.sav/latest") == 0)
    let scan = try #require(
      try SaveScan.scan(saves, files: FilePattern(pattern: "**/*.sav", caseSensitive: true)))
    let links = scan.entries.filter { $0.kind == .symlink }.map { "\($0.path) -> \($0.linkTarget ?? "")" }
    #expect(
      links.sorted() == [
        "current.sav -> top.sav", "sub/back.sav -> ../top.sav", "world.sav/latest -> region.dat",
      ])
    #expect(
      scan.entries.filter { $0.kind == .file }.map(\.path).sorted() == [
        "sub/slot.sav", "top.sav", "world.sav/region.dat",
      ])
    #expect(Set(scan.skipped.map(\.path)) == ["out.sav", "sub/up.sav"], "\(scan.skipped)")
    #expect(scan.skipped.allSatisfy { $0.reason.contains("leads outside") }, "\(scan.skipped)")
    // One file named by a link: the same.
    let one = try #require(try SaveScan.scan(saves, files: .file("current.sav", caseSensitive: true)))
    #expect(one.entries.map(\.kind) == [.symlink])
  }

  @Test("`**` through a folder that links to its parent or itself ends, each file found once")
  func linkLoops() throws {
    let dir = TemporaryDirectory("glob-loop")
    try writeFile(dir.sub("Saves/sub/slot.sav"), "slot")
    #expect(symlink("..", dir.sub("Saves/sub/up")) == 0)
    let found = Glob.expand(anchor: dir.sub("Saves"), components: ["**", "*.sav"], caseSensitive: true)
    #expect(found.count == 1, "\(found.map(\.path))")
    let scan = try #require(
      try SaveScan.scan(dir.sub("Saves"), files: FilePattern(pattern: "**/*.sav", caseSensitive: true)))
    #expect(scan.entries.map(\.path) == ["sub/slot.sav"])
  }
}
