import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// A restored tree is made durable before it is renamed into place: with one flush of its
/// filesystem where there is one, else file by file and folder by folder, and a failure says
/// which entry could not be flushed.
@Suite("Flushing a restored tree", .tags(.small))
struct TreeFlushTests {
  @Test("one flush of the filesystem of a folder that exists")
  func wholeFilesystem() throws {
    let dir = TemporaryDirectory("flush", durable: true)
    try writeFile(dir.sub("a/b/save.dat"), "data")
    #if os(Linux)
      #expect(Platform.syncFilesystem(containing: dir.path))
    #else
      #expect(!Platform.syncFilesystem(containing: dir.path), "no syncfs: each entry is flushed")
    #endif
    #expect(!Platform.syncFilesystem(containing: dir.sub("missing")))
  }

  @Test("file by file and folder by folder, naming what cannot be flushed")
  func eachEntry() throws {
    let dir = TemporaryDirectory("flush", durable: true)
    try writeFile(dir.sub("a/b/save.dat"), "data")
    try writeFile(dir.sub("top.dat"), "data")
    try Platform.syncEach(dir.path, files: ["a/b/save.dat", "top.dat"], folders: ["a", "a/b"])
    #expect(throws: SystemError(operation: "open", path: dir.sub("gone.dat"), code: ENOENT)) {
      try Platform.syncEach(dir.path, files: ["top.dat", "gone.dat"], folders: [])
    }
    #expect(throws: SystemError(operation: "open", path: dir.sub("a/c"), code: ENOENT)) {
      try Platform.syncEach(dir.path, files: [], folders: ["a", "a/c"])
    }
  }
}
