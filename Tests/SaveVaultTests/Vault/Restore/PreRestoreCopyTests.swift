import Foundation
import Testing

@testable import SaveVault

@Suite("The pre-restore copy packed while the archive is extracted", .tags(.small))
struct PreRestoreCopyTests {
  func setUp(_ label: String) throws -> (TemporaryDirectory, Vault, Target, String) {
    let dir = TemporaryDirectory(label)
    let save = dir.sub("games/save")
    // The early copy is the path of a save on another filesystem than the pre-restore folder;
    // on the same one, the replaced folder is moved there instead (PreRestoreFolderTests).
    let vault = try Vault(
      context: testContext(
        home: dir.sub("home"), environment: ["SAVEVAULT_FAILPOINTS": "restore.keep-by-moving=error"]))
    let target = try vault.resolve(TargetRequest(saveDirectory: save))
    try writeFile(save + "/slot1.sav", "first slot")
    try writeFile(save + "/deep/slot2.sav", "second slot", mode: 0o640)
    return (dir, vault, target, save)
  }

  /// What an archive holds, as GNU tar extracts it (SaveVault's own folder left out).
  func unpacked(_ archive: String, in dir: TemporaryDirectory) async throws -> [String: String] {
    let folder = dir.sub("unpacked-" + (archive as NSString).lastPathComponent)
    try makeDirectory(folder)
    let tar = try #require(which("tar"), "tar is needed")
    let result = try await runProgramAwaiting(tar, ["-xf", archive, "-C", folder])
    #expect(result.code == 0, "tar: \(result.stderr)")
    return contentTree(folder).filter { !$0.key.hasPrefix(".savevault") }
  }

  @Test("when the replaced folder still matches the copy, the copy is kept and the folder removed")
  func keptWhenUnchanged() async throws {
    let (dir, vault, target, save) = try setUp("early-kept")
    let before = contentTree(save)
    let scan = try #require(try SaveScan.scan(save))
    let early = try #require(vault.startPreRestoreCopy(of: scan, target: target))
    let name = try #require(early.wait(), "the copy was not made")
    let kept = try #require(vault.keepReplaced(save, target: target, early: early))
    #expect((kept as NSString).lastPathComponent == name)
    #expect(!FileManager.default.fileExists(atPath: save))
    #expect(try await unpacked(kept, in: dir) == before)
  }

  @Test(
    "a rewrite with the same size and the same time after the copy: the folder's bytes are kept, not the copy's"
  )
  func sameMetadataNewBytes() async throws {
    let (dir, vault, target, save) = try setUp("early-same-metadata")
    try writeFile(save + "/slot1.sav", "BBBB", modifiedNs: 1_700_000_000_000_000_000)
    let scan = try #require(try SaveScan.scan(save))
    let early = try #require(vault.startPreRestoreCopy(of: scan, target: target))
    let name = try #require(early.wait(), "the copy was not made")
    // What a tool restoring mtimes, or a coarse clock, does: new bytes, same size and time.
    try writeFile(save + "/slot1.sav", "CCCC", modifiedNs: 1_700_000_000_000_000_000)
    let after = contentTree(save)
    let kept = try #require(vault.keepReplaced(save, target: target, early: early))
    #expect((kept as NSString).lastPathComponent != name, "the stale copy was taken for the folder")
    #expect(try await unpacked(kept, in: dir) == after, "the bytes written last are not kept")
  }

  @Test("when the folder changed after the copy was packed, the folder is packed again and nothing is lost")
  func repackedWhenChanged() async throws {
    let (dir, vault, target, save) = try setUp("early-changed")
    let scan = try #require(try SaveScan.scan(save))
    let early = try #require(vault.startPreRestoreCopy(of: scan, target: target))
    let name = try #require(early.wait(), "the copy was not made")
    try writeFile(save + "/slot1.sav", "written after the copy")
    let after = contentTree(save)
    let kept = try #require(vault.keepReplaced(save, target: target, early: early))
    #expect((kept as NSString).lastPathComponent != name)
    #expect(try await unpacked(kept, in: dir) == after)
    let folder = (kept as NSString).deletingLastPathComponent
    #expect(FileManager.default.fileExists(atPath: folder + "/" + name), "the earlier state was deleted")
  }

  @Test("a restore that replaces nothing deletes its copy: the save it holds is still in place")
  func discardedWhenNotSwapped() throws {
    let (dir, vault, target, save) = try setUp("early-discarded")
    defer { withExtendedLifetime(dir) {} }
    let scan = try #require(try SaveScan.scan(save))
    let early = try #require(vault.startPreRestoreCopy(of: scan, target: target))
    let name = try #require(early.wait(), "the copy was not made")
    vault.discard(early, target: target)
    #expect(
      !FileManager.default.fileExists(atPath: vault.preRestoreStore().root + "/" + target.game + "/" + name))
    #expect(
      !FileManager.default.fileExists(atPath: vault.preRestoreStore().root), "a folder made for it stayed")
    #expect(FileManager.default.fileExists(atPath: save + "/slot1.sav"))
  }

  @Test("a refused archive leaves no pre-restore copy behind, and a real restore leaves exactly one")
  func restoreLeavesOneCopy() async throws {
    let (dir, vault, target, save) = try setUp("early-restore")
    _ = try vault.backup(target, force: false)
    let container = try vault.makeContainer(target, vault.paths) as? FolderContainer
    let folder = try #require(container).root + "/" + target.game
    let good = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first)
    try writeFile(save + "/slot1.sav", "changed locally")
    let edited = contentTree(save)
    // A corrupt newer archive: refused, and the copy made meanwhile is gone.
    try writeFile(folder + "/packsave-29991231T000000.000Z-other.tar", "not a tar at all")
    #expect(throws: ArchiveError.self) { try vault.restore(target, selection: .latest) }
    #expect(!FileManager.default.fileExists(atPath: vault.preRestoreStore().root), "a copy of nothing")
    #expect(contentTree(save) == edited)
    let report = try vault.restore(target, selection: .named(good))
    let copies = try vault.preRestoreStore().list(game: target.game)
    #expect(copies.count == 1)
    let kept = try #require(report.preRestoreCopy)
    #expect(try await unpacked(kept, in: dir) == edited)
  }
}
