import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// verify, limits, disk space and live saves, through the built binary.
@Suite("Integrity", .tags(.large))
struct IntegrityTests {
  /// A private HOME (its config folder `<dir>/config`), the save `save` and a folder container.
  static func world() throws -> Sandbox {
    var sandbox = try Sandbox("integrity")
    sandbox.extra["XDG_CONFIG_HOME"] = sandbox.path("config")
    try writeFile(sandbox.save + "/slot.sav", "precious progress")
    try writeFile(sandbox.save + "/sub/options.ini", "volume=7")
    return sandbox
  }

  @Test("a large file restores byte for byte, and one flipped byte deep inside it is refused whole")
  func largeFileFlippedByte() async throws {
    let world = try Self.world()
    // 12 MiB: many 1 MiB blocks hashed on the second thread, and writeback started on the way.
    var generator = SplitMix64(seed: 7)
    let big = Data((0..<(12 << 20) / 8).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } })
    try writeFile(world.save + "/world.dat", big)
    try #require(try await world.runAwaiting(["backup"] + world.target()).code == 0)
    let saved = tree(world.save)
    try writeFile(world.save + "/world.dat", "replaced")
    let restored = try await world.runAwaiting(["restore", "--latest"] + world.target())
    #expect(restored.code == 0, "\(restored.stderr)")
    #expect(tree(world.save) == saved, "the large file did not come back byte for byte")

    let path = try #require(world.archives("game").last.map { world.cloud + "/game/" + $0 })
    // The digest hashed on the second thread is the file's real SHA-256 (coreutils agrees).
    let manifest = try await runProgramAwaiting(
      try #require(which("tar")), ["-xOf", path, ".savevault/manifest.json"])
    let sum = try await runProgramAwaiting(try #require(which("sha256sum")), [world.save + "/world.dat"])
    let digest = try #require(sum.stdout.split(separator: " ").first.map(String.init))
    #expect(manifest.stdout.contains("\"sha256\":\"\(digest)\""), "the manifest's digest is not sha256sum's")
    var data = try #require(FileManager.default.contents(atPath: path))
    let start = try #require(data.range(of: big.prefix(64)), "the file's bytes are not in the archive")
    data[start.lowerBound + (9 << 20) + 12345] ^= 0x01
    try data.write(to: URL(fileURLWithPath: path))
    try writeFile(world.save + "/world.dat", "local again")
    let before = tree(world.save)
    let refused = try await world.runAwaiting(["restore", "--latest"] + world.target())
    #expect(refused.code == 5, "a flipped byte was restored: exit \(refused.code), \(refused.stderr)")
    #expect(tree(world.save) == before, "a refused restore changed the save")
  }

  @Test("verify passes whole archives and names each one with a flipped byte", arguments: [0, 1, 2])
  func verifyFindsFlippedByte(damaged: Int) async throws {
    let world = try Self.world()
    for round in 0..<3 {
      try writeFile(world.save + "/slot.sav", "precious progress, round \(round)")
      try #require(try await world.runAwaiting(["backup"] + world.target()).code == 0)
    }
    let names = world.archives("game")
    try #require(names.count == 3)
    let clean = try await world.runAwaiting(["verify", "--all", "--json"] + world.target())
    #expect(clean.code == 0, "\(clean.stderr)")
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(clean.stdout.utf8)) as? [String: Any])
    let checks = try #require(report["archives"] as? [[String: Any]])
    #expect(
      checks.count == 3 && checks.allSatisfy { $0["ok"] as? Bool == true && $0["verified"] as? Bool == true })

    let path = world.cloud + "/game/" + names[damaged]
    var data = try #require(FileManager.default.contents(atPath: path))
    let content = try #require(data.range(of: Data("round \(damaged)".utf8)))
    data[content.lowerBound] ^= 0x20
    try data.write(to: URL(fileURLWithPath: path))
    let before = tree(world.save)

    let all = try await world.runAwaiting(["verify", "--all"] + world.target())
    #expect(all.code == 5)
    #expect(all.stderr.contains(names[damaged]), "stderr: \(all.stderr)")
    #expect(all.stdout.contains(names[damaged] + "  FAILED"), "stdout: \(all.stdout)")
    for (index, name) in names.enumerated() where index != damaged {
      #expect(all.stdout.contains(name + "  ok"), "stdout: \(all.stdout)")
    }
    let one = try await world.runAwaiting(["verify", "--archive", names[damaged]] + world.target())
    #expect(one.code == 5)
    let latest = try await world.runAwaiting(["verify", "--latest"] + world.target())
    #expect(latest.code == (damaged == 2 ? 5 : 0))
    #expect(tree(world.save) == before, "verify never touches the save directory")
    #expect(try await world.runAwaiting(["verify", "--all", "--latest"] + world.target()).code == 2)
  }

  @Test("a plain tar from another tool verifies on structure alone")
  func verifyPlainTar() async throws {
    let world = try Self.world()
    try makeDirectory(world.cloud + "/game")
    let name = "packsave-20261129T000000.000Z-othertool.tar"
    try #require(
      try await runProgramAwaiting(
        "/usr/bin/tar", ["-cf", world.cloud + "/game/" + name, "-C", world.save, "."]
      ).code == 0)
    let result = try await world.runAwaiting(["verify", "--latest"] + world.target())
    #expect(result.code == 0, "\(result.stderr)")
    #expect(result.stdout.contains("structure only"))
  }

  @Test("limits from the config file: a backup over them is refused, an archive over them too")
  func configuredLimits() async throws {
    let world = try Self.world()
    for index in 0..<8 { try writeFile(world.save + "/many/f\(index).sav", "x") }
    try #require(try await world.runAwaiting(["backup"] + world.target()).code == 0)
    try writeFile(world.dir.sub("config/savevault/config.json"), #"{"limits": {"maxEntries": 5}}"#)
    let backup = try await world.runAwaiting(["backup", "--force"] + world.target())
    #expect(backup.code == 1)
    #expect(backup.stderr.contains("more than SaveVault restores (5)"), "\(backup.stderr)")
    let before = tree(world.save)
    let restore = try await world.runAwaiting(["restore", "--latest"] + world.target())
    #expect(restore.code == 5, "\(restore.stderr)")
    #expect(restore.stderr.contains("more than 5 entries"), "\(restore.stderr)")
    #expect(tree(world.save) == before)
    try writeFile(world.dir.sub("config/savevault/config.json"), #"{"limits": {"maxEntries": 0}}"#)
    #expect(try await world.runAwaiting(["status"] + world.target()).code == 2)
  }

  @Test("an archive larger than the free space beside the save is refused before extracting")
  func freeSpace() async throws {
    try #require(getuid() == 0, "mounting a small filesystem needs root (CI runs as root)")
    let world = try Self.world()
    try writeFile(
      world.save + "/big.bin",
      Data((0..<(5 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }))
    try #require(try await world.runAwaiting(["backup"] + world.target()).code == 0)
    let small = world.dir.sub("small")
    try makeDirectory(small)
    #expect(
      try await runProgramAwaiting("/bin/mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", small]).code == 0)
    defer { unmountLazily(small) }
    let save = small + "/game"
    try writeFile(save + "/slot.sav", "the save on the small disk")
    let before = tree(save)
    let result = try await world.runAwaiting(
      ["restore", "--latest", "--game", "game", "--save-dir", save, "--container", world.cloud])
    #expect(result.code == 1, "\(result.stderr)")
    #expect(result.stderr.contains("nothing was restored"), "\(result.stderr)")
    #expect(tree(save) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: small) == ["game"], "no staging left behind")
  }

  /// Starts a game that rewrites `file` in place for `seconds`, alternating whole-file
  /// contents of A and B, pausing `pause` seconds between rewrites.
  func startWriter(_ file: String, size: Int, pause: Double, seconds: Double) throws -> SpawnedProgram {
    try SpawnedProgram(
      try #require(which("python3")),
      [
        "-c",
        """
        import sys, time
        path, size, pause, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
        end = time.time() + seconds
        letter = b"B"
        chunk = min(1 << 16, size // 4)  # several writes per rewrite, even for a small file
        while time.time() < end:
            with open(path, "r+b", buffering=0) as f:
                for offset in range(0, size, chunk):
                    f.write(letter * chunk)
            letter = b"A" if letter == b"B" else b"B"
            time.sleep(pause)
        """,
        file, String(size), String(pause), String(seconds),
      ], stdout: .discarded, stderr: .discarded)
  }

  @Test(
    "a file rewritten during backup never yields a torn archive: packed again, or refused clearly",
    // 4 MiB is streamed by the packer; 64 KiB is read ahead whole on the second thread.
    arguments: [(0.0, 4 << 20), (0.3, 4 << 20), (0.0, 64 << 10), (0.3, 64 << 10)])
  func liveSave(pause: Double, size: Int) async throws {
    let world = try Self.world()
    let file = world.save + "/live.sav"
    try writeFile(file, Data(repeating: UInt8(ascii: "A"), count: size))
    let writer = try startWriter(file, size: size, pause: pause, seconds: 30)
    // SIGKILL: the test runner's threads may block SIGTERM, and children inherit the mask.
    func stop() {
      kill(writer.processIdentifier, SIGKILL)
      writer.waitUntilExit()
    }
    defer { stop() }
    // Within the writer's 30 s: every backup runs while it rewrites the file.
    let outcomes = try withinWindow {
      var outcomes: [Int32] = []
      for _ in 0..<(pause == 0 ? 2 : 5) {
        let result = try world.run(["backup", "--force"] + world.target())
        outcomes.append(result.code)
        if result.code != 0 {
          #expect(result.code == 1)
          #expect(result.stderr.contains("kept changing"), "\(result.stderr)")
        }
      }
      stop()
      return outcomes
    }
    if pause > 0 {
      #expect(outcomes.contains(0), "with pauses between rewrites, packing again succeeds: \(outcomes)")
    }
    #expect(
      world.archives("game").count == outcomes.filter { $0 == 0 }.count, "failed backups leave nothing behind"
    )
    for name in world.archives("game") {
      let extracted = try await runProgramAwaiting(
        "/usr/bin/tar", ["-xOf", world.cloud + "/game/" + name, "live.sav"])
      #expect(extracted.stdout.utf8.count == size, "\(name): header size matches data")
      // The writer rewrites the file in place, a chunk at a time: paused between two chunks (a
      // busy machine), the file really holds the new letter up to a chunk boundary and the old
      // one after it, and a reader without a filesystem snapshot sees a state it held. A torn
      // copy is anything else: another size, or letters that switch off a chunk boundary.
      let bytes = Array(extracted.stdout.utf8)
      let chunk = min(1 << 16, size / 4)
      let switches = bytes.indices.dropFirst().filter { bytes[$0] != bytes[$0 - 1] }
      #expect(
        switches.count <= 1 && switches.allSatisfy { $0 % chunk == 0 },
        "\(name) holds a torn file: switches at \(switches.prefix(4))")
      #expect(try await world.runAwaiting(["verify", "--archive", name] + world.target()).code == 0)
    }
    #expect(
      ((try? FileManager.default.contentsOfDirectory(atPath: world.cloud + "/game")) ?? [])
        .allSatisfy { $0.hasPrefix("packsave-") })
  }

  @Test("an unreadable file fails the backup, naming it")
  func unreadableFile() async throws {
    let world = try Self.world()
    try writeFile(world.save + "/locked.sav", "secret", mode: 0o000)
    var result: RunResult
    if getuid() == 0 {
      // root reads everything: run as nobody, in folders nobody may use.
      chmod(world.dir.path, 0o777)
      for path in [world.dir.sub("saves"), world.save, world.save + "/sub", world.cloud] {
        chmod(path, 0o777)
      }
      chmod(world.save + "/slot.sav", 0o644)
      chmod(world.save + "/sub/options.ini", 0o644)
      try makeDirectory(world.dir.sub("nobody-home"))
      chmod(world.dir.sub("nobody-home"), 0o777)
      var environment = world.environment
      environment["HOME"] = world.dir.sub("nobody-home")
      let setpriv = try #require(which("setpriv"))
      result = try await runProgramAwaiting(
        setpriv,
        ["--reuid=65534", "--regid=65534", "--clear-groups", savevaultBinary, "backup"] + world.target(),
        environment: environment)
    } else {
      result = try await world.runAwaiting(["backup"] + world.target())
    }
    #expect(result.code == 1, "\(result.stderr)")
    #expect(result.stderr.contains(world.save + "/locked.sav"), "\(result.stderr)")
    #expect(world.archives("game").isEmpty)
  }
}
