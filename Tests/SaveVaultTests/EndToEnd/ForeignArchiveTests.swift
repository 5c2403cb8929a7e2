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
}
