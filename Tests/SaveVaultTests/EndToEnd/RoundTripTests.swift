import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

// The requests each command makes to a remote container, counted: every one is a round trip,
// which a distant server turns into waiting. The built binary talks to the two S3 servers of
// TestServers.swift through bench/latency_proxy.py (no delay: counts, not times), which logs
// each HTTP request; and to an rclone remote through an `rclone` first on PATH that logs each
// run. Each step's requests are compared, in order, with `Expected` below. A missing python3,
// rclone or server fails the test (never a silent skip).

@Suite("RoundTrips: the requests each command makes to a remote container", .tags(.large))
struct RoundTripTests {
  /// What each step may send, in one place. An S3 request is named by its method and the query
  /// that tells it apart: `LIST` (GET ?list-type=2), `LIST uploads` (GET ?uploads), `POST
  /// uploads` (starts a multipart upload), `PUT part` (?partNumber), `POST uploadId` (completes
  /// it), else the method alone. An rclone run is named by its subcommand.
  ///
  /// Every count is after one upload by the same device to the same container (the first upload
  /// to a container also checks once what the server can do). An upload is the listing and the
  /// PUT where the server honours If-None-Match (moto); `rclone serve s3` ignores it, so there a
  /// HEAD first checks that the new name is free, and one after it that no upload of the same
  /// name replaced it.
  enum Expected {
    static let statusInSync = ["LIST"]
    static let syncInSync = ["LIST"]
    static let wrapBeforeGame = ["LIST"]
    static let wrapAfterGame = ["LIST"]

    /// The listing and the PUT; where the server ignores `If-None-Match` (rclone serve s3), a
    /// HEAD before the PUT sees that the name is free, and one after it that it still holds
    /// this upload.
    static func upload(_ kind: S3TestServer.Kind) -> [String] {
      ["LIST"] + (kind == .rclone ? ["HEAD", "PUT", "HEAD"] : ["PUT"])
    }

    /// A HEAD on both: only a PUT's condition is checked, not CompleteMultipartUpload's.
    static func multipartUpload(_ kind: S3TestServer.Kind, parts: Int) -> [String] {
      ["LIST", "HEAD", "POST uploads"] + Array(repeating: "PUT part", count: parts) + [
        "POST uploadId"
      ]
    }

    static let rcloneStatusInSync = ["lsjson"]
    static let rcloneSyncInSync = ["lsjson"]
    static let rcloneUpload = ["lsjson", "copyto", "moveto"]
  }

