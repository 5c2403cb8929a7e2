import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The checks every packed file goes through (`SaveFileReading`, shared by streamed and
/// read-ahead files), each made to fire on purpose rather than by a race with a writer.
@Suite("Save file reading: a file that changes while it is packed is never stored torn", .tags(.small))
struct SaveFileReadingTests {
  /// Reads `file` to its size at open.
  func readAll(_ file: SaveFileReading) throws -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: Int(file.size))
    var done = 0
    try bytes.withUnsafeMutableBytes { buffer in
      guard let base = buffer.baseAddress else { return }
      while done < buffer.count {
        done += try file.readChunk(into: base + done, count: buffer.count - done)
      }
    }
    return bytes
  }

  @Test("an unchanged file reads whole and passes; relative to its folder as well")
  func unchanged() throws {
    let dir = TemporaryDirectory("filereading")
    try writeFile(dir.sub("save/a/b/slot.sav"), "level 7")
    try writeFile(dir.sub("save/top.sav"), "top")
    let folders = FolderDescriptors(root: dir.sub("save"))
    for (path, content) in [("a/b/slot.sav", "level 7"), ("top.sav", "top"), ("a/b/slot.sav", "level 7")] {
      let file = try folders.openFile(path)
      #expect(String(decoding: try readAll(file), as: UTF8.self) == content)
      try file.checkUnchanged()
      #expect(file.path == dir.sub("save/" + path), "errors would not name the file")
    }
  }

  @Test("grown, rewritten with a new time, or shrunk while read: refused as changed")
  func changed() throws {
    let dir = TemporaryDirectory("filereading-changed")
    let path = dir.sub("slot.sav")

    try writeFile(path, "0123456789")
    let grown = try SaveFileReading(path)
    _ = try readAll(grown)
    let handle = try #require(FileHandle(forWritingAtPath: path))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("more".utf8))
    try handle.close()
    #expect(throws: ArchiveError.changedWhileReading(path: path)) { try grown.checkUnchanged() }

    try writeFile(path, "0123456789", modifiedNs: 1_700_000_000_000_000_000)
    let rewritten = try SaveFileReading(path)
    _ = try readAll(rewritten)
    try writeFile(path, "9876543210", modifiedNs: 1_700_000_001_000_000_000)  // same size
    #expect(throws: ArchiveError.changedWhileReading(path: path)) { try rewritten.checkUnchanged() }

    try writeFile(path, "0123456789")
    let shrunk = try SaveFileReading(path)
    #expect(truncate(path, 4) == 0)
    #expect(throws: ArchiveError.changedWhileReading(path: path)) { _ = try readAll(shrunk) }
  }

  @Test(
    "a symlink, a folder or a missing file where the scan saw a file: the save changed since, naming the file"
  )
  func notARegularFile() throws {
    let dir = TemporaryDirectory("filereading-kinds")
    try writeFile(dir.sub("save/d/real.sav"), "x")
    try FileManager.default.createSymbolicLink(
      atPath: dir.sub("save/d/link.sav"), withDestinationPath: "real.sav")
    let folders = FolderDescriptors(root: dir.sub("save"))
    for path in ["d/link.sav", "d", "d/gone.sav", "nofolder/gone.sav"] {
      do {
        _ = try folders.openFile(path)
        Issue.record("\(path) was opened")
      } catch {
        // (The backup scans the save again and packs it again.)
        guard case .changedWhileReading(let named) = error else {
          Issue.record("\(path): \(error)")
          continue
        }
        #expect(named == dir.sub("save/" + path))
      }
    }
  }

  /// Rewrites `count` bytes at `offset` in place, then puts the modification time back, as a
  /// filesystem whose clock has not ticked since the file was opened would leave it.
  func rewriteInTheSameTick(_ path: String, at offset: UInt64, count: Int, modifiedNs: Int64) throws {
    let handle = try #require(FileHandle(forWritingAtPath: path))
    try handle.seek(toOffset: offset)
    try handle.write(contentsOf: Data(repeating: 0xAB, count: count))
    try handle.close()
    setModified(path, ns: modifiedNs)
  }

  @Test(
    "a file written just before it was read, rewritten during the read in one clock tick: read again, refused",
    arguments: [4096, 3 << 20])
  func racyRewrite(size: Int) throws {
    let dir = TemporaryDirectory("filereading-racy")
    let path = dir.sub("slot.sav")
    // Modified "just now" whatever the machine's load: a time ahead of the clock is racy too.
    let ahead = Int64(Date().timeIntervalSince1970 + 3600) * 1_000_000_000
    try writeFile(path, Data((0..<size).map { UInt8($0 % 251) }), modifiedNs: ahead)
    let file = try SaveFileReading(path)
    #expect(file.isRacy)
    let first = try readAll(file)
    try rewriteInTheSameTick(path, at: UInt64(size / 2), count: 16, modifiedNs: file.modifiedNs)
    try file.checkUnchanged()  // size and time tell nothing
    let hash = SHA256()
    hash.update(first)
    #expect(throws: ArchiveError.changedWhileReading(path: path)) {
      try file.checkSameAgain(digest: hash.finalize())
    }
  }

  @Test("a racy file that did not change passes; a file last modified well before the read is not read again")
  func racyUnchangedAndOld() throws {
    let dir = TemporaryDirectory("filereading-old")
    let path = dir.sub("slot.sav")
    try writeFile(path, "level 7", modifiedNs: Int64(Date().timeIntervalSince1970 + 3600) * 1_000_000_000)
    let racy = try SaveFileReading(path)
    #expect(racy.isRacy)
    let hash = SHA256()
    hash.update(try readAll(racy))
    try racy.checkSameAgain(digest: hash.finalize())

    let old = Int64(Date().timeIntervalSince1970 - 10) * 1_000_000_000
    setModified(path, ns: old)
    let settled = try SaveFileReading(path)
    #expect(!settled.isRacy)
    _ = try readAll(settled)
    try rewriteInTheSameTick(path, at: 0, count: 4, modifiedNs: old)
    try settled.checkSameAgain(digest: "not read again, so never compared")
  }

  @Test("racy saves (times ahead of the clock) pack and restore byte for byte: the second read agrees")
  func freshSavePacks() throws {
    let dir = TemporaryDirectory("filereading-fresh")
    let save = dir.sub("save")
    // Times ahead of the clock: racy whenever the backup runs, so both are read twice.
    let ahead = Int64(Date().timeIntervalSince1970 + 3600) * 1_000_000_000
    try writeFile(save + "/small.sav", "level 7", modifiedNs: ahead)
    try writeFile(save + "/large.sav", Data((0..<(3 << 20)).map { UInt8($0 % 253) }), modifiedNs: ahead)
    #expect(try SaveFileReading(save + "/large.sav").isRacy)
    let before = tree(save)
    let vault = try Vault(context: testContext(home: dir.sub("home")))
    let target = try vault.resolve(TargetRequest(saveDirectory: save))
    _ = try vault.backup(target, force: false)
    try writeFile(save + "/small.sav", "changed")
    _ = try vault.restore(target, selection: .latest)
    #expect(tree(save) == before)
  }
}
