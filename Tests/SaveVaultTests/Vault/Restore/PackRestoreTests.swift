import Foundation
import Testing

@testable import SaveVault

/// A save directory with everything a round trip must keep.
func makeDemoSave(at root: String) throws {
  try writeFile(root + "/slot1.sav", "level=7\nlives=3\n", mode: 0o644, modifiedNs: 1_795_968_071_123_456_789)
  try writeFile(
    root + "/Ünïcødé folder/my save 2.dat", Data((0..<4096).map { UInt8($0 % 251) }), mode: 0o600,
    modifiedNs: 1_700_000_000_987_654_321)
  try writeFile(root + "/empty.txt", "", modifiedNs: 1_600_000_000_000_000_000)
  try writeFile(root + "/tool.sh", "#!/bin/sh\n", mode: 0o755, modifiedNs: 1_795_000_000_000_000_001)
  try makeDirectory(root + "/empty folder")
  var deep = root
  for level in 0..<40 { deep += "/d\(level)" }
  try writeFile(
    deep + "/deep.bin", Data(repeating: 0xff, count: 100_000), modifiedNs: 1_795_968_000_000_000_000)
  try FileManager.default.createSymbolicLink(atPath: root + "/latest.sav", withDestinationPath: "slot1.sav")
}

@Suite("Packing and restoring", .tags(.small))
struct PackRestoreTests {
  @Test("a save round-trips byte for byte, with modes and nanosecond mtimes")
  func roundTrip() throws {
    let dir = TemporaryDirectory("roundtrip")
    let save = dir.sub("save")
    try makeDemoSave(at: save)
    let before = tree(save)
    let vault = try Vault(context: testContext(home: dir.sub("home")))
    let target = try vault.resolve(TargetRequest(saveDirectory: save))
    let backup = try vault.backup(target, force: false)
    #expect(backup.outcome == .uploaded)
    #expect(backup.files == 5)

    try writeFile(save + "/slot1.sav", "level=1\n")
    try FileManager.default.removeItem(atPath: save + "/empty folder")
    let restored = try vault.restore(target, selection: .latest)
    #expect(restored.verified)
    #expect(tree(save) == before)
    let copy = try #require(restored.preRestoreCopy)
    #expect(FileManager.default.fileExists(atPath: copy))
    #expect(try vault.status(target).state == .inSync)
  }