  @Test(
    "S3: status, sync and wrap in sync, then a sync that uploads, make the expected requests",
    arguments: S3TestServer.Kind.allCases)
  func s3Steps(kind: S3TestServer.Kind) async throws {
    let server = try #require(S3TestServer.shared(kind), "the \(kind) S3 server did not start")
    let box = try Sandbox("roundtrip-\(kind)", device: "pc")
    let bucket = CloudEndToEndTests.newBucket()
    _ = try server.container(bucket: bucket, prefix: "saves")
    let proxy = try await LatencyProxy(in: box, to: server)
    let environment = server.environment().merging(["AWS_ENDPOINT_URL": proxy.endpoint]) { $1 }
    try writeFile(box.save + "/slot.sav", "level 1")
    let target = box.target("s3://\(bucket)/saves")

    try await warmUp(box, target, environment, proxy)

    var mark = proxy.requests().count
    let status = try await box.runAwaiting(["status", "--json"] + target, environment: environment)
    try #require(status.code == 0, "status: exit \(status.code), stderr: \(status.stderr)")
    #expect(try jsonObject(status.stdout)["state"] as? String == "in-sync", "status: \(status.stdout)")
    #expect(proxy.requests(since: mark) == Expected.statusInSync, "status in sync on \(kind)")

    mark = proxy.requests().count
    let sync = try await box.runAwaiting(["sync", "--json"] + target, environment: environment)
    try #require(sync.code == 0, "sync: exit \(sync.code), stderr: \(sync.stderr)")
    #expect(try jsonObject(sync.stdout)["action"] as? String == "none", "sync: \(sync.stdout)")
    #expect(proxy.requests(since: mark) == Expected.syncInSync, "sync in sync on \(kind)")

    // The game writes how many requests the log holds when it runs: before it, the rest after.
    mark = proxy.requests().count
    let atGame = box.path("requests-at-game")
    let game = ["sh", "-c", "wc -l < \"$0\" > \"$1\"", proxy.log, atGame]
    let wrap = try await box.runAwaiting(["wrap"] + target + ["--"] + game, environment: environment)
    try #require(wrap.code == 0, "wrap: exit \(wrap.code), stderr: \(wrap.stderr)")
    let split = try #require(
      text(atGame).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }, "the game did not run"
    )
    let wrapRequests = proxy.requests(since: mark)
    let beforeGame = Array(wrapRequests.prefix(split - mark))
    #expect(beforeGame == Expected.wrapBeforeGame, "wrap before the game on \(kind)")
    #expect(
      Array(wrapRequests.dropFirst(split - mark)) == Expected.wrapAfterGame, "wrap after the game on \(kind)")

    try writeFile(box.save + "/slot.sav", "level 2, changed")
    mark = proxy.requests().count
    let upload = try await box.runAwaiting(["sync", "--json"] + target, environment: environment)
    try #require(upload.code == 0, "sync: exit \(upload.code), stderr: \(upload.stderr)")
    #expect(try jsonObject(upload.stdout)["action"] as? String == "uploaded", "sync: \(upload.stdout)")
    #expect(proxy.requests(since: mark) == Expected.upload(kind), "sync that uploads on \(kind)")
  }

  @Test("S3: a multipart upload makes the expected requests", arguments: S3TestServer.Kind.allCases)
  func s3Multipart(kind: S3TestServer.Kind) async throws {
    let server = try #require(S3TestServer.shared(kind), "the \(kind) S3 server did not start")
    let box = try Sandbox("roundtrip-parts-\(kind)", device: "pc")
    let bucket = CloudEndToEndTests.newBucket()
    let check = try server.container(bucket: bucket, prefix: "saves")
    let proxy = try await LatencyProxy(in: box, to: server)
    let environment = server.environment().merging([
      "AWS_ENDPOINT_URL": proxy.endpoint, "SAVEVAULT_S3_PART_MIB": "5",
    ]) { $1 }
    try writeFile(box.save + "/slot.sav", "level 1")
    let target = box.target("s3://\(bucket)/saves")

    try await warmUp(box, target, environment, proxy)

    // 12 MiB of random bytes, which no compression shrinks below three parts.
    var generator = SplitMix64(seed: kind == .rclone ? 0x12_0001 : 0x12_0002)
    let words = (0..<(12 << 17)).map { _ in generator.next() }
    try writeFile(box.save + "/slot.sav", words.withUnsafeBytes { Data($0) })
    let mark = proxy.requests().count
    let upload = try await box.runAwaiting(["sync", "--json"] + target, environment: environment)
    try #require(upload.code == 0, "sync: exit \(upload.code), stderr: \(upload.stderr)")
    let archive = try #require(try jsonObject(upload.stdout)["archive"] as? String, "sync: \(upload.stdout)")
    let size = try #require(
      try check.list(game: "game").first { $0.name == archive }?.size, "\(archive) not stored")
    let parts = Int((size + (5 << 20) - 1) / (5 << 20))
    #expect(parts == 3, "a save of 12 MiB goes up in 3 parts of 5 MiB; the archive is \(size) bytes")
    #expect(
      proxy.requests(since: mark) == Expected.multipartUpload(kind, parts: parts),
      "multipart upload on \(kind)")
  }

  @Test("rclone remote: status and sync in sync, then a sync that uploads, run the expected rclone processes")
  func rcloneSteps() async throws {
    let real = try requiredProgram("rclone")
    let box = try Sandbox("roundtrip-rclone", device: "pc")
    let remote = box.path("remote")
    try makeDirectory(remote)
    // An `rclone` first on PATH that logs its arguments, one line per run, then runs rclone.
    let runs = box.path("rclone-runs.log")
    let bin = box.path("bin")
    try writeFile(
      bin + "/rclone",
      "#!/bin/sh\nprintf '%s\\n' \"$*\" >> \(shellQuoted(runs))\nexec \(shellQuoted(real)) \"$@\"\n",
      mode: 0o755)
    try writeFile(runs, "")
    let environment = [
      "RCLONE_CONFIG": RcloneTestRemote.config,
      "PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
    ]
    func subcommands(since mark: Int) -> [String] {
      lines(runs).dropFirst(mark).map { String($0.split(separator: " ").first ?? "") }
    }
    try writeFile(box.save + "/slot.sav", "level 1")
    let target = box.target("rclone:testlocal:" + remote)

    let warmUp = try await box.runAwaiting(["backup"] + target, environment: environment)
    try #require(warmUp.code == 0, "backup: exit \(warmUp.code), stderr: \(warmUp.stderr)")
    try #require(!lines(runs).isEmpty, "the binary did not run the logging rclone on PATH")

    var mark = lines(runs).count
    let status = try await box.runAwaiting(["status", "--json"] + target, environment: environment)
    try #require(status.code == 0, "status: exit \(status.code), stderr: \(status.stderr)")
    #expect(try jsonObject(status.stdout)["state"] as? String == "in-sync", "status: \(status.stdout)")
    #expect(subcommands(since: mark) == Expected.rcloneStatusInSync, "status in sync")

    mark = lines(runs).count
    let sync = try await box.runAwaiting(["sync", "--json"] + target, environment: environment)
    try #require(sync.code == 0, "sync: exit \(sync.code), stderr: \(sync.stderr)")
    #expect(try jsonObject(sync.stdout)["action"] as? String == "none", "sync: \(sync.stdout)")
    #expect(subcommands(since: mark) == Expected.rcloneSyncInSync, "sync in sync")

    try writeFile(box.save + "/slot.sav", "level 2, changed")
    mark = lines(runs).count
    let upload = try await box.runAwaiting(["sync", "--json"] + target, environment: environment)
    try #require(upload.code == 0, "sync: exit \(upload.code), stderr: \(upload.stderr)")
    #expect(try jsonObject(upload.stdout)["action"] as? String == "uploaded", "sync: \(upload.stdout)")
    #expect(subcommands(since: mark) == Expected.rcloneUpload, "sync that uploads")
  }
}

