import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `wrap` and `sync` through the built binary, as a launcher runs them: no terminal.
@Suite("Wrap around a game", .tags(.large))
struct WrapTests {
  /// One device with a private HOME, the save directory `save` and a folder container.
  static func device() throws -> Sandbox {
    let sandbox = try Sandbox("wrap")
    try writeFile(sandbox.save + "/slot.sav", "v1")
    return sandbox
  }

  enum ArchiveNameOrder {
    /// Archive names sort by time; the name itself is the key.
    static func key(_ name: String) -> String { name }
  }

  @Test("wrap passes the game's output and exit code through and uploads what the session changed")
  func exitCodeAndUpload() async throws {
    let device = try Self.device()
    try await device.runAwaiting(["sync"] + device.target())
    let game = "echo playing; echo v2 > \"$0/slot.sav\"; exit 7"
    let result = try await device.runAwaiting(
      ["wrap"] + device.target() + ["--", "/bin/sh", "-c", game, device.save])
    #expect(result.code == 7, "stderr: \(result.stderr)")
    #expect(result.stdout == "playing\n", "the game owns stdout")
    #expect(device.archives("game").count == 2)
    #expect(try await device.newestSlot() == "v2\n")
    #expect(result.stderr.contains("after the game"), "stderr: \(result.stderr)")
  }

