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
@Suite("Save file reading: a file that changes while it is packed is never stored torn")
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

  @Test("a symlink, a folder or a missing file is refused, naming the file")
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
        guard case .unreadable(let named, _) = error else {
          Issue.record("\(path): \(error)")
          continue
        }
        #expect(named == dir.sub("save/" + path))
      }
    }
  }
}
