import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Archives another tool made, restored through the binary: what they hold that SaveVault's
/// own archives never do (folders their owner cannot open, a path appended twice, compression
/// SaveVault does not write, GNU and pax header quirks), read as GNU tar and Python's tarfile
/// read them, or refused whole.
@Suite("Archives other tools made, through the binary", .tags(.medium))
struct ForeignArchiveTests {
  /// A name in the container newer than anything the test's sandbox made.
  static let name = "packsave-20991231T235959.999Z-other.tar"

  /// Writes the archive `entries` describe with Python's tarfile (`mode` "w" or "w:gz" …):
  /// each entry is `[name, type, mode, content]` with type "file" or "dir".
  static func makeArchive(_ path: String, mode: String = "w", _ entries: [[Any]]) async throws {
    let script = """
      import io, json, sys, tarfile
      path, mode, entries = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
      with tarfile.open(path, mode, format=tarfile.PAX_FORMAT) as t:
          for name, kind, perm, content in entries:
              info = tarfile.TarInfo(name)
              info.mode = perm
              info.mtime = 1700000000
              if kind == "dir":
                  info.type = tarfile.DIRTYPE
                  t.addfile(info)
              else:
                  data = content.encode()
                  info.size = len(data)
                  t.addfile(info, io.BytesIO(data))
      """
    let json = String(decoding: try JSONSerialization.data(withJSONObject: entries), as: UTF8.self)
    try makeDirectory((path as NSString).deletingLastPathComponent)
    let made = try await runProgramAwaiting(
      try requiredProgram("python3"), ["-c", script, path, mode, json])
    try #require(made.code == 0, "python3 could not write the archive: \(made.stderr)")
  }

  /// Runs the binary as the user `nobody` when the tests run as root (a root process reads a
  /// mode-000 file anyway, so only another user sees what a player sees), else as this user.
  /// The sandbox is given to that user first.
  static func runAsPlayer(_ box: Sandbox, _ arguments: [String]) async throws -> RunResult {
    guard getuid() == 0 else { return try await box.runAwaiting(arguments) }
    let chown = try await runProgramAwaiting("/bin/chown", ["-R", "65534:65534", box.dir.path])
    try #require(chown.code == 0, "chown: \(chown.stderr)")
    return try await runProgramAwaiting(
      try requiredProgram("setpriv"),
      ["--reuid=65534", "--regid=65534", "--clear-groups", savevaultBinary] + arguments,
      environment: box.environment([:]), currentDirectory: box.dir.path)
  }

  /// Mode bits of `path` (not following a symlink).
  static func mode(_ path: String) -> UInt32 {
    var info = stat()
    return lstat(path, &info) == 0 ? UInt32(info.st_mode) & 0o7777 : 0
  }