  @Test("wrap --json writes one JSON object per phase on stderr")
  func jsonMessages() async throws {
    let device = try Self.device()
    let result = try await device.runAwaiting(
      ["wrap", "--json"] + device.target() + [
        "--", "/bin/sh", "-c", "echo v2 > \"$0/slot.sav\"", device.save,
      ])
    #expect(result.code == 0)
    let lines = result.stderr.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]
    }
    #expect(lines.map { $0["phase"] } == ["before", "after"])
    #expect(lines.first?["state"] == "cloud-empty" && lines.first?["action"] == "uploaded")
    #expect(lines.last?["state"] == "local-changed" && lines.last?["action"] == "uploaded")
  }

  @Test("SIGTERM to wrap reaches the game, and the session is still backed up")
  func forwardsSigterm() async throws {
    let device = try Self.device()
    let marker = device.dir.sub("got-term")
    let started = device.dir.sub("started")
    let game = """
      trap 'echo term > "$1"; exit 42' TERM
      echo v2 > "$0/slot.sav"
      touch "$2"
      while :; do sleep 0.05; done
      """
    let wrap = try device.start(
      ["wrap"] + device.target() + ["--", "/bin/sh", "-c", game, device.save, marker, started])
    withinWindow {
      #expect(device.waitFor(started), "the game never started")
      wrap.terminate()  // SIGTERM, as Steam does when the player quits from the overlay
    }
    await wrap.waitAwaiting()
    #expect(wrap.terminationStatus == 42, "wrap exits with the game's code")
    #expect(FileManager.default.fileExists(atPath: marker), "the game got SIGTERM")
    #expect(try await device.newestSlot() == "v2\n", "the session was uploaded after the game")
  }

  @Test("a wrap killed after the game saved is caught up at the next run: an upload, never a restore over it")
  func killedWrapCaughtUp() async throws {
    let device = try Self.device()
    try await device.runAwaiting(["sync"] + device.target())
    let saved = device.dir.sub("saved")
    let pidFile = device.dir.sub("game.pid")
    let game = "echo $$ > \"$2\"; echo progress > \"$0/slot.sav\"; touch \"$1\"; exec sleep 30"
    let wrap = try device.start(
      ["wrap"] + device.target() + ["--", "/bin/sh", "-c", game, device.save, saved, pidFile])
    withinWindow {
      #expect(device.waitFor(saved), "the game never saved")
      kill(wrap.processIdentifier, SIGKILL)
      // The orphaned game would keep Foundation's exit-watching descriptor open: end it first.
      if let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
        let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
      {
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
      }
    }
    await wrap.waitAwaiting()
    #expect(device.archives("game").count == 1, "the post-game backup never ran")

    let next = try await device.runAwaiting(["sync", "--json"] + device.target())
    #expect(next.code == 0, "stderr: \(next.stderr)")
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(next.stdout.utf8)) as? [String: Any])
    #expect(report["state"] as? String == "local-changed")
    #expect(report["action"] as? String == "uploaded")
    #expect(device.slot() == "progress\n")
    #expect(try await device.newestSlot() == "progress\n")
  }

  @Test("an unreachable container never blocks play: the session is kept and uploaded at the next run")
  func unreachableContainer() async throws {
    let device = try Self.device()
    try await device.runAwaiting(["sync"] + device.target())
    try FileManager.default.moveItem(atPath: device.cloud, toPath: device.dir.sub("unmounted"))
    let result = try await device.runAwaiting(
      ["wrap"] + device.target() + [
        "--", "/bin/sh", "-c", "echo offline > \"$0/slot.sav\"; exit 5", device.save,
      ])
    #expect(result.code == 5, "stderr: \(result.stderr)")
    #expect(result.stderr.contains("unavailable"), "stderr: \(result.stderr)")
    #expect(device.slot() == "offline\n")
    let pendingFolder = device.dir.sub("home/.local/share/savevault/pending/game")
    #expect(((try? FileManager.default.contentsOfDirectory(atPath: pendingFolder)) ?? []).count == 1)

    try FileManager.default.moveItem(atPath: device.dir.sub("unmounted"), toPath: device.cloud)
    let status = try await device.runAwaiting(["status", "--json"] + device.target())
    let pending = (try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?[
      "pending"]
    #expect((pending as? [String: Any])?["count"] as? Int == 1, "status shows the pending upload")
    let sync = try await device.runAwaiting(["sync"] + device.target())
    #expect(sync.code == 0, "stderr: \(sync.stderr)")
    #expect(try await device.newestSlot() == "offline\n")
    #expect(((try? FileManager.default.contentsOfDirectory(atPath: pendingFolder)) ?? []).isEmpty)
  }

  @Test("a game that cannot be started exits 127 and changes nothing")
  func cannotStart() async throws {
    let device = try Self.device()
    let result = try await device.runAwaiting(
      ["wrap"] + device.target() + ["--", "/nonexistent/game-binary"])
    #expect(result.code == 127, "stderr: \(result.stderr)")
    #expect(result.stderr.contains("cannot start"))
    let usage = try await device.runAwaiting(["wrap"] + device.target())
    #expect(usage.code == 2, "wrap without a command is a usage error")
  }

  @Test("two savevaults on one game: the second waits its turn, and both archives are whole")
  func twoProcesses() async throws {
    let device = try Self.device()
    let first = try device.start(["backup", "--force"] + device.target())
    let second = try device.start(["backup", "--force"] + device.target())
    await first.waitAwaiting()
    await second.waitAwaiting()
    #expect(first.terminationStatus == 0 && second.terminationStatus == 0)
    let archives = device.archives("game")
    #expect(archives.count == 2)
    for name in archives {
      let listing = try await runProgramAwaiting("/usr/bin/tar", ["-tf", device.cloud + "/game/" + name])
      #expect(listing.code == 0 && listing.stdout.contains(".savevault/manifest.json"), "\(name) is whole")
    }
    #expect(
      ((try? FileManager.default.contentsOfDirectory(atPath: device.cloud + "/game")) ?? [])
        .allSatisfy { $0.hasPrefix("packsave-") }, "no temporary files left")
  }

  @Test("with no wait allowed, the second one exits 6 naming the holder")
  func busyNamesHolder() async throws {
    let device = try Self.device()
    // Another savevault holds the lock and has written who it is.
    try makeDirectory(device.dir.sub("home/.local/state/savevault/locks"))
    let lockFile = device.dir.sub("home/.local/state/savevault/locks/game.lock")
    let flock = try #require(which("flock"))
    // It says so in a file once it holds the lock (up to a minute: on a loaded machine its
    // shell may take seconds to start).
    let taken = device.dir.sub("lock-taken")
    let sleeper = try SpawnedProgram(
      "/bin/sh",
      [
        "-c",
        "exec 9>>\"$1\" && \"$2\" -x 9 && echo 'pid 4242, savevault sync' >&9 && : > \"$3\" && exec sleep 600",
        "sh", lockFile, flock, taken,
      ])
    defer { sleeper.terminateAndWait() }
    let deadline = Date().addingTimeInterval(60)
    while !FileManager.default.fileExists(atPath: taken) && Date() < deadline {
      try? await Task.sleep(for: .milliseconds(20))
    }
    try #require(FileManager.default.fileExists(atPath: taken), "the lock holder never took the lock")
    var environment = device.environment
    environment["SAVEVAULT_LOCK_WAIT"] = "0.2"
    // Ungated, this and the probe above: they must run while the sleeper holds the lock.
    let result = try await runProgramAwaiting(
      savevaultBinary, ["backup"] + device.target(), environment: environment, gated: false)
    #expect(result.code == 6)
    #expect(result.stderr.contains("pid 4242, savevault sync"), "stderr: \(result.stderr)")
  }

  @Test("two devices through sync: upload, first restore, in-sync, local-changed, cloud-changed")
  func twoDevicesThroughSync() async throws {
    let pc = try Self.device()
    var deckEnvironment = pc.environment
    deckEnvironment["HOME"] = pc.dir.sub("deck-home")
    deckEnvironment["SAVEVAULT_DEVICE"] = "deck"
    let deckSave = pc.dir.sub("deck-saves/game")
    func deck(_ arguments: [String]) async throws -> [String: Any] {
      let result = try await runProgramAwaiting(
        savevaultBinary, ["sync", "--json", "--save-dir", deckSave, "--container", pc.cloud] + arguments,
        environment: deckEnvironment)
      #expect(result.code == 0, "deck: \(result.stderr)")
      return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }
    func pcSync() async throws -> [String: Any] {
      let result = try await pc.runAwaiting(["sync", "--json"] + pc.target())
      #expect(result.code == 0, "pc: \(result.stderr)")
      return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }
    func step(_ report: [String: Any], _ state: String, _ action: String) {
      #expect(report["state"] as? String == state && report["action"] as? String == action, "\(report)")
    }
    step(try await pcSync(), "cloud-empty", "uploaded")
    step(try await deck([]), "local-missing", "restored")
    #expect(try String(contentsOfFile: deckSave + "/slot.sav", encoding: .utf8) == "v1")
    step(try await deck([]), "in-sync", "none")
    try writeFile(deckSave + "/slot.sav", "deck v2")
    step(try await deck([]), "local-changed", "uploaded")
    step(try await pcSync(), "cloud-changed", "restored")
    #expect(pc.slot() == "deck v2")
    step(try await pcSync(), "in-sync", "none")
  }

  @Test(
    "with no target, backup, status and sync cover every configured game; one broken game does not stop the others"
  )
  func everyConfiguredGame() async throws {
    let device = try Self.device()
    try writeFile(device.dir.sub("saves/alpha/a.sav"), "alpha")
    try writeFile(device.dir.sub("saves/beta/b.sav"), "beta")
    let config = """
      {"container": "\(device.cloud)", "games": {
        "alpha": {"saveDir": "\(device.dir.sub("saves/alpha"))"},
        "beta": {"saveDir": "\(device.dir.sub("saves/beta"))"},
        "broken": {"saveDir": "\(device.dir.sub("saves/gamma"))", "container": "\(device.dir.sub("unmounted"))"}}}
      """
    try writeFile(device.dir.sub("config/savevault/config.json"), config)
    var environment = device.environment
    environment["XDG_CONFIG_HOME"] = device.dir.sub("config")
    let sync = try await runProgramAwaiting(savevaultBinary, ["sync", "--json"], environment: environment)
    #expect(sync.code == 4, "the broken game's container is unavailable: \(sync.stderr)")
    #expect(sync.stderr.contains("broken:"))
    let status = try await runProgramAwaiting(
      savevaultBinary, ["status", "--json"], environment: environment)
    #expect(status.code == 4)
    let list = try #require(
      try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
    #expect(list.map { $0["game"] as? String } == ["alpha", "beta"])
    #expect(list.allSatisfy { $0["state"] as? String == "in-sync" }, "sync uploaded both: \(status.stdout)")
    try writeFile(device.dir.sub("saves/beta/b.sav"), "beta, later")
    let backup = try await runProgramAwaiting(savevaultBinary, ["backup"], environment: environment)
    #expect(backup.code == 4)
    #expect(
      backup.stdout.contains("alpha is unchanged") && backup.stdout.contains("Backed up beta"),
      "\(backup.stdout)")
  }
}

extension Sandbox {
  /// slot.sav as stored in the newest archive.
  fileprivate func newestSlot() async throws -> String {
    let newest = try #require(
      archives("game").max { (WrapTests.ArchiveNameOrder.key($0)) < (WrapTests.ArchiveNameOrder.key($1)) })
    return try await runProgramAwaiting("/usr/bin/tar", ["-xOf", cloud + "/game/" + newest, "slot.sav"])
      .stdout
  }

  fileprivate func slot() -> String? { try? String(contentsOfFile: save + "/slot.sav", encoding: .utf8) }

  /// Polls for `path`, blocking: for a test's time window (`withinWindow`).
  fileprivate func waitFor(_ path: String, seconds: Double = 15) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if FileManager.default.fileExists(atPath: path) { return true }
      usleep(20_000)
    }
    return false
  }
}
