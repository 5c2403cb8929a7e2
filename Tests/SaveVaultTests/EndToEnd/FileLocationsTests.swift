import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// Locations of files, as most of the manifest's games name their saves (`<base>/options.ron`,
/// `.../SaveGames/*.sav`, `profiles/**/general.opt`), through the built binary: the archive
/// holds the matching files only, a restore puts back and moves away matching files only and
/// never replaces the folder that holds them (often the game's install folder), everything it
/// moves is kept, and a kill between two files is finished by the next command.
@Suite("File locations: a save of some files in a folder", .tags(.large))
struct FileLocationsTests {
  /// A sandbox whose game `files` keeps `*.sav` and `options.ron` in an install folder, and
  /// `general.opt` anywhere under its `profiles`; the install folder holds the game too.
  static func world(_ label: String) throws -> Sandbox {
    let sandbox = try Sandbox("file-locations-\(label)")
    let install = sandbox.path("install")
    try writeFile(install + "/bin/game.exe", "the game\n")
    try writeFile(install + "/readme.txt", "not a save\n")
    try writeFile(install + "/slot1.sav", "slot one\n")
    try writeFile(install + "/slot2.sav", "slot two\n")
    try writeFile(install + "/options.ron", "volume: 3\n")
    try writeFile(install + "/profiles/alice/general.opt", "alice\n")
    let config: [String: Any] = [
      "container": sandbox.cloud,
      "games": [
        "files": [
          "locations": [install + "/*.sav", install + "/options.ron", install + "/profiles/**/general.opt"]
        ]
      ],
    ]
    try makeDirectory((sandbox.config as NSString).deletingLastPathComponent)
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: sandbox.config))
    return sandbox
  }

  /// The staging and set-aside folders a restore left beside the install folder.
  static func leftovers(_ sandbox: Sandbox) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: sandbox.path("")).filter {
      $0.hasPrefix(".savevault-")
    }
  }

  /// The archive's member names, SaveVault's own left out, as GNU tar and Python list them.
  static func members(_ sandbox: Sandbox) async throws -> [String] {
    let archive = sandbox.cloud + "/files/" + (try #require(sandbox.archives("files").last))
    let gnu = try await runProgramAwaiting("/bin/tar", ["--quoting-style=literal", "-tf", archive])
    let python = try await runProgramAwaiting(
      "/usr/bin/python3",
      ["-c", "import sys, tarfile; print('\\n'.join(tarfile.open(sys.argv[1]).getnames()))", archive])
    let names = { (text: String) in
      text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix(".savevault") }
    }
    #expect(names(gnu.stdout) == names(python.stdout), "GNU tar and Python read the same names")
    return names(gnu.stdout).sorted()
  }

  @Test(
    "the archive holds the matching files only; a restore puts them back, moves new matching files away, and leaves the folder and the game alone"
  )
  func roundTrip() async throws {
    let sandbox = try Self.world("round-trip")
    let install = sandbox.path("install")
    try await sandbox.ok(["backup", "--game", "files"])
    #expect(
      try await Self.members(sandbox) == [
        "1-install/slot1.sav", "1-install/slot2.sav", "2-install/options.ron", "3-profiles/alice/general.opt",
      ])
    let folder = try #require(
      try? FileManager.default.attributesOfItem(atPath: install)[.systemFileNumber] as? Int)
    try writeFile(install + "/slot1.sav", "slot one, played on\n")
    try writeFile(install + "/slot3.sav", "a new slot\n")
    try writeFile(install + "/readme.txt", "changed, not a save\n")
    try writeFile(install + "/profiles/bob/general.opt", "bob\n")
    #expect(try await sandbox.state(["--game", "files"]) == "local-changed", "a matching file changed")

    try await sandbox.ok(["restore", "--game", "files", "--latest"])
    #expect(text(install + "/slot1.sav") == "slot one\n")
    #expect(
      !FileManager.default.fileExists(atPath: install + "/slot3.sav"),
      "a slot the archive lacks is moved away")
    #expect(!FileManager.default.fileExists(atPath: install + "/profiles/bob/general.opt"))
    #expect(text(install + "/readme.txt") == "changed, not a save\n", "what the pattern does not name stays")
    #expect(text(install + "/bin/game.exe") == "the game\n")
    #expect(
      (try? FileManager.default.attributesOfItem(atPath: install)[.systemFileNumber] as? Int) == folder,
      "the install folder is never replaced")
    #expect(try await sandbox.state(["--game", "files"]) == "in-sync")

    // Everything moved is in the pre-restore copy, and undo puts it back.
    try await sandbox.ok(["restore", "--game", "files", "--undo"])
    #expect(text(install + "/slot1.sav") == "slot one, played on\n")
    #expect(text(install + "/slot3.sav") == "a new slot\n")
    #expect(text(install + "/profiles/bob/general.opt") == "bob\n")
    #expect(text(install + "/readme.txt") == "changed, not a save\n")
  }

  @Test(
    "a restore killed between two files (setting them aside, or putting them in) is finished by the next command: every file old or new, the old ones kept",
    arguments: [
      ("restore.aside-files", 1), ("restore.aside-files", 3), ("restore.between-files", 1),
      ("restore.between-files", 3),
    ])
  func killedBetweenFiles(at failpoint: String, file: Int) async throws {
    let sandbox = try Self.world("killed-\(failpoint)-\(file)")
    let install = sandbox.path("install")
    try await sandbox.ok(["backup", "--game", "files"])
    try writeFile(install + "/slot1.sav", "slot one, played on\n")
    try writeFile(install + "/slot2.sav", "slot two, played on\n")
    try writeFile(install + "/slot3.sav", "a new slot\n")
    let killed = try await sandbox.runAwaiting(
      ["restore", "--game", "files", "--latest"],
      environment: ["SAVEVAULT_FAILPOINTS": "\(failpoint)=kill@\(file)"])
    #expect(
      killed.code == 128 + SIGKILL || killed.code == -SIGKILL || killed.code == 9,
      "killed: \(killed.code) \(killed.stderr)")
    // The next command finishes the restore.
    let status = try await sandbox.runAwaiting(["status", "--game", "files", "--json"])
    #expect(status.code == 0, "\(status.stderr)")
    #expect(try jsonObject(status.stdout)["state"] as? String == "in-sync", "\(status.stdout)")
    #expect(text(install + "/slot1.sav") == "slot one\n")
    #expect(text(install + "/slot2.sav") == "slot two\n")
    #expect(!FileManager.default.fileExists(atPath: install + "/slot3.sav"))
    #expect(text(install + "/bin/game.exe") == "the game\n")
    // No staging or set-aside folder is left, and the played-on save is in the pre-restore copy.
    let leftovers = try Self.leftovers(sandbox)
    #expect(leftovers.isEmpty, "\(leftovers)")
    try await sandbox.ok(["restore", "--game", "files", "--undo"])
    #expect(text(install + "/slot1.sav") == "slot one, played on\n")
    #expect(text(install + "/slot3.sav") == "a new slot\n")
  }

  @Test(
    "a folder the glob names is kept whole, and a name with a backslash too: backed up, restored, undone (they were left out unsaid)"
  )
  func matchedFolderAndOddNames() async throws {
    let sandbox = try Self.world("matched-folder")
    let install = sandbox.path("install")
    // As `<home>/.config/com/lingtanstudio/starrysky*` names the folder `starrysky/`.
    try writeFile(install + "/world.sav/region1.dat", "region one\n")
    try writeFile(install + "/world.sav/deep/region2.dat", "region two\n")
    try writeFile(install + "/slot\\3.sav", "a Linux port's name\n")
    let backup = try await sandbox.ok(["backup", "--game", "files", "--json"])
    #expect(try jsonObject(backup.stdout)["files"] as? Int == 7, "\(backup.stdout)")
    let members = try await Self.members(sandbox)
    for name in ["world.sav/region1.dat", "world.sav/deep/region2.dat", "slot\\3.sav"] {
      #expect(members.contains { $0.hasSuffix("install/" + name) }, "\(name) in \(members)")
    }
    try writeFile(install + "/world.sav/region1.dat", "played on\n")
    try FileManager.default.removeItem(atPath: install + "/world.sav/deep")
    try writeFile(install + "/slot\\3.sav", "played on\n")
    #expect(try await sandbox.state(["--game", "files"]) == "local-changed")
    try await sandbox.ok(["restore", "--game", "files", "--latest"])
    #expect(text(install + "/world.sav/region1.dat") == "region one\n")
    #expect(text(install + "/world.sav/deep/region2.dat") == "region two\n")
    #expect(text(install + "/slot\\3.sav") == "a Linux port's name\n")
    #expect(text(install + "/readme.txt") == "not a save\n")
    try await sandbox.ok(["restore", "--game", "files", "--undo"])
    #expect(text(install + "/world.sav/region1.dat") == "played on\n")
    #expect(!FileManager.default.fileExists(atPath: install + "/world.sav/deep/region2.dat"))
    #expect(text(install + "/slot\\3.sav") == "played on\n")
  }

  @Test(
    "two globs of one game over one folder (`**/*.sav` and `*.sav`, as a real manifest entry has): each file stored once, and undo gives back the player's"
  )
  func overlappingGlobs() async throws {
    let sandbox = try Sandbox("file-locations-overlapping")
    let saves = sandbox.path("Saves/ZOG/Hercules4CE")
    try writeFile(saves + "/top.sav", "top\n")
    try writeFile(saves + "/Profiles/Player1.sav", "player one\n")
    let config: [String: Any] = [
      "container": sandbox.cloud,
      "games": ["hercules": ["locations": [saves + "/**/*.sav", saves + "/*.sav"]]],
    ]
    try makeDirectory((sandbox.config as NSString).deletingLastPathComponent)
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: sandbox.config))
    try await sandbox.ok(["backup", "--game", "hercules"])
    let archive = sandbox.cloud + "/hercules/" + (try #require(sandbox.archives("hercules").last))
    let listed = try await runProgramAwaiting("/bin/tar", ["-tf", archive]).stdout
    #expect(listed.split(separator: "\n").filter { $0.hasSuffix("/top.sav") }.count == 1, "\(listed)")
    try writeFile(saves + "/top.sav", "PLAYER-PROGRESS\n")
    try await sandbox.ok(["restore", "--game", "hercules", "--latest"])
    #expect(text(saves + "/top.sav") == "top\n")
    #expect(text(saves + "/Profiles/Player1.sav") == "player one\n")
    #expect(try await sandbox.state(["--game", "hercules"]) == "in-sync")
    try await sandbox.ok(["restore", "--game", "hercules", "--undo"])
    #expect(text(saves + "/top.sav") == "PLAYER-PROGRESS\n")
  }

  @Test("a folder named like a slot, where the archive puts that slot, is moved aside whole and kept")
  func folderInTheWayIsKept() async throws {
    let sandbox = try Self.world("folder-in-the-way")
    let install = sandbox.path("install")
    try await sandbox.ok(["backup", "--game", "files"])
    try FileManager.default.removeItem(atPath: install + "/slot2.sav")
    try writeFile(install + "/slot2.sav/mod.txt", "a mod the player made\n")
    try await sandbox.ok(["restore", "--game", "files", "--latest"])
    #expect(text(install + "/slot2.sav") == "slot two\n")
    // The folder is in the pre-restore copy, which any tar reads back.
    let listed = try await sandbox.ok(["list", "--pre-restore", "--game", "files", "--json"])
    let copies = try jsonObject(listed.stdout)["copies"] as? [[String: Any]] ?? []
    let path = try #require(copies.first?["path"] as? String, "\(listed.stdout)")
    let read = try await runProgramAwaiting("/bin/tar", ["-xOf", path, "1-install/slot2.sav/mod.txt"])
    #expect(read.stdout == "a mod the player made\n", "the folder was kept: \(read.stderr)")
    // And undo puts it back (it refused that copy as holding a file the pattern does not name).
    try await sandbox.ok(["restore", "--game", "files", "--undo"])
    #expect(text(install + "/slot2.sav/mod.txt") == "a mod the player made\n")
  }

  @Test(
    "a file where the archive needs a folder is refused before anything moves (exit 1), and nothing is left behind"
  )
  func fileInTheWayRefused() async throws {
    let sandbox = try Self.world("file-in-the-way")
    let install = sandbox.path("install")
    try writeFile(install + "/profiles/zed/deep/general.opt", "zed\n")
    try await sandbox.ok(["backup", "--game", "files"])
    try FileManager.default.removeItem(atPath: install + "/profiles/zed")
    try writeFile(install + "/profiles/zed", "not a folder\n")
    try writeFile(install + "/slot1.sav", "slot one, played on\n")
    let before = digestTree(install)
    let refused = try await sandbox.runAwaiting(["restore", "--game", "files", "--latest"])
    #expect(refused.code == 1 && refused.stderr.contains("in the way"), "\(refused.code): \(refused.stderr)")
    #expect(digestTree(install) == before, "nothing changed")
    let leftovers = try Self.leftovers(sandbox)
    #expect(leftovers.isEmpty, "\(leftovers)")
    #expect(try await sandbox.state(["--game", "files"]) == "local-changed")
  }

  @Test("an archive holding a file its location's pattern does not name is refused whole, nothing changed")
  func strayFileRefused() async throws {
    let sandbox = try Self.world("stray")
    let install = sandbox.path("install")
    try await sandbox.ok(["backup", "--game", "files"])
    let name = try #require(sandbox.archives("files").last)
    // The same archive with the game's program added under the location of `*.sav` files,
    // and in its manifest (so that it verifies).
    let script = """
      import hashlib, io, json, sys, tarfile
      source, target = sys.argv[1], sys.argv[2]
      data = b"not the game any more\\n"
      stray = "1-install/bin/game.exe"
      with tarfile.open(source) as old, tarfile.open(target, "w", format=tarfile.PAX_FORMAT) as new:
          for member in old.getmembers():
              if member.name == ".savevault/manifest.json":
                  manifest = json.load(old.extractfile(member))
                  continue
              new.addfile(member, old.extractfile(member) if member.isfile() else None)
          info = tarfile.TarInfo(stray)
          info.size, info.mode, info.mtime = len(data), 0o644, 1700000000
          new.addfile(info, io.BytesIO(data))
          manifest["entries"].append({"kind": "file", "path": stray, "size": len(data),
              "sha256": hashlib.sha256(data).hexdigest(), "mode": 0o644, "modifiedNs": 1700000000 * 10**9})
          manifest["entries"].sort(key=lambda e: e["path"].encode())
          lines = b""
          for e in manifest["entries"]:
              detail = (str(e["size"]) + "\\0" + e["sha256"]) if e["kind"] == "file" else e.get("target", "")
              lines += (e["kind"] + "\\0" + e["path"] + "\\0" + detail + "\\n").encode()
          manifest["contentDigest"] = hashlib.sha256(lines).hexdigest()
          manifest["files"] += 1
          manifest["bytes"] += len(data)
          text = json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode()
          info = tarfile.TarInfo(".savevault/manifest.json")
          info.size = len(text)
          new.addfile(info, io.BytesIO(text))
      """
    let crafted = name.replacingOccurrences(of: ".tar", with: "") + "1.tar"
    let made = try await runProgramAwaiting(
      "/usr/bin/python3",
      ["-c", script, sandbox.cloud + "/files/" + name, sandbox.cloud + "/files/" + crafted])
    try #require(made.code == 0, "\(made.stderr)")
    let before = digestTree(install)
    let refused = try await sandbox.runAwaiting(["restore", "--game", "files", "--archive", crafted])
    #expect(refused.code == 5, "refused: \(refused.code) \(refused.stderr)")
    #expect(refused.stderr.contains("is not one of the files"), "\(refused.stderr)")
    #expect(digestTree(install) == before, "nothing changed")
  }

  @Test("add --save-dir takes a file: the game is that one file, the folder's other files no part of it")
  func addAFile() async throws {
    let sandbox = try Sandbox("file-locations-add")
    let file = sandbox.path("game/settings.ini")
    try writeFile(file, "a=1\n")
    try writeFile(sandbox.path("game/other.bin"), "other\n")
    try await sandbox.ok(["add", "one-file", "--save-dir", file])
    try await sandbox.ok(["backup", "--game", "one-file"])
    try writeFile(sandbox.path("game/other.bin"), "changed, no part of the save\n")
    #expect(try await sandbox.state(["--game", "one-file"]) == "in-sync")
    try writeFile(file, "a=2\n")
    #expect(try await sandbox.state(["--game", "one-file"]) == "local-changed")
  }

  @Test(
    "two games whose globs may name the same files are refused as overlapping (exit 2); other files of one folder are not",
    arguments: [["slot*"], ["**/slot1.sav"], ["slot1.sav"]])
  func globsOverlap(other: [String]) async throws {
    let sandbox = try Self.world("overlap-\(other[0].count)")
    let install = sandbox.path("install")
    try await sandbox.ok(["backup", "--game", "files"])
    var config = try sandbox.configObject()
    var games = config["games"] as? [String: Any] ?? [:]
    games["other"] = ["locations": other.map { install + "/" + $0 }]
    games["readme"] = ["locations": [install + "/readme.txt"]]
    config["games"] = games
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: sandbox.config))
    let refused = try await sandbox.runAwaiting(["backup", "--game", "other"])
    #expect(refused.code == 2 && refused.stderr.contains("overlaps"), "\(refused.code): \(refused.stderr)")
    try await sandbox.ok(["backup", "--game", "readme"])
  }

  @Test("a matching file whose name is not UTF-8 is backed up and restored, byte for byte")
  func nonUTF8Name() async throws {
    let sandbox = try Self.world("non-utf8")
    let install = sandbox.path("install")
    let write = "import sys; open(sys.argv[1].encode() + b'/slot\\xff.sav', 'wb').write(sys.argv[2].encode())"
    let read = "import sys; print(open(sys.argv[1].encode() + b'/slot\\xff.sav', 'rb').read().decode())"
    try #require(
      try await runProgramAwaiting("/usr/bin/python3", ["-c", write, install, "raw name"]).code == 0)
    try await sandbox.ok(["backup", "--game", "files"])
    let archive = sandbox.cloud + "/files/" + (try #require(sandbox.archives("files").last))
    let listed = try await runProgramAwaiting(
      "/usr/bin/python3",
      [
        "-c",
        "import sys, tarfile; print([n for n in tarfile.open(sys.argv[1], encoding='utf-8', errors='surrogateescape').getnames() if 'slot' in n])",
        archive,
      ])
    #expect(listed.stdout.contains("slot\\udcff.sav"), "the archive holds it: \(listed.stdout)")
    try #require(
      try await runProgramAwaiting("/usr/bin/python3", ["-c", write, install, "played on"]).code == 0)
    try await sandbox.ok(["restore", "--game", "files", "--latest"])
    let back = try await runProgramAwaiting("/usr/bin/python3", ["-c", read, install])
    #expect(back.stdout == "raw name\n", "\(back.stdout) \(back.stderr)")
  }

  @Test("a location's one file missing on every device: a restore makes no folder where the game writes it")
  func missingFileMakesNoFolder() async throws {
    let sandbox = try Self.world("missing-file")
    let options = sandbox.path("install/options.ron")
    unlink(options)
    try await sandbox.ok(["backup", "--game", "files"])
    try writeFile(sandbox.path("install/slot1.sav"), "played since\n")
    try await sandbox.ok(["restore", "--game", "files", "--latest"])
    var info = stat()
    #expect(
      lstat(options, &info) != 0,
      "nothing where the game's options file goes (a folder made there: \(info.st_mode & S_IFMT == S_IFDIR))")
    #expect(text(sandbox.path("install/slot1.sav")) == "slot one\n")
    // The game writes its options file; the next commands take it as the save's.
    try writeFile(options, "volume: 9\n")
    let status = try jsonObject(await sandbox.ok(["status", "--game", "files", "--json"]).stdout)
    #expect(status["state"] as? String == "local-changed", "\(status)")
    try await sandbox.ok(["backup", "--game", "files"])
    #expect(try await Self.members(sandbox).contains { $0.hasSuffix("/options.ron") })
  }

  @Test("an empty save restored onto a device that has none of its locations is a save, in sync")
  func emptySaveRestored() async throws {
    let pc = try Sandbox("file-locations-empty")
    let deck = pc.device("deck")
    for device in [pc, deck] {
      let config: [String: Any] = [
        "container": pc.cloud,
        "games": ["g": ["locations": [device.home + "/Saves", device.home + "/install/options.ini"]]],
      ]
      try makeDirectory((device.config as NSString).deletingLastPathComponent)
      try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: device.config))
    }
    try await pc.ok(["backup", "--game", "g", "--force"])
    let sync = try jsonObject(await deck.ok(["sync", "--game", "g", "--json"]).stdout)
    #expect(sync["action"] as? String == "restored", "\(sync)")
    let status = try jsonObject(await deck.ok(["status", "--game", "g", "--json"]).stdout)
    #expect(status["state"] as? String == "in-sync", "\(status)")
  }

  @Test("a glob in the config keeps its pattern in the portable form; a literal name's wildcards are escaped")
  func globPortableForm() async throws {
    let sandbox = try Sandbox("file-locations-portable")
    let folder = sandbox.home + "/Games/Odd[1]"
    try writeFile(folder + "/slot1.sav", "one\n")
    let config: [String: Any] = [
      "container": sandbox.cloud, "games": ["odd": ["locations": [folder + "/*.sav"]]],
    ]
    try makeDirectory((sandbox.config as NSString).deletingLastPathComponent)
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: sandbox.config))
    let status = try jsonObject(await sandbox.ok(["status", "--game", "odd", "--json"]).stdout)
    let locations = try #require(status["locations"] as? [[String: Any]])
    #expect(locations.first?["portable"] as? String == "<home>/Games/Odd[[]1]/*.sav", "\(locations)")
  }

  @Test("a save directory that is a file is a location of that one file")
  func saveDirIsAFile() async throws {
    let sandbox = try Sandbox("file-locations-save-dir")
    let file = sandbox.path("game/settings.ini")
    try writeFile(file, "a=1\n")
    try writeFile(sandbox.path("game/other.txt"), "other\n")
    try await sandbox.ok(["backup", "--save-dir", file, "--game", "one-file"])
    try writeFile(file, "a=2\n")
    try await sandbox.ok(["restore", "--save-dir", file, "--game", "one-file", "--latest"])
    #expect(text(file) == "a=1\n")
    #expect(text(sandbox.path("game/other.txt")) == "other\n")
  }
}