  @Test(
    "a folder and a file of mode 000 are restored so that their owner can use them; status, restore and undo work after"
  )
  func ownerUnreadable() async throws {
    let box = try Sandbox("foreign-mode000", device: "testbox")
    try writeFile(box.save + "/slot.sav", "the save before")
    try await Self.makeArchive(
      box.cloud + "/game/" + Self.name,
      [
        ["locked", "dir", 0, ""], ["locked/slot.sav", "file", 0, "locked away"],
        ["readonly.sav", "file", 0o444, "read only"], ["open", "dir", 0o500, ""],
      ])
    let restore = try await Self.runAsPlayer(box, ["restore", "--latest"] + box.target())
    #expect(restore.code == 0, "restore: \(restore.stderr)")
    // The owner may open and change every folder and read every file; the other bits are the
    // archive's, and a read-only file stays read-only.
    #expect(Self.mode(box.save + "/locked") == 0o700)
    #expect(Self.mode(box.save + "/locked/slot.sav") == 0o400)
    #expect(Self.mode(box.save + "/readonly.sav") == 0o444)
    #expect(Self.mode(box.save + "/open") == 0o700)
    #expect(text(box.save + "/locked/slot.sav") == "locked away")

    let status = try await Self.runAsPlayer(box, ["status"] + box.target())
    #expect(status.code == 0, "status: \(status.stderr)")
    let again = try await Self.runAsPlayer(box, ["restore", "--latest"] + box.target())
    #expect(again.code == 0, "a second restore: \(again.stderr)")
    let undo = try await Self.runAsPlayer(box, ["restore", "--undo"] + box.target())
    #expect(undo.code == 0, "restore --undo: \(undo.stderr)")
    #expect(
      text(box.save + "/locked/slot.sav") == "locked away",
      "undo puts back the save the second restore replaced")
  }

  /// `verify --latest --json`'s one archive.
  static func verified(_ box: Sandbox) async throws -> (code: Int32, archive: [String: Any]) {
    let run = try await box.runAwaiting(["verify", "--latest", "--json"] + box.target())
    let archives = try #require(try jsonObject(run.stdout)["archives"] as? [[String: Any]], "\(run.stderr)")
    return (run.code, try #require(archives.first, "verify read nothing: \(run.stdout)"))
  }

  /// Runs GNU tar in `directory`.
  static func tar(_ arguments: [String], in directory: String) async throws {
    let run = try await runProgramAwaiting(
      try requiredProgram("tar"), arguments,
      environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"],
      currentDirectory: directory)
    try #require(run.code == 0, "tar \(arguments): \(run.stderr)")
  }

  @Test(
    "an archive appended to by tar -r or -u (a path twice) restores and verifies by its last entry",
    arguments: ["-rf", "-uf"])
  func appended(option: String) async throws {
    let box = try Sandbox("foreign-appended", device: "testbox")
    try writeFile(box.save + "/slot.sav", "the save before")
    let work = box.path("work")
    try writeFile(work + "/slot.sav", "first", modifiedNs: 1_700_000_000_000_000_000)
    try writeFile(work + "/notes.txt", "kept")
    let archive = box.cloud + "/game/" + Self.name
    try makeDirectory(box.cloud + "/game")
    try await Self.tar(["-cf", archive, "slot.sav", "notes.txt"], in: work)
    try writeFile(work + "/slot.sav", "second, longer", modifiedNs: 1_800_000_000_000_000_000)
    try await Self.tar([option, archive, "slot.sav"], in: work)

    let (code, verified) = try await Self.verified(box)
    #expect(code == 0, "verify: \(verified)")
    #expect(verified["files"] as? Int == 2)
    #expect(verified["bytes"] as? Int == "second, longer".utf8.count + "kept".utf8.count)
    try await box.ok(["restore", "--latest"] + box.target())
    #expect(text(box.save + "/slot.sav") == "second, longer")
    #expect(text(box.save + "/notes.txt") == "kept")
    #expect(try await box.state(box.target()) == "in-sync")
  }

  /// A compressed tar as GNU tar writes it: the ending and tar's option.
  static let compressedEndings: [(String, String)] = [
    (".tar.gz", "-z"), (".tgz", "-z"), (".tar.bz2", "-j"), (".tar.xz", "-J"),
  ]

  @Test(
    "a .tar.gz, .tgz, .tar.bz2 or .tar.xz archive is listed, verified and restored",
    arguments: compressedEndings)
  func compressed(ending: String, option: String) async throws {
    let box = try Sandbox("foreign-compressed", device: "testbox")
    try writeFile(box.save + "/slot.sav", "the save before")
    let work = box.path("work")
    try writeFile(work + "/slot.sav", "compressed by another tool")
    try writeFile(work + "/sub/more.dat", Data((0..<5000).map { UInt8($0 % 7) }))
    let name = "packsave-20991231T235959.999Z-other" + ending
    try makeDirectory(box.cloud + "/game")
    try await Self.tar([option, "-cf", box.cloud + "/game/" + name, "."], in: work)

    let list = try jsonObject(try await box.ok(["list", "--json"] + box.target()).stdout)
    let names = (list["archives"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    #expect(names == [name], "list: \(list)")
    let (code, verified) = try await Self.verified(box)
    #expect(code == 0, "verify: \(verified)")
    #expect(verified["files"] as? Int == 2)
    try await box.ok(["restore", "--latest"] + box.target())
    #expect(contentTree(box.save) == contentTree(work))
  }

  @Test(
    "a gzip, bzip2, xz or zstd tar under a plain .tar name is read by its content",
    arguments: ["-z", "-j", "-J", "--zstd"])
  func compressedUnderTarName(option: String) async throws {
    let box = try Sandbox("foreign-content", device: "testbox")
    try writeFile(box.save + "/slot.sav", "the save before")
    let work = box.path("work")
    try writeFile(work + "/slot.sav", "compressed, named .tar")
    try makeDirectory(box.cloud + "/game")
    try await Self.tar([option, "-cf", box.cloud + "/game/" + Self.name, "."], in: work)
    let (code, verified) = try await Self.verified(box)
    #expect(code == 0, "verify: \(verified)")
    try await box.ok(["restore", "--latest"] + box.target())
    #expect(text(box.save + "/slot.sav") == "compressed, named .tar")
  }

  @Test("a name that says one compression over another content is refused (exit 5)")
  func wrongEnding() async throws {
    let box = try Sandbox("foreign-wrong-ending", device: "testbox")
    try writeFile(box.save + "/slot.sav", "the save before")
    let work = box.path("work")
    try writeFile(work + "/slot.sav", "plain")
    try makeDirectory(box.cloud + "/game")
    try await Self.tar(
      ["-cf", box.cloud + "/game/packsave-20991231T235959.999Z-other.tar.gz", "."], in: work)
    let restore = try await box.runAwaiting(["restore", "--latest"] + box.target())
    #expect(restore.code == 5, "restore: \(restore.stderr)")
    #expect(restore.stderr.contains("ends in .tar.gz but it is not gzip-compressed"), "\(restore.stderr)")
    #expect(text(box.save + "/slot.sav") == "the save before")
  }

  /// The compressors of the bomb test: the program `tar-bomb.py` pipes through, and the ending.
  static let bombs: [(String, String)] = [
    ("gzip", ".tar.gz"), ("bzip2", ".tar.bz2"), ("xz", ".tar.xz"), ("gzip", ".tar"),
  ]

  @Test(
    "a gzip, bzip2 or xz bomb (256 MiB of zeros hidden in metadata) is refused under a 1 MiB cap",
    arguments: bombs)
  func bomb(compressor: String, ending: String) async throws {
    let box = try Sandbox("foreign-bomb-\(compressor)", device: "testbox")
    try writeFile(box.save + "/a.sav", "precious")
    let name = "packsave-20991231T235959.999Z-evil" + ending
    try makeDirectory(box.cloud + "/game")
    let made = try await runProgramAwaiting(
      try requiredProgram("python3"),
      [fixture("tar-bomb.py"), "meta", String(256 << 20), box.cloud + "/game/" + name, compressor],
      environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
    try #require(made.code == 0, "could not make the bomb: \(made.stderr)")
    let config = box.path("config.json")
    try writeFile(config, #"{"limits": {"maxBytes": 1048576}}"#)
    let before = tree(box.save)
    let restore = try await box.runAwaiting(["--config", config, "restore", "--latest"] + box.target())
    #expect(restore.code == 5, "exit \(restore.code), stderr: \(restore.stderr)")
    #expect(restore.stderr.contains("unpacks to more than"), "stderr: \(restore.stderr)")
    #expect(tree(box.save) == before)
  }

  @Test(
    "a GNU header whose realsize field holds another field's digits is read by its size, as GNU tar, tarfile and Go read it"
  )
  func gnuRealSize() async throws {
    let box = try Sandbox("foreign-nil-uid", device: "testbox")
    try writeFile(box.save + "/slot.sav", "the save before")
    let archive = fixture("tar-corpus/go/nil-uid.tar")
    try makeDirectory(box.cloud + "/game")
    try FileManager.default.copyItem(atPath: archive, toPath: box.cloud + "/game/" + Self.name)
    let byTar = try await runProgramAwaiting(try requiredProgram("tar"), ["-xOf", archive])
    try #require(
      byTar.code == 0 && byTar.stdout.utf8.count == 14, "GNU tar reads \(byTar.stdout.utf8.count) bytes")
    let (code, verified) = try await Self.verified(box)
    #expect(code == 0)
    #expect(verified["bytes"] as? Int == 14)
    try await box.ok(["restore", "--latest"] + box.target())
    #expect(text(box.save + "/P1050238.JPG.log") == byTar.stdout)
  }

  @Test(
    "a malformed pax header that GNU tar and tarfile refuse is refused (exit 5), naming it",
    arguments: ["go/pax-bad-hdr-file.tar", "libarchive/libarchive/test_read_pax_empty_val_no_nl.tar"])
  func malformedPax(archive: String) async throws {
    let box = try Sandbox("foreign-pax", device: "testbox")
    try writeFile(box.save + "/slot.sav", "the save before")
    try makeDirectory(box.cloud + "/game")
    try FileManager.default.copyItem(
      atPath: fixture("tar-corpus/" + archive), toPath: box.cloud + "/game/" + Self.name)
    for command in [["verify", "--latest"], ["restore", "--latest"]] {
      let run = try await box.runAwaiting(command + box.target())
      #expect(run.code == 5, "\(command): exit \(run.code): \(run.stderr)")
      #expect(
        run.stderr.contains("pax") || run.stdout.contains("pax"), "\(command): \(run.stderr) \(run.stdout)")
    }
    #expect(text(box.save + "/slot.sav") == "the save before")
  }
}
