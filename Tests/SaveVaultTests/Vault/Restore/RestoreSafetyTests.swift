import Foundation
import Testing

@testable import SaveVault

@Suite("Restore keeps everything it replaces", .tags(.small))
struct RestoreSafetyTests {
  func setUp(_ label: String) throws -> (TemporaryDirectory, Vault, Target, String) {
    let dir = TemporaryDirectory(label)
    let save = dir.sub("games/save")
    let vault = try Vault(context: testContext(home: dir.sub("home")))
    let target = try vault.resolve(TargetRequest(saveDirectory: save))
    return (dir, vault, target, save)
  }

  @Test("modes the umask would change (0666 files, 0777 folders) survive a restore")
  func modesSurviveUmask() throws {
    let (_, vault, target, save) = try setUp("modes")
    try writeFile(save + "/shared.sav", "a", mode: 0o666)
    try makeDirectory(save + "/open")
    chmod(save + "/open", 0o777)
    try writeFile(save + "/open/x.sav", "x", mode: 0o640)
    let before = tree(save)
    _ = try vault.backup(target, force: false)
    try writeFile(save + "/shared.sav", "b")
    let old = umask(0o022)
    defer { umask(old) }
    _ = try vault.restore(target, selection: .latest)
    #expect(tree(save) == before)
    #expect(tree(save)["open"]?.mode == 0o777)
    #expect(try vault.status(target).state == .inSync)
  }

  @Test("entries an archive cannot hold stay in the save through a restore; the replaced save is kept whole")
  func keepsUnarchivable() async throws {
    let (dir, vault, target, save) = try setUp("unarchivable")
    try writeFile(save + "/slot.sav", "one")
    _ = try vault.backup(target, force: false)
    try writeFile(dir.sub("shared/cfg"), "outside")
    try FileManager.default.createSymbolicLink(atPath: save + "/ext", withDestinationPath: dir.sub("shared"))
    try makeDirectory(save + "/sub")
    try FileManager.default.createSymbolicLink(
      atPath: save + "/sub/up", withDestinationPath: "../../../shared")
    #expect(mkfifo(save + "/ipc.pipe", 0o600) == 0)
    try writeFile(save + "/slot.sav", "two")
    let report = try vault.restore(target, selection: .latest)
    #expect(try String(contentsOfFile: save + "/slot.sav", encoding: .utf8) == "one")
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: save + "/ext") == dir.sub("shared"))
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: save + "/sub/up") == "../../../shared")
    var info = stat()
    #expect(lstat(save + "/ipc.pipe", &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    let kept = try FileManager.default.contentsOfDirectory(atPath: dir.sub("games"))
      .filter { $0.hasPrefix(Vault.keptPrefix("save")) }
    #expect(kept.isEmpty, "nothing is left beside the save: \(kept)")
    let copy = try #require(report.preRestoreCopy)
    #expect(try await fileInPreRestoreCopy(copy, "slot.sav") == "two")
    #expect(try String(contentsOfFile: dir.sub("shared/cfg"), encoding: .utf8) == "outside")
  }

  @Test("a restore to a named archive restores that one")
  func namedArchive() throws {
    let (_, vault, target, save) = try setUp("named")
    try writeFile(save + "/slot.sav", "first")
    let first = try vault.backup(target, force: false).archive
    try writeFile(save + "/slot.sav", "second")
    _ = try vault.backup(target, force: false)
    _ = try vault.restore(target, selection: .named(first))
    #expect(try String(contentsOfFile: save + "/slot.sav", encoding: .utf8) == "first")
    #expect(throws: ContainerError.self) { try vault.restore(target, selection: .named("packsave-nope.tar")) }
  }

  @Test("a save of empty folders only is empty: refused without --force")
  func emptyFoldersOnly() throws {
    let (_, vault, target, save) = try setUp("emptyfolders")
    try makeDirectory(save + "/slots/slot1")
    #expect(throws: VaultError.saveDirectoryEmpty(path: save)) { try vault.backup(target, force: false) }
    #expect(try vault.status(target).state == .cloudEmpty)
  }

  @Test("a save over the restore limits is refused at backup, so every backup can be restored")
  func limitsAtBackup() throws {
    let dir = TemporaryDirectory("limits")
    let save = dir.sub("save")
    for index in 0..<12 { try writeFile(save + "/f\(index).sav", "x") }
    let vault = try Vault(context: testContext(home: dir.sub("home")))
    var target = try vault.resolve(TargetRequest(saveDirectory: save))
    target.limits = ExtractionLimits(maxEntries: 10)
    #expect(throws: VaultError.self) { try vault.backup(target, force: false) }
    #expect(try vault.list(target).archives.isEmpty)
  }

  @Test("one folder spelled two ways is one container to the agreement")
  func canonicalContainer() throws {
    let dir = TemporaryDirectory("canonical")
    let save = dir.sub("save")
    try writeFile(save + "/a.sav", "a")
    try makeDirectory(dir.sub("cloud"))
    let vault = try Vault(context: testContext(home: dir.sub("home")))
    _ = try vault.backup(
      try vault.resolve(TargetRequest(saveDirectory: save, containerURL: dir.sub("cloud"))), force: false)
    for spelling in [dir.sub("cloud") + "/", "file://" + dir.sub("cloud"), dir.sub("cloud/./")] {
      let target = try vault.resolve(TargetRequest(saveDirectory: save, containerURL: spelling))
      #expect(try vault.backup(target, force: false).outcome == .unchanged, "\(spelling)")
    }
  }
}