// MARK: - Helpers, inside the suite so that they never clash with other test files

extension RoundTripTests {
  /// The warm-up: one upload by this device to the container, whose requests are not counted.
  func warmUp(_ box: Sandbox, _ target: [String], _ environment: [String: String], _ proxy: LatencyProxy)
    async throws
  {
    let backup = try await box.runAwaiting(["backup"] + target, environment: environment)
    try #require(backup.code == 0, "backup: exit \(backup.code), stderr: \(backup.stderr)")
    try #require(!proxy.requests().isEmpty, "no request went through the proxy")
  }

  /// bench/latency_proxy.py in front of an S3 server, without delay, logging into the sandbox;
  /// stopped when the value goes away (and killed when the test process exits, if not before).
  final class LatencyProxy {
    let log: String
    let port: Int
    private let process: SpawnedProgram

    var endpoint: String { "http://127.0.0.1:\(port)" }

    init(in box: Sandbox, to server: S3TestServer) async throws {
      let python = try requiredProgram("python3")
      let script = repositoryRoot + "/bench/latency_proxy.py"
      log = box.path("requests.log")
      let errors = box.path("proxy-stderr.txt")
      try writeFile(log, "")
      try writeFile(errors, "")
      process = try SpawnedProgram(
        python,
        [
          script, "--listen-port", "0", "--target", "127.0.0.1:\(server.port)", "--delay-ms", "0", "--log",
          log,
        ],
        stderr: .file(errors))
      registerForExit(process.processIdentifier)
      // The first line is the port it listens on, printed once it listens.
      _ = await process.waitForOutputAwaiting(containing: "\n", timeout: 60)
      let line = process.stdout.prefix { $0 != "\n" }
      guard let port = Int(line) else {
        let said = text(errors) ?? ""
        kill(process.processIdentifier, SIGKILL)
        await process.waitAwaiting()
        unregisterForExit(process.processIdentifier)
        throw ProxyError(message: "\(script) did not start: \(said)")
      }
      self.port = port
    }

    deinit { stop() }

    /// Stops it with SIGTERM, as the bench does; a proxy that does not stop within 10 s is
    /// killed, and that is a failure.
    private func stop() {
      if process.isRunning {
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
          kill(process.processIdentifier, SIGKILL)
          Issue.record("the proxy did not stop on SIGTERM within 10 s")
        }
        process.waitUntilExit()
      }
      unregisterForExit(process.processIdentifier)
    }

    /// Every request logged so far, by name (see `Expected`).
    func requests() -> [String] { lines(log).map(Self.name) }

    /// The requests logged after the first `mark`.
    func requests(since mark: Int) -> [String] { Array(requests().dropFirst(mark)) }

    /// `GET /bucket?list-type=2&prefix=…` is `LIST`, and so on (see `Expected`).
    static func name(_ line: String) -> String {
      let method = String(line.split(separator: " ").first ?? "")
      let query = line.split(separator: "?", maxSplits: 1).dropFirst().first ?? ""
      let keys = Set(query.split(separator: "&").map { String($0.split(separator: "=").first ?? "") })
      switch method {
      case "GET" where keys.contains("list-type"): return "LIST"
      case "GET" where keys.contains("uploads"): return "LIST uploads"
      case "POST" where keys.contains("uploads"): return "POST uploads"
      case "POST" where keys.contains("uploadId"): return "POST uploadId"
      case "PUT" where keys.contains("partNumber"): return "PUT part"
      default: return method
      }
    }
  }

  struct ProxyError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
  }
}

/// The lines of a log file, [] when there is none.
private func lines(_ path: String) -> [String] {
  (text(path) ?? "").split(separator: "\n").map(String.init)
}
