import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

// End-to-end tests of the built `savevault` binary: every test gets its own temporary
// directory, a private HOME and an exact environment, and talks to the binary only through
// its arguments, environment, exit code, stdout, stderr and the files it leaves behind.

// MARK: - Tests

@Suite("CLIEndToEnd: the built savevault binary", .tags(.medium))
struct CLIEndToEndTests {
  // 1
  @Test("round trip: backup, status, edit, restore, pre-restore copy")
  func roundTrip() async throws {
    let box = try Sandbox("roundtrip", device: "testbox")
    let save = box.path("saves/MyGame")
    let edited = "Slot 1/Ünïcødé save.dat"
    try writeFile(save + "/" + edited, "level 3, 1200 coins, ✓\n")
    try writeFile(save + "/Slot 1/deep/nested/level.bin", Data((0..<1024).map { UInt8($0 % 256) }))
    try writeFile(save + "/empty.txt", "")
    try makeDirectory(save + "/Empty Folder")
    try writeFile(save + "/config/secret.cfg", "token=abc\n", mode: 0o600)
    try writeFile(save + "/tools/run.sh", "#!/bin/sh\necho hi\n", mode: 0o755)
    let firstContent = "level 3, 1200 coins, ✓\n"
    let totalBytes: Int64 = Int64(firstContent.utf8.count) + 1024 + 10 + 18

    let backup = try await box.runAwaiting(["backup", "--save-dir", save, "--json"])
    #expect(backup.code == 0, "backup failed: \(backup.stderr)")
    let backupJSON = try jsonObject(backup.stdout)
    #expect(backupJSON["outcome"] as? String == "uploaded")
    let archive = try #require(backupJSON["archive"] as? String)
    #expect(tarArchiveNames(in: box.defaultContainer + "/MyGame") == [archive])
    let afterBackup = tree(save)
    #expect(afterBackup["Empty Folder"]?.kind == "dir")
    #expect(afterBackup["config/secret.cfg"]?.mode == 0o600)
    #expect(afterBackup["tools/run.sh"]?.mode == 0o755)

    let status = try await box.runAwaiting(["status", "--save-dir", save, "--json"])
    #expect(status.code == 0, "status failed: \(status.stderr)")
    let report = try jsonObject(status.stdout)
    for key in [
      "game", "state", "local.modifiedMs", "local.files", "local.bytes", "cloud.latest", "cloud.modifiedMs",
      "cloud.count",
    ] {
      #expect(lookup(report, key) != nil, "status --json lacks '\(key)': \(status.stdout)")
    }
    #expect(report["game"] as? String == "MyGame")
    #expect(report["state"] as? String == "in-sync")
    #expect(integer(lookup(report, "local.files")) == 5)
    #expect(integer(lookup(report, "local.bytes")) == totalBytes)
    #expect(integer(lookup(report, "local.modifiedMs")) != nil)
    #expect(lookup(report, "cloud.latest") as? String == archive)
    #expect(integer(lookup(report, "cloud.modifiedMs")) != nil)
    #expect(integer(lookup(report, "cloud.count")) == 1)

    let editedContent = "level 4, 9999 coins, EDITED after the backup\n"
    try writeFile(save + "/" + edited, editedContent)
    let changed = try await box.runAwaiting(["status", "--save-dir", save, "--json"])
    #expect(changed.code == 0, "status failed: \(changed.stderr)")
    #expect(try jsonObject(changed.stdout)["state"] as? String == "local-changed")

    let restore = try await box.runAwaiting(["restore", "--latest", "--save-dir", save, "--json"])
    #expect(restore.code == 0, "restore failed: \(restore.stderr)")
    let restoreJSON = try jsonObject(restore.stdout)
    #expect(restoreJSON["archive"] as? String == archive)
    #expect(restoreJSON["verified"] as? Bool == true)

    let afterRestore = tree(save)
    #expect(afterRestore == afterBackup)
    for key in Set(afterBackup.keys).union(afterRestore.keys).sorted()
    where afterBackup[key] != afterRestore[key] {
      Issue.record(
        "'\(key)' after restore: \(afterRestore[key].map(String.init(describing:)) ?? "missing"), after backup: \(afterBackup[key].map(String.init(describing:)) ?? "missing")"
      )
    }

    let copy = try #require(
      restoreJSON["preRestoreCopy"] as? String, "no preRestoreCopy in \(restore.stdout)")
    #expect(FileManager.default.fileExists(atPath: copy))
    #expect(copy.hasPrefix(box.home + "/.local/share/savevault/"))
    #expect(!copy.hasPrefix(box.defaultContainer + "/"), "the pre-restore copy must never be a backup")
    // On one filesystem the replaced folder itself is the copy, moved there as it was.
    #expect(FileManager.default.contents(atPath: copy + "/" + edited) == Data(editedContent.utf8))
    let copies = try jsonObject(try await box.runAwaiting(["status", "--save-dir", save, "--json"]).stdout)
    let preRestore = try #require(copies["preRestore"] as? [String: Any])
    #expect(preRestore["count"] as? Int == 1)
    #expect(preRestore["latest"] as? String == (copy as NSString).lastPathComponent)