  @Test("GNU tar and Python's tarfile read the archive and get the save back")
  func plainTools() async throws {
    let dir = TemporaryDirectory("plaintools")
    let save = dir.sub("save")
    try makeDemoSave(at: save)
    let vault = try Vault(context: testContext(home: dir.sub("home")))
    let target = try vault.resolve(TargetRequest(saveDirectory: save))
    let report = try vault.backup(target, force: false)
    let archive = vault.paths.defaultContainer + "/save/" + report.archive

    let gnu = dir.sub("gnu")
    try makeDirectory(gnu)
    let tar = try await runProgramAwaiting("/usr/bin/tar", ["-xf", archive, "-C", gnu])
    #expect(tar.code == 0, "\(tar.stderr)")
    #expect(tree(gnu) == tree(save))

    let python = try #require(which("python3"))
    let script = """
      import tarfile, sys, hashlib, json
      with tarfile.open(sys.argv[1]) as t:
          assert t.pax_headers is not None
          out = {}
          for m in t.getmembers():
              if m.isfile():
                  out[m.name] = [hashlib.sha256(t.extractfile(m).read()).hexdigest(), m.mode, m.mtime]
              else:
                  out[m.name] = ["dir" if m.isdir() else "link:" + m.linkname, m.mode, m.mtime]
          print(json.dumps(out))
      """
    let result = try await runProgramAwaiting(python, ["-c", script, archive])
    #expect(result.code == 0, "\(result.stderr)")
    let members = try #require(
      JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: [Any]])
    let slot = try #require(members["slot1.sav"])
    #expect(slot[0] as? String == SHA256.hex(of: "level=7\nlives=3\n"))
    #expect(slot[1] as? Int == 0o644)
    #expect((slot[2] as? Double).map { abs($0 - 1_795_968_071.123456789) < 1e-6 } == true)
    #expect(members["latest.sav"]?[0] as? String == "link:slot1.sav")
    #expect(members["empty folder"]?[0] as? String == "dir")
    #expect(members["Ünïcødé folder/my save 2.dat"]?[1] as? Int == 0o600)
    #expect(members[".savevault/manifest.json"] != nil)
  }

  @Test("symlinks leading outside and special files are skipped, never followed")
  func skipsOutside() throws {
    let dir = TemporaryDirectory("skips")
    let save = dir.sub("save")
    try writeFile(save + "/a.sav", "a")
    try writeFile(dir.sub("secret"), "secret")
    try FileManager.default.createSymbolicLink(atPath: save + "/out", withDestinationPath: dir.sub("secret"))
    try FileManager.default.createSymbolicLink(atPath: save + "/up", withDestinationPath: "../secret")
    #expect(mkfifo(save + "/pipe", 0o644) == 0)
    let scan = try #require(try SaveScan.scan(save))
    #expect(scan.entries.map(\.path) == ["a.sav"])
    #expect(Set(scan.skipped.map(\.path)) == ["out", "up", "pipe"])
  }

  @Test("a save directory reached through a symlink is restored in place, and the link stays")
  func symlinkedSaveDirectory() throws {
    let dir = TemporaryDirectory("linked")
    let real = dir.sub("sdcard/Game Saves")
    try writeFile(real + "/slot.sav", "one")
    let link = dir.sub("link")
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
    let vault = try Vault(context: testContext(home: dir.sub("home")))
    let target = try vault.resolve(TargetRequest(game: "linked", saveDirectory: link))
    _ = try vault.backup(target, force: false)
    try writeFile(real + "/slot.sav", "two")
    _ = try vault.restore(target, selection: .latest)
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == real)
    #expect(try String(contentsOfFile: real + "/slot.sav", encoding: .utf8) == "one")
  }

  @Test("a rewritten file with identical bytes is not a change")
  func identicalRewrite() throws {
    let dir = TemporaryDirectory("rewrite")
    let save = dir.sub("save")
    try writeFile(save + "/a.sav", "same", modifiedNs: 1_000_000_000_000_000_000)
    let vault = try Vault(context: testContext(home: dir.sub("home")))
    let target = try vault.resolve(TargetRequest(saveDirectory: save))
    _ = try vault.backup(target, force: false)
    try writeFile(save + "/a.sav", "same", modifiedNs: 1_100_000_000_000_000_000)
    #expect(try vault.status(target).state == .inSync)
    #expect(try vault.backup(target, force: false).outcome == .unchanged)
    try writeFile(save + "/a.sav", "diff")
    #expect(try vault.status(target).state == .localChanged)
  }

  @Test("a new device with the same content is in sync; with other content it is a conflict")
  func newDevice() throws {
    let dir = TemporaryDirectory("newdevice")
    let container = dir.sub("cloud")
    try makeDirectory(container)
    let first = try Vault(context: testContext(home: dir.sub("home1")))
    let save1 = dir.sub("one/save")
    try writeFile(save1 + "/a.sav", "progress")
    _ = try first.backup(
      try first.resolve(TargetRequest(saveDirectory: save1, containerURL: container)), force: false)

    let second = try Vault(
      context: testContext(home: dir.sub("home2"), environment: ["SAVEVAULT_DEVICE": "other"]))
    let save2 = dir.sub("two/save")
    try writeFile(save2 + "/a.sav", "progress")
    let target2 = try second.resolve(TargetRequest(saveDirectory: save2, containerURL: container))
    #expect(try second.status(target2).state == .inSync)
    try writeFile(save2 + "/a.sav", "other progress")
    #expect(try second.status(target2).state == .conflict)
    try FileManager.default.removeItem(atPath: save2)
    #expect(try second.status(target2).state == .localMissing)
  }

  @Test("the other device's new backup is cloud-changed; both changing is a conflict")
  func twoDevices() throws {
    let dir = TemporaryDirectory("twodevices")
    let container = dir.sub("cloud")
    try makeDirectory(container)
    let deck = try Vault(
      context: testContext(home: dir.sub("deck"), environment: ["SAVEVAULT_DEVICE": "deck"]))
    let desk = try Vault(
      context: testContext(
        home: dir.sub("desk"), startMs: 1_795_969_000_000, environment: ["SAVEVAULT_DEVICE": "desk"]))
    let deckSave = dir.sub("deck-save/game")
    let deskSave = dir.sub("desk-save/game")
    try writeFile(deckSave + "/a.sav", "v1")
    let deckTarget = try deck.resolve(TargetRequest(saveDirectory: deckSave, containerURL: container))
    let deskTarget = try desk.resolve(TargetRequest(saveDirectory: deskSave, containerURL: container))
    _ = try deck.backup(deckTarget, force: false)
    #expect(try desk.status(deskTarget).state == .localMissing)
    _ = try desk.restore(deskTarget, selection: .latest)
    #expect(try desk.status(deskTarget).state == .inSync)
    try writeFile(deskSave + "/a.sav", "v2 from desk")
    _ = try desk.backup(deskTarget, force: false)
    #expect(try deck.status(deckTarget).state == .cloudChanged)
    try writeFile(deckSave + "/a.sav", "v2 from deck")
    #expect(try deck.status(deckTarget).state == .conflict)
  }

  @Test("a restore killed between its two renames is rolled back by the next run; staging is removed")
  func interruptedRestore() throws {
    let dir = TemporaryDirectory("interrupted")
    let save = dir.sub("games/save")
    try writeFile(save + "/a.sav", "mine")
    let before = tree(save)
    let vault = try Vault(context: testContext(home: dir.sub("home")))
    let target = try vault.resolve(TargetRequest(saveDirectory: save))
    _ = try vault.backup(target, force: false)
    // What a SIGKILL after "rename(save, aside)" leaves: no save, an aside folder, a staging folder.
    let aside = dir.sub("games/" + Vault.asidePrefix("save") + "k1ll3d")
    let staging = dir.sub("games/" + Vault.stagingPrefix("save") + "k1ll3d")
    #expect(rename(save, aside) == 0)
    try writeFile(staging + "/a.sav", "half")
    // Another game's leftovers in the same folder are not touched.
    let otherStaging = dir.sub("games/" + Vault.stagingPrefix("save-2") + "busy")
    try makeDirectory(otherStaging)

    _ = try vault.backup(target, force: false)
    #expect(tree(save) == before)
    #expect(!FileManager.default.fileExists(atPath: aside))
    #expect(!FileManager.default.fileExists(atPath: staging))
    #expect(FileManager.default.fileExists(atPath: otherStaging))
  }
}
