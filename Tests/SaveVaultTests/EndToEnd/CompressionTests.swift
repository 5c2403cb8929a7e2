import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

// zstd-compressed archives (`packsave-….tar.zst`), end to end through the built binary: what
// `--compress zstd` and the config file's `compress` write, that GNU tar and Python's tarfile
// read it back, that every command treats `.tar` and `.tar.zst` alike, and that a corrupt,
// truncated or bomb-like `.tar.zst` is refused (exit 5) with the save untouched.

@Suite("Compression: zstd archives through the built binary", .tags(.large))
struct CompressionTests {

  @Test("backup --compress zstd writes a .tar.zst that restores byte-identically and verifies")
  func roundTrip() async throws {
    let box = try Sandbox("zstd-roundtrip", device: "testbox")
    let (save, path, json) = try await Self.backUpCompressed(box, game: "Celeste")
    let name = (path as NSString).lastPathComponent
    let bytes = try #require(FileManager.default.contents(atPath: path))
    #expect(Array(bytes.prefix(4)) == [0x28, 0xB5, 0x2F, 0xFD], "not a zstd frame")
    #expect(integer(json["archiveBytes"]) == Int64(bytes.count))
    #expect(Int64(bytes.count) < integer(json["bytes"]) ?? 0, "the compressible save did not shrink")
    let atBackup = tree(save)

    try writeFile(save + "/slot1.sav", "overwritten after the backup")
    try writeFile(save + "/stray.txt", "not in the backup")
    let restore = try await box.runAwaiting(["restore", "--latest", "--save-dir", save, "--json"])
    #expect(restore.code == 0, "restore: exit \(restore.code), stderr: \(restore.stderr)")
    #expect(try jsonObject(restore.stdout)["archive"] as? String == name)
    #expect(try jsonObject(restore.stdout)["verified"] as? Bool == true)
    #expect(tree(save) == atBackup)
    let copy = try #require(try jsonObject(restore.stdout)["preRestoreCopy"] as? String)
    // The replaced save is moved whole (one filesystem) or packed as a plain .tar, never zstd.
    #expect(
      !copy.hasSuffix(".zst") && FileManager.default.fileExists(atPath: copy), "pre-restore copy: \(copy)")
    #expect(try await fileInPreRestoreCopy(copy, "stray.txt") == "not in the backup")