    let after = try await box.runAwaiting(["status", "--save-dir", save, "--json"])
    #expect(try jsonObject(after.stdout)["state"] as? String == "in-sync")
  }

  // 2
  @Test("an unchanged backup uploads nothing; --force does")
  func unchangedBackupUploadsNothing() async throws {
    let box = try Sandbox("unchanged", device: "testbox")
    let save = box.path("saves/hades")
    try writeFile(save + "/slot.sav", "run 12")
    let folder = box.defaultContainer + "/hades"

    let first = try await box.runAwaiting(["backup", "--save-dir", save])
    #expect(first.code == 0, "backup failed: \(first.stderr)")
    let second = try await box.runAwaiting(["backup", "--save-dir", save])
    #expect(second.code == 0, "backup failed: \(second.stderr)")
    #expect(second.stdout.contains("unchanged"), "stdout: \(second.stdout)")
    let third = try await box.runAwaiting(["backup", "--save-dir", save, "--json"])
    #expect(third.code == 0)
    #expect(try jsonObject(third.stdout)["outcome"] as? String == "unchanged")
    #expect(tarArchiveNames(in: folder).count == 1, "\(tarArchiveNames(in: folder))")

    let forced = try await box.runAwaiting(["backup", "--save-dir", save, "--force", "--json"])
    #expect(forced.code == 0, "backup --force failed: \(forced.stderr)")
    #expect(try jsonObject(forced.stdout)["outcome"] as? String == "uploaded")
    #expect(tarArchiveNames(in: folder).count == 2, "\(tarArchiveNames(in: folder))")
  }

  // 3
  @Test("rewriting identical bytes is still in sync")
  func identicalRewriteIsInSync() async throws {
    let box = try Sandbox("rewrite", device: "testbox")
    let save = box.path("saves/stardew")
    try writeFile(save + "/farm.xml", "<farm>cows: 3</farm>")
    try writeFile(save + "/other.dat", "x")
    let backup = try await box.runAwaiting(["backup", "--save-dir", save])
    #expect(backup.code == 0, "backup failed: \(backup.stderr)")

    // The game writes the same bytes again: new mtime, same content.
    try writeFile(save + "/farm.xml", "<farm>cows: 3</farm>", modifiedNs: 1_900_000_000_123_456_789)
    let status = try await box.runAwaiting(["status", "--save-dir", save, "--json"])
    #expect(status.code == 0, "status failed: \(status.stderr)")
    #expect(try jsonObject(status.stdout)["state"] as? String == "in-sync")
    let again = try await box.runAwaiting(["backup", "--save-dir", save, "--json"])
    #expect(again.code == 0, "backup failed: \(again.stderr)")
    #expect(try jsonObject(again.stdout)["outcome"] as? String == "unchanged")
    #expect(tarArchiveNames(in: box.defaultContainer + "/stardew").count == 1)
  }

  // 4
  @Test(
    "a missing container folder is 'unavailable' (exit 4), never created",
    arguments: ["backup", "status", "list", "restore", "prune"])
  func missingContainer(_ command: String) async throws {
    let extra: [String] = command == "restore" ? ["--latest"] : command == "prune" ? ["--keep", "1"] : []
    let box = try Sandbox("nocontainer", device: "testbox")
    let save = box.path("saves/celeste")
    try writeFile(save + "/0.celeste", "deaths: 4000")
    let missing = box.path("does-not-exist")
    let result = try await box.runAwaiting([command, "--save-dir", save, "--container", missing] + extra)
    #expect(result.code == 4, "\(command): exit \(result.code), stderr: \(result.stderr)")
    #expect(result.stderr.contains(missing), "stderr does not name the folder: \(result.stderr)")
    #expect(!exists(missing), "\(command) created the missing container folder")
  }

  // 5
  @Test("a missing or empty save directory is refused; --force allows an empty one")
  func missingOrEmptySaveDirectory() async throws {
    let box = try Sandbox("emptysave", device: "testbox")
    let missing = box.path("saves/ghost")
    let gone = try await box.runAwaiting(["backup", "--save-dir", missing])
    #expect(gone.code == 1, "exit \(gone.code), stderr: \(gone.stderr)")
    #expect(gone.stderr.contains(missing) && gone.stderr.contains("does not exist"), "stderr: \(gone.stderr)")
    #expect(tarArchiveNames(in: box.defaultContainer + "/ghost").isEmpty)

    let empty = box.path("saves/blank")
    try makeDirectory(empty)
    let refused = try await box.runAwaiting(["backup", "--save-dir", empty])
    #expect(refused.code == 1, "exit \(refused.code), stderr: \(refused.stderr)")
    #expect(refused.stderr.contains("empty"), "stderr: \(refused.stderr)")
    #expect(tarArchiveNames(in: box.defaultContainer + "/blank").isEmpty, "an empty backup was uploaded")

    let forced = try await box.runAwaiting(["backup", "--save-dir", empty, "--force"])
    #expect(forced.code == 0, "backup --force of an empty dir: exit \(forced.code), stderr: \(forced.stderr)")
    #expect(tarArchiveNames(in: box.defaultContainer + "/blank").count == 1)
  }

  // 6
  @Test("a hostile archive is refused whole (exit 5), the save untouched", arguments: HostileArchive.allCases)
  func hostileArchive(_ hostile: HostileArchive) async throws {
    let box = try Sandbox("hostile", device: "testbox")
    let saves = box.path("saves")
    let save = saves + "/game"
    let precious = "precious-save-content-0123456789-unique"
    try writeFile(save + "/slot1.sav", precious)
    try writeFile(save + "/sub/options.ini", "volume=7\n", mode: 0o600)
    try makeDirectory(save + "/empty")
    let backup = try await box.runAwaiting(["backup", "--save-dir", save])
    try #require(backup.code == 0, "backup failed: \(backup.stderr)")
    let folder = box.defaultContainer + "/game"
    let real = try #require(tarArchiveNames(in: folder).first)
    let evil = folder + "/packsave-20991231T235959.999Z-evil.tar"

    let token = "savevault-e2e-\(UUID().uuidString)"
    var mustNotExist: [String] = []
    let absoluteTarget = "/tmp/" + token
    defer { try? FileManager.default.removeItem(atPath: absoluteTarget) }
    let outsideDirectory = box.path("outside-dir")
    try makeDirectory(outsideDirectory)
    let outsideFile = box.path("outside-file")
    try writeFile(outsideFile, "outside, must stay as it is\n")

    func buildWithPython(_ argument: String = "") async throws {
      let made = try await runProgramAwaiting(
        try python3(), [Self.hostileTarScript, hostile.rawValue, evil, argument])
      try #require(made.code == 0, "python3 could not build the archive: \(made.stderr)")
    }
    switch hostile {
    case .dotDotEscape:
      try await buildWithPython(token)
      mustNotExist = [saves + "/" + token, box.path(token), save + "/" + token]
    case .absolutePath:
      try await buildWithPython(absoluteTarget)
      mustNotExist = [absoluteTarget, save + absoluteTarget]
    case .tmpDotDot:
      try await buildWithPython(token)
      mustNotExist = [saves + "/" + token, box.path(token), save + "/" + token]
    case .symlinkAbsoluteThenFile:
      try await buildWithPython(outsideDirectory)
      mustNotExist = [outsideDirectory + "/pwned"]
    case .symlinkEscaping:
      try await buildWithPython()
      mustNotExist = [box.path("outside")]
    case .characterDevice, .fifo, .fileThenFolder, .symlinkChainEscaping, .emptySymlinkTarget,
      .hugeDeclaredSize, .tooDeep, .blockDevice, .hardlinkThroughSymlink, .tooManyEntries,
      .sparseMapOverlapping, .sparseMapPastEnd:
      try await buildWithPython()
    case .doubleSlashAbsolute:
      try await buildWithPython(absoluteTarget)
      mustNotExist = [absoluteTarget]
    case .hardlinkOutsideWithData:
      try await buildWithPython(outsideFile)
    case .directoryThenSymlink:
      try await buildWithPython(outsideDirectory)
    case .truncated:
      let data = try #require(FileManager.default.contents(atPath: folder + "/" + real))
      try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: evil))
    case .flippedByte:
      var data = try #require(FileManager.default.contents(atPath: folder + "/" + real))
      let range = try #require(
        data.range(of: Data(precious.utf8)), "the file's content is not in the archive")
      data[range.lowerBound + 5] ^= 0x01
      try data.write(to: URL(fileURLWithPath: evil))
    case .flippedMtimeDigit:
      // The pax record "mtime=…" in slot1.sav's header, one digit changed: same length, other time.
      var data = try #require(FileManager.default.contents(atPath: folder + "/" + real))
      let content = try #require(data.range(of: Data(precious.utf8)))
      let record = try #require(
        data.range(of: Data("mtime=".utf8), options: .backwards, in: data.startIndex..<content.lowerBound))
      data[record.upperBound] =
        data[record.upperBound] == UInt8(ascii: "1") ? UInt8(ascii: "2") : UInt8(ascii: "1")
      try data.write(to: URL(fileURLWithPath: evil))
    case .editedManifestTotals:
      var data = try #require(FileManager.default.contents(atPath: folder + "/" + real))
      let totals = try #require(data.range(of: Data("\"files\":2".utf8)), "no file count in the manifest")
      data.replaceSubrange(totals, with: Data("\"files\":3".utf8))
      try data.write(to: URL(fileURLWithPath: evil))
    }
    #expect(tarArchiveNames(in: folder) == [real, (evil as NSString).lastPathComponent])

    let before = tree(save)
    let result = try await box.runAwaiting(["restore", "--latest", "--save-dir", save])
    #expect(result.code == 5, "\(hostile): exit \(result.code), stderr: \(result.stderr)")
    #expect(result.stderr.contains("refused"), "stderr: \(result.stderr)")
    #expect(tree(save) == before, "\(hostile): the save directory changed")
    for path in mustNotExist {
      #expect(!exists(path), "\(hostile) created '\(path)' outside the save directory")
    }
    #expect(
      (try? FileManager.default.contentsOfDirectory(atPath: outsideDirectory)) == [],
      "\(hostile) wrote into a folder outside the save directory")
    #expect(
      FileManager.default.contents(atPath: outsideFile) == Data("outside, must stay as it is\n".utf8),
      "\(hostile) changed a file outside the save directory")
    let leftovers = ((try? FileManager.default.contentsOfDirectory(atPath: saves)) ?? [])
      .filter { $0.hasPrefix(".savevault-") }
    #expect(leftovers.isEmpty, "\(hostile) left \(leftovers) beside the save directory")
    #expect(((try? FileManager.default.contentsOfDirectory(atPath: saves)) ?? []).sorted() == ["game"])

    // verify reads the same archive and refuses it too, naming it, without touching anything.
    let verify = try await box.runAwaiting(["verify", "--all", "--save-dir", save])
    #expect(verify.code == 5, "\(hostile): verify exit \(verify.code), stdout: \(verify.stdout)")
    #expect(verify.stderr.contains((evil as NSString).lastPathComponent), "stderr: \(verify.stderr)")
    #expect(verify.stdout.contains(real + "  ok"), "the good archive still verifies: \(verify.stdout)")
    #expect(tree(save) == before)
  }

  // 7
  @Test("a plain GNU tar restores, with a warning that it could not be verified")
  func plainTarRestores() async throws {
    let box = try Sandbox("plaintar", device: "testbox")
    let save = box.path("saves/game")
    try writeFile(save + "/old.sav", "the old save")
    let backup = try await box.runAwaiting(["backup", "--save-dir", save])
    try #require(backup.code == 0, "backup failed: \(backup.stderr)")

    let plain = box.path("plain")
    try writeFile(plain + "/level1.sav", "made by another tool")
    try writeFile(plain + "/sub dir/level2.sav", Data([0, 1, 2, 255, 254]))
    let folder = box.defaultContainer + "/game"
    let name = "packsave-20991231T235959.999Z-othertool.tar"
    let tarred = try await runProgramAwaiting(try tarTool(), ["-cf", folder + "/" + name, "-C", plain, "."])
    try #require(tarred.code == 0, "tar -cf failed: \(tarred.stderr)")

    let restore = try await box.runAwaiting(["restore", "--latest", "--save-dir", save])
    #expect(restore.code == 0, "restore of a plain tar: exit \(restore.code), stderr: \(restore.stderr)")
    #expect(restore.stderr.contains("could not be verified"), "no warning on stderr: \(restore.stderr)")
    #expect(FileManager.default.contents(atPath: save + "/level1.sav") == Data("made by another tool".utf8))
    #expect(contentTree(save) == contentTree(plain))
  }

  // 8
  @Test("list shows archives newest first")
  func listNewestFirst() async throws {
    let box = try Sandbox("list", device: "testbox")
    let save = box.path("saves/portal")
    try writeFile(save + "/slot.sav", "chamber 19")
    var made: [String] = []
    for flags in [[], ["--force"], ["--force"]] {
      let backup = try await box.runAwaiting(["backup", "--save-dir", save, "--json"] + flags)
      try #require(backup.code == 0, "backup failed: \(backup.stderr)")
      made.append(try #require(try jsonObject(backup.stdout)["archive"] as? String))
    }
    let list = try await box.runAwaiting(["list", "--save-dir", save, "--json"])
    #expect(list.code == 0, "list failed: \(list.stderr)")
    let archives = try #require(try jsonObject(list.stdout)["archives"] as? [[String: Any]])
    #expect(archives.count == 3)
    let times = archives.compactMap { integer($0["modifiedMs"]) }
    #expect(times.count == 3)
    #expect(zip(times, times.dropFirst()).allSatisfy { $0 > $1 }, "not newest first: \(times)")
    #expect(archives.compactMap { $0["name"] as? String } == made.reversed())
    #expect(archives.allSatisfy { $0["device"] as? String == "testbox" })

    let text = try await box.runAwaiting(["list", "--save-dir", save])
    #expect(text.code == 0)
    let positions = made.compactMap { text.stdout.range(of: $0)?.lowerBound }
    #expect(
      positions.count == 3 && positions[2] < positions[1] && positions[1] < positions[0], "\(text.stdout)")
  }

  // 9
  @Test("prune keeps the newest overall and the newest of each device")
  func prune() async throws {
    let box = try Sandbox("prune", device: "testbox")
    let save = box.path("saves/zelda")
    try writeFile(save + "/slot.sav", "hearts: 20")
    let folder = box.defaultContainer + "/zelda"
    func backup(device: String) async throws -> String {
      let result = try await box.runAwaiting(
        ["backup", "--save-dir", save, "--force", "--json"], environment: ["SAVEVAULT_DEVICE": device])
      try #require(result.code == 0, "backup failed: \(result.stderr)")
      return try #require(try jsonObject(result.stdout)["archive"] as? String)
    }
    let a1 = try await backup(device: "a")
    let a2 = try await backup(device: "a")
    let b1 = try await backup(device: "b")
    #expect(tarArchiveNames(in: folder) == [a1, a2, b1].sorted())

    let noKeep = try await box.runAwaiting(["prune", "--save-dir", save])
    #expect(noKeep.code == 2, "prune without --keep: exit \(noKeep.code)")
    let zero = try await box.runAwaiting(["prune", "--save-dir", save, "--keep", "0"])
    #expect(zero.code == 2, "prune --keep 0: exit \(zero.code)")
    #expect(tarArchiveNames(in: folder).count == 3, "a refused prune deleted something")

    let pruned = try await box.runAwaiting(["prune", "--save-dir", save, "--keep", "1", "--json"])
    #expect(pruned.code == 0, "prune failed: \(pruned.stderr)")
    let report = try jsonObject(pruned.stdout)
    #expect(report["deleted"] as? [String] == [a1])
    #expect(Set(report["kept"] as? [String] ?? []) == [a2, b1])
    #expect(tarArchiveNames(in: folder) == [a2, b1].sorted())
  }

  // 10
  @Test("usage errors exit 2")
  func usageErrors() async throws {
    let box = try Sandbox("usage", device: "testbox")
    let save = box.path("saves/game")
    try writeFile(save + "/slot.sav", "x")
    let badConfig = box.path("bad.json")
    try writeFile(badConfig, "{ \"games\": { not json")
    let cases: [[String]] = [
      ["frobnicate"],
      ["frobnicate", "--save-dir", save],
      ["backup", "--save-dir", save, "--bogus"],
      ["status", "--save-dir", save, "-x"],
      ["restore", "--save-dir", save],
      ["status", "--game", "nosuch"],
      ["backup", "--game", "nosuch"],
      ["status", "--save-dir", save, "--config", badConfig],
      ["--config", badConfig, "backup", "--save-dir", save],
      [],
    ]
    for words in cases {
      let result = try await box.runAwaiting(words)
      #expect(result.code == 2, "\(words): exit \(result.code), stderr: \(result.stderr)")
      #expect(!result.stderr.isEmpty, "\(words): no message on stderr")
    }
    #expect(tarArchiveNames(in: box.defaultContainer + "/game").isEmpty)
  }

  @Test("--help on every command and --version exit 0")
  func helpAndVersion() async throws {
    let box = try Sandbox("help", device: "testbox")
    for command in ["backup", "status", "restore", "list", "prune"] {
      for words in [[command, "--help"], ["--help", command], [command, "-h"]] {
        let result = try await box.runAwaiting(words)
        #expect(result.code == 0, "\(words): exit \(result.code)")
        #expect(
          result.stdout.contains("Usage:") && result.stdout.contains(command), "\(words): \(result.stdout)")
      }
    }
    let main = try await box.runAwaiting(["--help"])
    #expect(main.code == 0 && main.stdout.contains("Usage:"))
    let version = try await box.runAwaiting(["--version"])
    #expect(version.code == 0)
    #expect(version.stdout.hasPrefix("savevault "), "\(version.stdout)")
  }

  // 11
  @Test("a game from $XDG_CONFIG_HOME/savevault/config.json")
  func configFromXDGConfigHome() async throws {
    let box = try Sandbox("xdgconfig", device: "testbox")
    let save = box.path("somewhere/Celeste Saves")
    try writeFile(save + "/0.celeste", "strawberries: 175")
    let configHome = box.path("xdg-config")
    let config = try JSONSerialization.data(withJSONObject: ["games": ["celeste": ["saveDir": save]]])
    try writeFile(configHome + "/savevault/config.json", config)
    let environment = ["XDG_CONFIG_HOME": configHome]

    let backup = try await box.runAwaiting(["backup", "--game", "celeste"], environment: environment)
    #expect(backup.code == 0, "backup --game celeste failed: \(backup.stderr)")
    #expect(tarArchiveNames(in: box.defaultContainer + "/celeste").count == 1)
    let status = try await box.runAwaiting(
      ["status", "--game", "celeste", "--json"], environment: environment)
    #expect(status.code == 0, "status failed: \(status.stderr)")
    let report = try jsonObject(status.stdout)
    #expect(report["game"] as? String == "celeste")
    #expect(report["state"] as? String == "in-sync")

    // Without XDG_CONFIG_HOME the file is not found: an unknown game.
    let unknown = try await box.runAwaiting(["backup", "--game", "celeste"])
    #expect(unknown.code == 2)
  }

  @Test("SAVEVAULT_CONTAINER is the container when no flag names one")
  func containerFromEnvironment() async throws {
    let box = try Sandbox("envcontainer", device: "testbox")
    let save = box.path("saves/doom")
    try writeFile(save + "/savegame0.dsg", "E1M1")
    let container = box.path("cloud")
    try makeDirectory(container)
    let backup = try await box.runAwaiting(
      ["backup", "--save-dir", save], environment: ["SAVEVAULT_CONTAINER": container])
    #expect(backup.code == 0, "backup failed: \(backup.stderr)")
    #expect(tarArchiveNames(in: container + "/doom").count == 1)
    #expect(tarArchiveNames(in: box.defaultContainer + "/doom").isEmpty)
    let list = try await box.runAwaiting(
      ["list", "--save-dir", save, "--json"], environment: ["SAVEVAULT_CONTAINER": container])
    #expect(list.code == 0)
    #expect((try jsonObject(list.stdout)["archives"] as? [Any])?.count == 1)
  }

  @Test("--container file:///path is a folder")
  func fileURLContainer() async throws {
    let box = try Sandbox("fileurl", device: "testbox")
    let save = box.path("saves/quake")
    try writeFile(save + "/s0.sav", "E1M7")
    let container = box.path("nas share")
    try makeDirectory(container)
    let url =
      "file://" + (container.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? container)
    let backup = try await box.runAwaiting(["backup", "--save-dir", save, "--container", url])
    #expect(backup.code == 0, "backup --container \(url) failed: \(backup.stderr)")
    #expect(tarArchiveNames(in: container + "/quake").count == 1)
    #expect(tarArchiveNames(in: box.defaultContainer + "/quake").isEmpty)
  }

  @Test("SAVEVAULT_CONFIG names the config file")
  func configFromEnvironment() async throws {
    let box = try Sandbox("envconfig", device: "testbox")
    let save = box.path("saves/HollowKnight")
    try writeFile(save + "/user1.dat", "geo: 3000")
    let container = box.path("box")
    try makeDirectory(container)
    let configPath = box.path("custom/savevault.json")
    let config = try JSONSerialization.data(
      withJSONObject: ["games": ["hollow": ["saveDir": save, "container": container]]])
    try writeFile(configPath, config)

    let backup = try await box.runAwaiting(
      ["backup", "--game", "hollow"], environment: ["SAVEVAULT_CONFIG": configPath])
    #expect(backup.code == 0, "backup --game hollow failed: \(backup.stderr)")
    #expect(tarArchiveNames(in: container + "/hollow").count == 1)

    // --config wins over SAVEVAULT_CONFIG.
    let other = box.path("other.json")
    try writeFile(other, "{\"games\":{}}")
    let overridden = try await box.runAwaiting(
      ["backup", "--game", "hollow", "--config", other], environment: ["SAVEVAULT_CONFIG": configPath])
    #expect(overridden.code == 2, "--config should win: exit \(overridden.code), \(overridden.stderr)")
  }

  // 12
  @Test("another process holding the game's lock makes backup exit 6")
  func busy() async throws {
    let box = try Sandbox("busy", device: "testbox")
    let save = box.path("saves/factorio")
    try writeFile(save + "/world.zip", "belts")
    let lockDirectory = box.home + "/.local/state/savevault/locks"
    try makeDirectory(lockDirectory)
    let lockFile = lockDirectory + "/factorio.lock"
    let flockTool = try #require(which("flock"), "flock(1) is needed")

    // One process holds the lock (flock on the shell's descriptor, then the shell becomes
    // sleep with it), so terminating that one process releases it.
    // It says so in a file once it holds it: a probe of the lock that fails for another reason
    // (a loaded machine that cannot start it) is no sign that it is held.
    let taken = box.home + "/lock-taken"
    let holder = try SpawnedProgram(
      "/bin/sh",
      [
        "-c", "exec 9>>\"$1\" && \"$2\" -x 9 && : > \"$3\" && exec sleep 600", "sh", lockFile, flockTool,
        taken,
      ],
      stdout: .discarded, stderr: .discarded)
    defer { holder.terminateAndWait() }
    let deadline = Date().addingTimeInterval(60)
    while !FileManager.default.fileExists(atPath: taken) && Date() < deadline {
      try? await Task.sleep(for: .milliseconds(20))
    }
    try #require(FileManager.default.fileExists(atPath: taken), "the lock holder never took the lock")

    // Ungated, this and the probe above: they must run while the holder holds the lock.
    let backup = try await box.runAwaiting(
      ["backup", "--save-dir", save], environment: ["SAVEVAULT_LOCK_WAIT": "0.3"], gated: false)
    #expect(backup.code == 6, "backup while locked: exit \(backup.code), stderr: \(backup.stderr)")
    #expect(backup.stderr.contains("factorio"), "stderr: \(backup.stderr)")
    #expect(tarArchiveNames(in: box.defaultContainer + "/factorio").isEmpty)

    holder.terminate()
    await holder.waitAwaiting()
    let after = try await box.runAwaiting(["backup", "--save-dir", save])
    #expect(after.code == 0, "backup after the holder died: exit \(after.code), stderr: \(after.stderr)")
  }

  // 13
  @Test("archives are plain tar: tar and Python's tarfile read them")
  func archivesArePlainTar() async throws {
    let box = try Sandbox("plain", device: "testbox")
    let save = box.path("saves/witcher")
    try writeFile(save + "/QuickSave.sav", Data((0..<5000).map { UInt8(($0 * 7) % 256) }))
    try writeFile(save + "/Ünïcødé dir/slot 2.sav", "Geralt")
    try writeFile(save + "/empty.sav", "")
    try makeDirectory(save + "/screenshots")
    try writeFile(save + "/keys.cfg", "k", mode: 0o600)
    let backup = try await box.runAwaiting(["backup", "--save-dir", save, "--json"])
    try #require(backup.code == 0, "backup failed: \(backup.stderr)")
    let name = try #require(try jsonObject(backup.stdout)["archive"] as? String)
    let archive = box.defaultContainer + "/witcher/" + name

    let listed = try await runProgramAwaiting(try tarTool(), ["-tf", archive])
    #expect(listed.code == 0, "tar -tf failed: \(listed.stderr)")
    let tarNames = Set(listed.stdout.split(separator: "\n").map { String($0).trimmingCharacters(in: ["/"]) })
    for expected in ["QuickSave.sav", "Ünïcødé dir/slot 2.sav", "empty.sav", "screenshots", "keys.cfg"] {
      #expect(tarNames.contains(expected), "tar -tf lacks '\(expected)': \(listed.stdout)")
    }

    let script =
      "import sys, tarfile\nwith tarfile.open(sys.argv[1]) as t:\n    print('\\n'.join(t.getnames()))"
    let python = try await runProgramAwaiting(try python3(), ["-c", script, archive])
    #expect(python.code == 0, "tarfile could not read it: \(python.stderr)")
    let pythonNames = Set(python.stdout.split(separator: "\n").map(String.init))
    #expect(pythonNames == tarNames, "tar: \(tarNames.sorted()), tarfile: \(pythonNames.sorted())")

    let out = box.path("extracted")
    try makeDirectory(out)
    let extracted = try await runProgramAwaiting(try tarTool(), ["-xf", archive, "-C", out])
    #expect(extracted.code == 0, "tar -xf failed: \(extracted.stderr)")
    #expect(contentTree(out) == contentTree(save))
    #expect(tree(out)["keys.cfg"]?.mode == 0o600)
    #expect(FileManager.default.fileExists(atPath: out + "/.savevault/manifest.json"))
  }

  @Test("setuid, setgid and sticky bits from an archive are cleared")
  func specialModeBitsCleared() async throws {
    let box = try Sandbox("suid", device: "testbox")
    let save = box.path("saves/game")
    try writeFile(save + "/old.sav", "old")
    let folder = box.defaultContainer + "/game"
    try makeDirectory(folder)
    let script = """
      import io, sys, tarfile
      with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as t:
          d = tarfile.TarInfo("shared"); d.type = tarfile.DIRTYPE; d.mode = 0o1777; t.addfile(d)
          data = b"#!/bin/sh\\necho hi\\n"
          f = tarfile.TarInfo("shared/tool"); f.size = len(data); f.mode = 0o6755
          t.addfile(f, io.BytesIO(data))
      """
    let made = try await runProgramAwaiting(
      try python3(), ["-c", script, folder + "/packsave-20991231T235959.999Z-othertool.tar"])
    try #require(made.code == 0, "python3: \(made.stderr)")
    let restore = try await box.runAwaiting(["restore", "--latest", "--save-dir", save])
    #expect(restore.code == 0, "restore: exit \(restore.code), stderr: \(restore.stderr)")
    let restored = tree(save)
    let tool = try #require(restored["shared/tool"])
    let shared = try #require(restored["shared"])
    #expect(tool.mode & 0o7000 == 0, "setuid/setgid kept: \(String(tool.mode, radix: 8))")
    #expect(shared.mode & 0o7000 == 0, "sticky kept: \(String(shared.mode, radix: 8))")
    #expect(tool.content == Data("#!/bin/sh\necho hi\n".utf8))
  }

  @Test("two devices sharing a container: local-missing, restore, cloud-changed, conflict")
  func twoDevices() async throws {
    let box = try Sandbox("twodevices", device: "testbox")
    let cloud = box.path("cloud")
    try makeDirectory(cloud)
    let deck = ["HOME": box.path("home-deck"), "SAVEVAULT_DEVICE": "deck", "SAVEVAULT_CONTAINER": cloud]
    let desk = ["HOME": box.path("home-desk"), "SAVEVAULT_DEVICE": "desk", "SAVEVAULT_CONTAINER": cloud]
    let deckSave = box.path("deck/celeste")
    let deskSave = box.path("desk/celeste")
    func state(_ save: String, _ environment: [String: String]) async throws -> String? {
      let status = try await box.runAwaiting(
        ["status", "--save-dir", save, "--json"], environment: environment)
      #expect(status.code == 0, "status: exit \(status.code), stderr: \(status.stderr)")
      return try jsonObject(status.stdout)["state"] as? String
    }

    try writeFile(deckSave + "/0.celeste", "chapter 1")
    try writeFile(deckSave + "/settings.celeste", "fullscreen")
    #expect(try await state(deckSave, deck) == "cloud-empty")
    let first = try await box.runAwaiting(["backup", "--save-dir", deckSave], environment: deck)
    try #require(first.code == 0, "backup: \(first.stderr)")

    #expect(try await state(deskSave, desk) == "local-missing")
    let restore = try await box.runAwaiting(
      ["restore", "--latest", "--save-dir", deskSave, "--json"], environment: desk)
    #expect(restore.code == 0, "restore onto a new device: exit \(restore.code), stderr: \(restore.stderr)")
    #expect(
      try jsonObject(restore.stdout)["preRestoreCopy"] == nil, "nothing to keep, yet a pre-restore copy")
    #expect(tree(deskSave) == tree(deckSave))
    #expect(try await state(deskSave, desk) == "in-sync")

    try writeFile(deckSave + "/0.celeste", "chapter 2")
    let second = try await box.runAwaiting(["backup", "--save-dir", deckSave], environment: deck)
    try #require(second.code == 0, "backup: \(second.stderr)")
    #expect(try await state(deskSave, desk) == "cloud-changed")

    try writeFile(deskSave + "/0.celeste", "chapter 1, 200 strawberries")
    #expect(try await state(deskSave, desk) == "conflict")
    #expect(try await state(deckSave, deck) == "in-sync")
  }
}

