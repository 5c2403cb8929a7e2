import Foundation
import Testing

/// An archive a newer SaveVault made, through the binary: a real backup whose header is
/// rewritten with Python's tarfile as a newer writer would write it. One that says this
/// SaveVault cannot read it (`minReader`, or without it `format`, above what it reads) is
/// refused by `verify`, `restore`, `sync` and `wrap` before anything in the save changes (exit
/// 5), while `list` and `status` still show it; one whose `minReader` this SaveVault meets is
/// read, its unknown fields ignored.
@Suite("Archives of a newer format, through the binary", .tags(.medium))
struct NewerFormatTests {
  /// A name in the container newer than the sandbox's own backup, from another device.
  static let name = "packsave-20991231T235959.999Z-other.tar"

  /// Writes at `destination` the archive at `source` with `fields` set in its header and its
  /// manifest saying the same format (every other entry as it was, in its order).
  static func rewriteHeader(_ source: String, _ destination: String, _ fields: [String: Any]) async throws {
    let script = """
      import io, json, sys, tarfile
      source, destination, fields = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
      with tarfile.open(source) as old, tarfile.open(destination, "w", format=tarfile.PAX_FORMAT) as new:
          for member in old.getmembers():
              data = old.extractfile(member).read() if member.isfile() else None
              name = member.name.removeprefix("./")
              if name in (".savevault/header.json", ".savevault/manifest.json"):
                  metadata = json.loads(data)
                  # The manifest says the format its header says.
                  metadata.update(fields if name.endswith("header.json") else {"format": fields["format"]})
                  data = json.dumps(metadata, sort_keys=True, separators=(",", ":")).encode()
                  member.size = len(data)
              new.addfile(member, io.BytesIO(data) if data is not None else None)
      """
    let json = String(decoding: try JSONSerialization.data(withJSONObject: fields), as: UTF8.self)
    let made = try await runProgramAwaiting(
      try requiredProgram("python3"), ["-c", script, source, destination, json])
    try #require(made.code == 0, "python3 could not rewrite the archive: \(made.stderr)")
  }

  /// A sandbox whose save was backed up at chapter 3, then at chapter 4 (the archive this
  /// device agreed on), and the newer archive made from the first backup with `fields` in its
  /// header put in the container as the latest, descending from the second.
  static func world(_ label: String, _ fields: String) async throws -> Sandbox {
    let box = try Sandbox(label)
    let files = [box.save + "/slot1.sav", box.save + "/sub/options.ini", box.save + "/sub"]
    try writeFile(files[0], "chapter 3")
    try writeFile(files[1], "vsync=1")
    // Whole seconds: Python's tarfile keeps a time as a float, which cannot hold nanoseconds.
    let touch = try await runProgramAwaiting("/usr/bin/touch", ["-d", "@1700000000"] + files)
    try #require(touch.code == 0, "\(touch.stderr)")
    try await box.ok(["backup"] + box.target())
    try writeFile(files[0], "chapter 4")
    try await box.ok(["backup"] + box.target())
    let own = box.archives("game")
    try #require(own.count == 2, "\(own)")
    var fields = try jsonObject(fields)
    fields["ancestry"] = Array(own.reversed())
    try await rewriteHeader(box.cloud + "/game/" + own[0], box.cloud + "/game/" + name, fields)
    return box
  }

  /// Header fields, as JSON, of archives this SaveVault cannot read.
  static let unreadable = [
    #"{"format": 3, "minReader": 3}"#,
    #"{"format": 3, "encryption": {"cipher": "aes-256-gcm", "keyId": "k1"}}"#,
  ]

  @Test(
    "refused by verify, restore, sync and wrap, the save unchanged; list and status show it",
    arguments: unreadable)
  func refused(_ fields: String) async throws {
    let box = try await Self.world("newer-format", fields)
    let before = tree(box.save)
    let parent = try FileManager.default.contentsOfDirectory(atPath: box.path("saves")).sorted()
    for command in [["verify", "--latest"], ["restore", "--latest"], ["sync"], ["wrap"]] {
      let arguments = command + box.target() + (command == ["wrap"] ? ["--", "/bin/true"] : [])
      let run = try await box.runAwaiting(arguments)
      // wrap never blocks play: it says why nothing was synced and ends as the game does.
      #expect(run.code == (command == ["wrap"] ? 0 : 5), "\(command): \(run.code)\n\(run.stderr)")
      // verify prints each archive's result, the reason too, on stdout.
      let said = run.stdout + run.stderr
      #expect(
        said.contains(Self.name) && said.contains("made by a newer SaveVault (format 3)")
          && said.contains("update SaveVault to read it"), "\(command): \(said)")
      #expect(tree(box.save) == before, "\(command) changed the save")
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: box.path("saves")).sorted() == parent,
        "\(command) left something beside the save")
    }
    let list = try await box.ok(["list", "--json"] + box.target())
    #expect(list.stdout.contains(Self.name), "\(list.stdout)")
    let status = try await box.runAwaiting(["status", "--json"] + box.target())
    #expect(status.code == 0, "\(status.code): \(status.stderr)")
    #expect((try? jsonObject(status.stdout))?["state"] != nil, "\(status.stdout)")
  }

  @Test("a newer format whose minReader this SaveVault meets is read, its unknown fields ignored")
  func readable() async throws {
    let box = try await Self.world("newer-readable", #"{"format": 3, "minReader": 2, "palette": ["teal"]}"#)
    let verify = try await box.runAwaiting(["verify", "--latest"] + box.target())
    #expect(verify.code == 0, "\(verify.stderr)")
    let restore = try await box.runAwaiting(["restore", "--latest"] + box.target())
    #expect(restore.code == 0, "\(restore.stderr)")
    #expect(text(box.save + "/slot1.sav") == "chapter 3", "the newer archive's save")
  }
}
