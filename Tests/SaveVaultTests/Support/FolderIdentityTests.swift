import Foundation
import Testing

@testable import SaveVault

/// Which folder a path leads to: a folder deleted and made again is another one.
@Suite("Folder identity", .tags(.small))
struct FolderIdentityTests {
  @Test("another birth time, or with none known another inode, is another folder; the same is not")
  func replaced() {
    let then = FolderIdentity(path: "/x", inode: 7, bornNs: 100)
    #expect(!then.isReplaced(by: FolderIdentity(path: "/x", inode: 7, bornNs: 100)))
    #expect(then.isReplaced(by: FolderIdentity(path: "/x", inode: 7, bornNs: 200)))
    // A filesystem that numbers folders anew but keeps birth times: the same folder.
    #expect(!then.isReplaced(by: FolderIdentity(path: "/x", inode: 8, bornNs: 100)))
    let unborn = FolderIdentity(path: "/x", inode: 7, bornNs: nil)
    #expect(unborn.isReplaced(by: FolderIdentity(path: "/x", inode: 8, bornNs: nil)))
    #expect(!unborn.isReplaced(by: FolderIdentity(path: "/x", inode: 7, bornNs: 5)))
  }

  @Test("a folder deleted and made again at its path is found replaced; one left alone, or gone, is not")
  func madeAgain() throws {
    let dir = TemporaryDirectory("folder-identity")
    let save = dir.sub("prefix/drive/Saves")
    try makeDirectory(save)
    let recorded = FolderIdentity.enclosing(save)
    #expect(recorded.contains { $0.path.hasSuffix("/prefix/drive") }, "\(recorded.map(\.path))")
    #expect(FolderIdentity.firstReplaced(recorded) == nil)
    try FileManager.default.removeItem(atPath: dir.sub("prefix"))
    #expect(FolderIdentity.firstReplaced(recorded) == nil, "a folder gone is a missing save, not a new one")
    try makeDirectory(save)
    #expect(FolderIdentity.firstReplaced(recorded)?.path.hasSuffix("/prefix/drive") == true)
  }
}