// MARK: - Helpers, inside the suite so that they never clash with other test files

extension CLIEndToEndTests {
  /// Whether anything (even a dangling symlink) exists at `path`.
  func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
  }

  func python3() throws -> String {
    try #require(which("python3"), "python3 is needed to build test archives")
  }

  func tarTool() throws -> String {
    try #require(which("tar"), "tar is needed")
  }

  /// Builds hostile tars with Python's tarfile: `python3 hostileTarScript CASE OUTPUT [ARG]` (Tests/Fixtures).
  static let hostileTarScript = fixture("hostile-tar.py")

  /// The cases of hostile archives.
  enum HostileArchive: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case dotDotEscape, absolutePath, tmpDotDot, symlinkAbsoluteThenFile, symlinkEscaping
    case characterDevice, fifo, fileThenFolder, truncated, flippedByte, flippedMtimeDigit,
      editedManifestTotals
    case blockDevice, hardlinkThroughSymlink, tooManyEntries
    // More ways out of the save directory, and past its limits.
    case doubleSlashAbsolute, hardlinkOutsideWithData, directoryThenSymlink, symlinkChainEscaping
    case emptySymlinkTarget, hugeDeclaredSize, tooDeep
    case sparseMapOverlapping, sparseMapPastEnd

    var testDescription: String { rawValue }
  }
}