    let verify = try await box.runAwaiting(["verify", "--latest", "--save-dir", save])
    #expect(verify.code == 0, "verify: exit \(verify.code), stderr: \(verify.stderr)")
    #expect(verify.stdout.contains("\(name)  ok, every byte matches its manifest"), "\(verify.stdout)")
    let status = try await box.runAwaiting(["status", "--save-dir", save, "--json"])
    #expect(try jsonObject(status.stdout)["state"] as? String == "in-sync", "\(status.stdout)")
  }

  @Test(
    "an archive's header, with the archives its save descends from, is read from its first 256 KiB, compressed or not"
  )
  func headerFromStart() async throws {
    let box = try Sandbox("zstd-header", device: "testbox")
    let save = box.path("saves/Celeste")
    // Random bytes do not compress: the header must come from a prefix of a large zstd stream.
    var random = SystemRandomNumberGenerator()
    try writeFile(
      save + "/world.bin", Data((0..<(2 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) }))
    var names: [String] = []
    for (round, compression) in ["zstd", "zstd", "none"].enumerated() {
      try writeFile(save + "/round.txt", "\(round)")
      let backup = try await box.runAwaiting([
        "backup", "--save-dir", save, "--compress", compression, "--json",
      ])
      try #require(backup.code == 0, "backup: exit \(backup.code), stderr: \(backup.stderr)")
      names.append(try #require(try jsonObject(backup.stdout)["archive"] as? String))
    }
    for (index, name) in names.enumerated() {
      let whole = try #require(
        FileManager.default.contents(atPath: Self.defaultContainer(box) + "/Celeste/" + name))
      #expect(whole.count > 2 * ArchiveContents.headerBytes, "\(name): \(whole.count) bytes")
      let start = box.path("start-\(index)")
      try writeFile(start, whole.prefix(ArchiveContents.headerBytes))
      let fd = open(start, O_RDONLY)
      defer { close(fd) }
      let header = ArchiveContents.header(fd: fd, archiveName: name)
      #expect(
        header?.ancestry == Array(names.prefix(index).reversed()), "\(name): \(String(describing: header))")
    }
  }

  @Test("GNU tar --zstd and Python's tarfile read a .tar.zst back")
  func otherToolsRead() async throws {
    let box = try Sandbox("zstd-tools", device: "testbox")
    let (save, archive, _) = try await Self.backUpCompressed(box, game: "witcher")
    try #require(which("zstd") != nil, "the zstd program is needed (apt-get install zstd)")

    let byTar = box.path("by-tar")
    try makeDirectory(byTar)
    let tar = try await runProgramAwaiting(
      try #require(which("tar")), ["--zstd", "-xf", archive, "-C", byTar])
    #expect(tar.code == 0, "tar --zstd -xf: \(tar.stderr)")
    #expect(contentTree(byTar) == contentTree(save))
    #expect(FileManager.default.fileExists(atPath: byTar + "/.savevault/manifest.json"))

    let byPython = box.path("by-python")
    let python = try await runProgramAwaiting(
      try #require(which("python3")), [Self.pythonReader, archive, byPython],
      environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
    #expect(python.code == 0, "tarfile: \(python.stderr)")
    #expect(contentTree(byPython) == contentTree(save))
  }

  @Test("list, status, verify, restore and prune treat .tar and .tar.zst alike; latest is by time")
  func mixedContainer() async throws {
    let box = try Sandbox("zstd-mixed", device: "testbox")
    let save = box.path("saves/mix")
    let cloud = box.path("cloud")
    try makeDirectory(cloud)
    let common = ["--save-dir", save, "--container", cloud]
    var names: [String] = []
    var trees: [[String: TreeEntry]] = []
    for (index, kind) in ["none", "zstd", "none", "zstd"].enumerated() {
      try writeFile(
        save + "/progress.sav", "chapter \(index)\n" + String(repeating: "x", count: 4000 * index))
      let backup = try await box.runAwaiting(["backup"] + common + ["--compress", kind, "--json"])
      try #require(backup.code == 0, "backup \(index): \(backup.stderr)")
      names.append(try #require(try jsonObject(backup.stdout)["archive"] as? String))
      trees.append(tree(save))
    }
    #expect(names.map { $0.hasSuffix(".tar.zst") } == [false, true, false, true], "\(names)")

    let list = try await box.runAwaiting(["list"] + common + ["--json"])
    let listed = try #require(try jsonObject(list.stdout)["archives"] as? [[String: Any]])
    #expect(listed.compactMap { $0["name"] as? String } == names.reversed(), "\(list.stdout)")
    #expect(listed.allSatisfy { $0["device"] as? String == "testbox" })

    // Latest is the name's time, whatever the suffix or the files' modification times.
    setModified(cloud + "/mix/" + names[3], ns: 978_307_200_000_000_000)  // 2001
    setModified(cloud + "/mix/" + names[2], ns: 4_102_444_800_000_000_000)  // 2100
    let status = try await box.runAwaiting(["status"] + common + ["--json"])
    let report = try jsonObject(status.stdout)
    #expect(report["state"] as? String == "in-sync", "\(status.stdout)")
    #expect(lookup(report, "cloud.latest") as? String == names[3])
    #expect(integer(lookup(report, "cloud.modifiedMs")) == ArchiveName(parsing: names[3])?.createdMs)
    #expect(integer(lookup(report, "cloud.count")) == 4)

    let verify = try await box.runAwaiting(["verify", "--all"] + common + ["--json"])
    #expect(verify.code == 0, "verify --all: \(verify.stdout) \(verify.stderr)")
    let checks = try #require(try jsonObject(verify.stdout)["archives"] as? [[String: Any]])
    #expect(
      checks.count == 4 && checks.allSatisfy { $0["ok"] as? Bool == true && $0["verified"] as? Bool == true })

    let older = try await box.runAwaiting(["restore", "--archive", names[1]] + common)
    #expect(older.code == 0, "restore --archive: \(older.stderr)")
    #expect(tree(save) == trees[1])
    let latest = try await box.runAwaiting(["restore", "--latest"] + common + ["--json"])
    #expect(try jsonObject(latest.stdout)["archive"] as? String == names[3])
    #expect(tree(save) == trees[3])

    // A plain backup after a compressed one is the latest, even with an older file time.
    try writeFile(save + "/progress.sav", "chapter 5\n")
    let plain = try await box.runAwaiting(["backup"] + common + ["--json"])
    let fifth = try #require(try jsonObject(plain.stdout)["archive"] as? String)
    #expect(fifth.hasSuffix("-testbox.tar"))
    setModified(cloud + "/mix/" + fifth, ns: 978_307_200_000_000_000)
    setModified(cloud + "/mix/" + names[3], ns: 4_102_444_800_000_000_000)
    let after = try jsonObject(try await box.runAwaiting(["status"] + common + ["--json"]).stdout)
    #expect(lookup(after, "cloud.latest") as? String == fifth)
    #expect(after["state"] as? String == "in-sync")

    let prune = try await box.runAwaiting(["prune", "--keep", "2"] + common + ["--json"])
    #expect(prune.code == 0, "prune: \(prune.stderr)")
    let pruned = try jsonObject(prune.stdout)
    #expect(pruned["kept"] as? [String] == [fifth, names[3]])
    #expect(Set(pruned["deleted"] as? [String] ?? []) == Set(names[0...2]))
    #expect(Set(try FileManager.default.contentsOfDirectory(atPath: cloud + "/mix")) == [fifth, names[3]])
  }

  @Test("config compress: file-wide, per game, --compress none overrides; sync and wrap follow it")
  func configSetting() async throws {
    let box = try Sandbox("zstd-config", device: "testbox")
    let cloud = box.path("cloud")
    try makeDirectory(cloud)
    let zsave = box.path("saves/zgame")
    let psave = box.path("saves/pgame")
    try writeFile(zsave + "/a.sav", "z1")
    try writeFile(psave + "/a.sav", "p1")
    let config = box.path("config.json")
    try writeFile(
      config,
      """
      {"container": "\(cloud)", "compress": "zstd", "games": {
        "zgame": {"saveDir": "\(zsave)"},
        "pgame": {"saveDir": "\(psave)", "compress": "none"}}}
      """)
    let all = try await box.runAwaiting(["--config", config, "backup"])
    #expect(all.code == 0, "backup of every game: \(all.stderr)")
    #expect(Self.newest(cloud + "/zgame").hasSuffix(".tar.zst"))
    #expect(Self.newest(cloud + "/pgame").hasSuffix("-testbox.tar"))

    try writeFile(zsave + "/a.sav", "z2")
    let overridden = try await box.runAwaiting([
      "--config", config, "backup", "--game", "zgame", "--compress", "none",
    ])
    #expect(overridden.code == 0, "backup --compress none: \(overridden.stderr)")
    #expect(Self.newest(cloud + "/zgame").hasSuffix("-testbox.tar"))

    try writeFile(psave + "/a.sav", "p2")
    let sync = try await box.runAwaiting([
      "--config", config, "sync", "--game", "pgame", "--compress", "zstd", "--json",
    ])
    #expect(sync.code == 0, "sync: \(sync.stderr)")
    #expect(
      (try jsonObject(sync.stdout)["archive"] as? String)?.hasSuffix(".tar.zst") == true, "\(sync.stdout)")

    let wrap = try await box.runAwaiting([
      "--config", config, "wrap", "--game", "zgame", "--on-conflict", "fail", "--", "/bin/sh", "-c",
      "echo played >> \"$0\"", zsave + "/a.sav",
    ])
    #expect(wrap.code == 0, "wrap: \(wrap.stderr)")
    #expect(
      Self.newest(cloud + "/zgame").hasSuffix(".tar.zst"), "the game-less zgame follows the file's zstd")
    let verify = try await box.runAwaiting(["--config", config, "verify", "--all", "--game", "zgame"])
    #expect(verify.code == 0, "verify: \(verify.stdout) \(verify.stderr)")
  }

  @Test(
    "a bad compression setting is a usage error (exit 2)",
    arguments: [
      (["--compress", "gzip"], "", "--compress must be one of none, zstd, not 'gzip'"),
      (["--compress", "ZSTD"], "", "not 'ZSTD'"),
      (["--compress"], "", "needs a value"),
      ([], #"{"compress": "lz4"}"#, "compress must be one of none, zstd, not 'lz4'"),
      ([], #"{"games": {"g": {"saveDir": "/tmp/none", "compress": "xz"}}}"#, "compress must be one of"),
      ([], #"{"compress": 3}"#, "wrong type at 'compress'"),
    ])
  func badSetting(flags: [String], config: String, message: String) async throws {
    let box = try Sandbox("zstd-bad", device: "testbox")
    let save = box.path("saves/g")
    try writeFile(save + "/a.sav", "a")
    var global: [String] = []
    if !config.isEmpty {
      try writeFile(box.path("config.json"), config)
      global = ["--config", box.path("config.json")]
    }
    let result = try await box.runAwaiting(global + ["backup", "--save-dir", save, "--game", "g"] + flags)
    #expect(result.code == 2, "exit \(result.code), stderr: \(result.stderr)")
    #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
    #expect(
      !FileManager.default.fileExists(atPath: Self.defaultContainer(box) + "/g"), "something was uploaded")
    let list = try await box.runAwaiting(["list", "--save-dir", save, "--compress", "zstd"])
    #expect(list.code == 2 && list.stderr.contains("'list' does not take '--compress'"), "\(list.stderr)")
  }

  enum Damage: String, CaseIterable {
    // (a zstd tar named .tar is read by its content: ForeignArchiveTests)
    case truncated, bitFlip, plainNamedZst, empty, garbage
  }

  @Test("a damaged or misnamed .tar.zst is refused (exit 5), the save untouched", arguments: Damage.allCases)
  func damaged(damage: Damage) async throws {
    let box = try Sandbox("zstd-\(damage)", device: "testbox")
    let (save, compressed, _) = try await Self.backUpCompressed(box, game: "game")
    let folder = Self.defaultContainer(box) + "/game"
    let good = try #require(FileManager.default.contents(atPath: compressed))
    try writeFile(save + "/extra.sav", "makes the next backup differ")
    let plain = try await box.runAwaiting(["backup", "--save-dir", save, "--json"])
    let plainBytes = try #require(
      FileManager.default.contents(
        atPath: folder + "/" + (try jsonObject(plain.stdout)["archive"] as? String ?? "")))

    let name = "packsave-20991231T235959.999Z-evil.tar.zst"
    var bytes: Data
    switch damage {
    case .truncated: bytes = good.prefix(good.count / 2)
    case .bitFlip:
      bytes = good
      bytes[bytes.count / 2] ^= 0x10
    case .plainNamedZst: bytes = plainBytes
    case .empty: bytes = Data()
    case .garbage: bytes = Data([0x28, 0xB5, 0x2F, 0xFD]) + Data((0..<4096).map { UInt8(($0 * 37) % 251) })
    }
    try writeFile(folder + "/" + name, bytes)
    let before = tree(save)
    let restore = try await box.runAwaiting(["restore", "--archive", name, "--save-dir", save])
    #expect(restore.code == 5, "exit \(restore.code), stderr: \(restore.stderr)")
    #expect(restore.stderr.contains("archive '\(name)' refused"), "stderr: \(restore.stderr)")
    #expect(tree(save) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: box.path("saves")) == ["game"])
    let verify = try await box.runAwaiting(["verify", "--archive", name, "--save-dir", save])
    #expect(verify.code == 5, "verify: exit \(verify.code), \(verify.stdout)")
  }

  enum Bomb: String, CaseIterable {
    /// One 2 GiB file of zeros: its declared size is over the cap.
    case oneFile = "file"
    /// 2 GiB of zeros in a SaveVault metadata file the extractor does not read: only the tar
    /// stream's cap sees it.
    case hiddenInMetadata = "meta"
  }

  @Test(
    "a zstd bomb (2 GiB of zeros in ~70 KiB) is refused under a 1 MiB cap, nothing over it written",
    arguments: Bomb.allCases)
  func bomb(kind: Bomb) async throws {
    let box = try Sandbox("zstd-bomb-\(kind.rawValue)", device: "testbox")
    let save = box.path("saves/game")
    try writeFile(save + "/a.sav", "precious")
    let folder = Self.defaultContainer(box) + "/game"
    try makeDirectory(folder)
    let name = "packsave-20991231T235959.999Z-evil.tar.zst"
    try #require(which("zstd") != nil, "the zstd program is needed (apt-get install zstd)")
    let made = try await runProgramAwaiting(
      try #require(which("python3")),
      [Self.bombWriter, kind.rawValue, String(2 << 30), folder + "/" + name],
      environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
    try #require(made.code == 0, "could not make the bomb: \(made.stderr)")
    let size = try #require(
      try FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? Int)
    #expect(size < 1 << 20, "the bomb is \(size) bytes")
    let config = box.path("config.json")
    try writeFile(config, #"{"limits": {"maxBytes": 1048576}}"#)
    let before = tree(save)
    // A file size limit of 2 MiB: writing past it would kill savevault with SIGXFSZ (not exit 5).
    let restore = try await runProgramAwaiting(
      "/bin/bash",
      [
        "-c", "ulimit -f 2048 && exec \"$@\"", "bash", savevaultBinary, "--config", config, "restore",
        "--archive",
        name, "--save-dir", save,
      ],
      environment: box.environment([:]))
    #expect(restore.code == 5, "exit \(restore.code), stderr: \(restore.stderr)")
    let reason = kind == .oneFile ? "declares more than 1048576 bytes" : "unpacks to more than"
    #expect(restore.stderr.contains(reason), "stderr: \(restore.stderr)")
    #expect(tree(save) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: box.path("saves")) == ["game"])
  }

  @Test("S3 (rclone serve s3): a .tar.zst round-trips")
  func s3RoundTrip() async throws {
    let server = try #require(S3TestServer.shared(.rclone), "rclone serve s3 did not start")
    let box = try Sandbox("zstd-s3", device: "deck")
    let bucket = CloudEndToEndTests.newBucket()
    let check = try server.container(bucket: bucket, prefix: "saves")
    let save = box.path("saves/Hades")
    try Self.fillSave(save)
    let common = ["--save-dir", save, "--container", "s3://\(bucket)/saves"]
    let environment = server.environment()
    let backup = try await box.runAwaiting(
      ["backup", "--compress", "zstd", "--json"] + common, environment: environment)
    try #require(backup.code == 0, "backup: \(backup.stderr)")
    let name = try #require(try jsonObject(backup.stdout)["archive"] as? String)
    #expect(name.hasSuffix("-deck.tar.zst"))
    let stored = try check.archivesNewestFirst(game: "Hades")
    #expect(stored.map(\.name) == [name])
    #expect(stored.first?.modifiedMs == ArchiveName(parsing: name)?.createdMs)
    let atBackup = tree(save)

    try writeFile(save + "/slot1.sav", "changed after the backup")
    let restore = try await box.runAwaiting(
      ["restore", "--latest", "--json"] + common, environment: environment)
    #expect(restore.code == 0, "restore: \(restore.stderr)")
    #expect(try jsonObject(restore.stdout)["archive"] as? String == name)
    #expect(tree(save) == atBackup)
    let verify = try await box.runAwaiting(["verify", "--all"] + common, environment: environment)
    #expect(verify.code == 0 && verify.stdout.contains("\(name)  ok"), "\(verify.stdout) \(verify.stderr)")
  }

  // MARK: - Helpers

  /// The embedded default container under the box's HOME.
  static func defaultContainer(_ box: Sandbox) -> String { box.home + "/.local/share/savevault/container" }

  /// Fills `saves/<game>` and backs it up with `--compress zstd` into the default container.
  /// Returns the save, the archive's path and backup's JSON.
  static func backUpCompressed(_ box: Sandbox, game: String) async throws -> (String, String, [String: Any]) {
    let save = box.path("saves/" + game)
    try fillSave(save)
    let backup = try await box.runAwaiting(["backup", "--save-dir", save, "--compress", "zstd", "--json"])
    try #require(backup.code == 0, "backup: exit \(backup.code), stderr: \(backup.stderr)")
    let json = try jsonObject(backup.stdout)
    let name = try #require(json["archive"] as? String)
    #expect(name.hasSuffix("-testbox.tar.zst"), "archive name: \(name)")
    return (save, Self.defaultContainer(box) + "/" + game + "/" + name, json)
  }

  /// A save worth compressing: repetitive text, a binary file, nesting, an empty file, modes.
  static func fillSave(_ save: String) throws {
    try writeFile(save + "/slot1.sav", String(repeating: "level=3 coins=1200 deaths=413\n", count: 2000))
    try writeFile(save + "/Ünïcødé dir/slot 2.sav", Data((0..<20000).map { UInt8(($0 * 7) % 256) }))
    try writeFile(save + "/empty.sav", "")
    try makeDirectory(save + "/screenshots")
    try writeFile(save + "/keys.cfg", "k=1\n", mode: 0o600)
  }

  /// The newest archive name in a folder.
  static func newest(_ folder: String) -> String {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
      ArchiveName(parsing: $0) != nil
    }.max { ArchiveName(parsing: $0)?.createdMs ?? 0 < ArchiveName(parsing: $1)?.createdMs ?? 0 } ?? ""
  }

  /// `python3 pythonReader ARCHIVE OUTDIR` (Tests/Fixtures): tarfile extracts a .tar.zst, natively where
  /// Python has zstd (3.14), else from the `zstd` program's output.
  static let pythonReader = fixture("tarfile-read-zstd.py")

  /// `python3 bombWriter file|meta SIZE OUTPUT` (Tests/Fixtures): a pax tar holding SIZE zero bytes in one
  /// entry, streamed through `zstd -3` into OUTPUT (nothing of SIZE ever touches the disk).
  static let bombWriter = fixture("tar-bomb.py")
}
