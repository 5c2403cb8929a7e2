import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// A restore keeps the save it replaces by moving the folder itself into the pre-restore
/// folder when both are on one filesystem (no byte read or written), and packs it into a
/// `.tar` when they are not.
@Suite("The replaced save kept as a folder copy", .tags(.large))
struct PreRestoreFolderTests {
  func setUp(_ label: String, save: String? = nil) throws -> (TemporaryDirectory, Vault, Target, String) {
    let dir = TemporaryDirectory(label)
    let save = save ?? dir.sub("games/save")
    let vault = try Vault(context: testContext(home: dir.sub("home")))
    let target = try vault.resolve(TargetRequest(saveDirectory: save))
    try writeFile(save + "/slot1.sav", "first slot", modifiedNs: 1_700_000_000_123_456_789)
    try writeFile(save + "/deep/slot2.sav", "second slot", mode: 0o640)
    try FileManager.default.createSymbolicLink(atPath: save + "/current", withDestinationPath: "slot1.sav")
    return (dir, vault, target, save)
  }

  func preRestoreFolder(_ dir: TemporaryDirectory) -> String {
    dir.sub("home") + "/.local/share/savevault/pre-restore/save"
  }

  @Test("the replaced folder is moved whole: same bytes, modes, times and links; no archive is made")
  func movedWhole() throws {
    let (dir, vault, target, save) = try setUp("folder-moved")
    _ = try vault.backup(target, force: false)
    try writeFile(save + "/slot1.sav", "edited after the backup")
    let replaced = tree(save)
    var before = stat()
    #expect(stat(save + "/deep/slot2.sav", &before) == 0)

    let report = try vault.restore(target, selection: .latest)
    let copy = try #require(report.preRestoreCopy)
    #expect((copy as NSString).deletingLastPathComponent == preRestoreFolder(dir))
    #expect(tree(copy) == replaced, "the folder copy differs from the save it replaced")
    var after = stat()
    #expect(stat(copy + "/deep/slot2.sav", &after) == 0)
    #expect(after.st_ino == before.st_ino, "the file was copied, not moved")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: preRestoreFolder(dir)) == [
        (copy as NSString).lastPathComponent
      ])
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: dir.sub("games")) == ["save"],
      "left beside the save")
    #expect(try String(contentsOfFile: save + "/slot1.sav", encoding: .utf8) == "first slot")
  }

  @Test("copies are named in order whatever the clock; status counts folders and archives alike")
  func namedInOrder() throws {
    let (dir, vault, target, save) = try setUp("folder-order")
    _ = try vault.backup(target, force: false)
    // A packed copy from the future (a clock that was ahead): the next copy is named after it.
    let future = preRestoreFolder(dir) + "/packsave-29990101T000000.000Z-testbox.tar"
    try writeFile(future, "an older-format copy")
    try writeFile(save + "/slot1.sav", "edited")
    let report = try vault.restore(target, selection: .latest)
    let name = try #require(report.preRestoreCopy.map { ($0 as NSString).lastPathComponent })
    #expect(name == "packsave-29990101T000000.001Z-testbox")
    let status = try vault.status(target)
    #expect(status.preRestore.count == 2)
    #expect(status.preRestore.latest == name)
  }

  @Test("undo puts a folder copy back exactly and keeps it; undo again returns the restored save")
  func undoFromFolder() throws {
    let (dir, vault, target, save) = try setUp("folder-undo")
    _ = try vault.backup(target, force: false)
    let restored = tree(save)
    try writeFile(save + "/slot1.sav", "local progress")
    try writeFile(save + "/new/slot3.sav", "a new slot", mode: 0o600)
    let local = tree(save)
    let report = try vault.restore(target, selection: .latest)
    let copy = try #require(report.preRestoreCopy)

    let undo = try vault.undoRestore(target)
    #expect(undo.restoredCopy == copy)
    #expect(tree(save) == local, "undo did not put the folder copy back exactly")
    #expect(tree(copy) == local, "the folder copy changed")
    let second = try #require(undo.preRestoreCopy, "undo kept nothing of the save it replaced")
    #expect(tree(second) == restored)
    #expect(!FileManager.default.fileExists(atPath: dir.sub("home") + "/.local/share/savevault/undo-scratch"))

    _ = try vault.undoRestore(target)
    #expect(tree(save) == restored, "a second undo did not redo")
  }

  @Test("a save on another filesystem than the pre-restore folder is packed into a .tar copy")
  func otherFilesystemPacks() async throws {
    let disk = try await DiskFullTests.SmallDisk(64, label: "folder-otherfs")
    let (dir, vault, target, save) = try setUp("folder-otherfs-home", save: disk.path + "/save")
    _ = dir
    _ = try vault.backup(target, force: false)
    try writeFile(save + "/slot1.sav", "edited on the other disk")
    let replaced = contentTree(save)
    let report = try vault.restore(target, selection: .latest)
    let copy = try #require(report.preRestoreCopy)
    #expect(copy.hasSuffix(".tar"), "not packed: \(copy)")
    let unpacked = disk.dir.sub("unpacked")
    try makeDirectory(unpacked)
    let tar = try await runProgramAwaiting(try #require(which("tar")), ["-xf", copy, "-C", unpacked])
    #expect(tar.code == 0, "tar: \(tar.stderr)")
    #expect(contentTree(unpacked).filter { !$0.key.hasPrefix(".savevault") } == replaced)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: disk.path) == ["save"], "left beside the save")
  }
}
