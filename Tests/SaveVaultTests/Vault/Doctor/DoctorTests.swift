import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

// `savevault doctor` through the built binary, against real folders, `rclone serve s3` with
// an auth key, a dead endpoint and an rclone remote; and the containers' write check, which
// must leave nothing behind.

/// The checks of `doctor --json`, and the one of `kind` (and subject) with its status.
private func checks(_ output: String) throws -> [[String: Any]] {
  let value = try JSONSerialization.jsonObject(with: Data(output.utf8))
  return try #require(value as? [[String: Any]], "doctor --json is not a list: \(output)")
}

private func status(_ list: [[String: Any]], _ kind: String) -> [String] {
  list.filter { $0["check"] as? String == kind }.compactMap { $0["status"] as? String }
}

/// Every file and folder under `root`, relative.
private func everything(_ root: String) -> [String] {
  (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).sorted()
}

@Suite("Doctor: savevault doctor through the binary", .tags(.large))
struct DoctorTests {
  /// The shared `rclone serve s3` server and a new bucket on it.
  private func newBucket() throws -> (S3TestServer, String) {
    let server = try #require(S3TestServer.shared(.rclone), "the rclone S3 server did not start")
    let bucket = "doctor" + UUID().uuidString.lowercased().prefix(8)
    _ = try server.container(bucket: bucket)
    return (server, bucket)
  }

  /// A config with one game whose save exists, in a folder container that exists.
  private func healthyBox(_ label: String) throws -> Sandbox {
    let box = try Sandbox("doctor-\(label)", device: "deck")
    try makeDirectory(box.path("container"))
    try writeFile(box.path("saves/celeste/slot1.sav"), "chapter 3\n")
    try writeConfig(box, games: ["celeste": box.path("saves/celeste")])
    return box
  }

  private func writeConfig(
    _ box: Sandbox, games: [String: String], container: String? = nil, extra: String = ""
  )
    throws
  {
    let entries = games.map { "\"\($0.key)\": {\"saveDir\": \"\($0.value)\"}" }.joined(separator: ", ")
    try writeFile(
      box.home + "/.config/savevault/config.json",
      "{\(extra)\"container\": \"\(container ?? box.path("container"))\", \"games\": {\(entries)}}")
  }

  @Test("a healthy setup passes with exit 0 and leaves no probe object in the container")
  func healthy() async throws {
    let box = try healthyBox("healthy")
    let text = try await box.runAwaiting(["doctor"])
    #expect(text.code == 0, "doctor: exit \(text.code)\n\(text.stdout)\(text.stderr)")
    #expect(text.stdout.contains("Everything is ready."), "\(text.stdout)")
    #expect(!text.stdout.contains("\u{1B}["), "colour on a pipe: \(text.stdout)")
    let json = try await box.runAwaiting(["doctor", "--json"])
    #expect(json.code == 0)
    let list = try checks(json.stdout)
    #expect(status(list, "config") == ["ok"])
    #expect(status(list, "container") == ["ok"])
    #expect(status(list, "save-dir") == ["ok"])
    #expect(list.allSatisfy { $0["status"] as? String == "ok" && $0["exitCode"] == nil }, "\(json.stdout)")
    #expect(everything(box.path("container")) == [], "left in the container")
  }

  @Test("a missing save directory is a problem, exit 1, with the path and a fix")
  func missingSaveDirectory() async throws {
    let box = try healthyBox("missing-save")
    try writeConfig(box, games: ["celeste": box.path("saves/celeste"), "hk": box.path("saves/hollow")])
    let result = try await box.runAwaiting(["doctor", "--json"])
    #expect(result.code == 1, "doctor: exit \(result.code)\n\(result.stdout)\(result.stderr)")
    let problem = try #require(try checks(result.stdout).first { $0["status"] as? String == "problem" })
    #expect(problem["check"] as? String == "save-dir")
    #expect(problem["subject"] as? String == "hk")
    #expect((problem["message"] as? String)?.contains(box.path("saves/hollow")) == true)
    #expect(problem["fix"] is String)
    #expect(integer(problem["exitCode"]) == 1)
    // Naming the healthy game checks only that one.
    #expect(try await box.runAwaiting(["doctor", "--game", "celeste"]).code == 0)
    let text = try await box.runAwaiting(["doctor", "--game", "hk"])
    #expect(text.code == 1)
    #expect(text.stdout.contains("problem  save-dir     hk: '\(box.path("saves/hollow"))' does not exist"))
    #expect(text.stdout.contains("fix: "))
  }

  @Test("a missing folder container is a problem, exit 4, never created")
  func missingFolder() async throws {
    let box = try healthyBox("missing-folder")
    let result = try await box.runAwaiting(["doctor", "--container", box.path("unmounted/nas")])
    #expect(result.code == 4, "doctor: exit \(result.code)\n\(result.stdout)")
    #expect(result.stdout.contains("problem  container"), "\(result.stdout)")
    #expect(result.stdout.contains("does not exist: mount the drive it is on"))
    #expect(!FileManager.default.fileExists(atPath: box.path("unmounted")))
  }

  @Test("a dead S3 endpoint is a problem, exit 4")
  func deadEndpoint() async throws {
    let box = try healthyBox("dead-s3")
    let port = S3TestServer.freePort()
    let result = try await box.runAwaiting(
      ["doctor", "--json", "--container", "s3://saves/deck"],
      environment: [
        "AWS_ACCESS_KEY_ID": "AKIAEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret",
        "AWS_ENDPOINT_URL": "http://127.0.0.1:\(port)",
      ])
    #expect(result.code == 4, "doctor: exit \(result.code)\n\(result.stdout)")
    let list = try checks(result.stdout)
    #expect(status(list, "container") == ["problem"])
    let problem = try #require(list.first { $0["check"] as? String == "container" })
    #expect((problem["message"] as? String)?.contains("cannot reach http://127.0.0.1:\(port)") == true)
    #expect(integer(problem["exitCode"]) == 4)
  }

  @Test("refused S3 credentials are a credentials problem, exit 4; missing ones exit 2")
  func wrongCredentials() async throws {
    let (server, bucket) = try newBucket()
    let box = try healthyBox("bad-credentials")
    let arguments = ["doctor", "--json", "--container", "s3://\(bucket)/deck"]
    var environment = server.environment()
    environment["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
    let refused = try await box.runAwaiting(arguments, environment: environment)
    #expect(refused.code == 4, "doctor: exit \(refused.code)\n\(refused.stdout)")
    let list = try checks(refused.stdout)
    #expect(status(list, "credentials") == ["problem"])
    let problem = try #require(list.first { $0["check"] as? String == "credentials" })
    #expect((problem["message"] as? String)?.contains("refused the signature") == true, "\(problem)")

    let missing = try await box.runAwaiting(arguments, environment: ["AWS_ENDPOINT_URL": server.endpoint])
    #expect(missing.code == 2, "doctor: exit \(missing.code)\n\(missing.stdout)")
    #expect(status(try checks(missing.stdout), "credentials") == ["problem"])
  }

  @Test("a healthy S3 bucket: credentials accepted, clock checked, probe removed")
  func healthyS3() async throws {
    let (server, bucket) = try newBucket()
    let box = try healthyBox("healthy-s3")
    let result = try await box.runAwaiting(
      ["doctor", "--json", "--container", "s3://\(bucket)/deck"], environment: server.environment())
    #expect(result.code == 0, "doctor: exit \(result.code)\n\(result.stdout)")
    let list = try checks(result.stdout)
    #expect(status(list, "credentials") == ["ok"])
    #expect(status(list, "container") == ["ok"])
    #expect(status(list, "clock") == ["ok"], "\(result.stdout)")
    // rclone serve s3 keeps objects as files under its root: nothing of the probe is left.
    #expect(everything(server.root + "/" + bucket) == [], "left in the bucket")
  }

  @Test("an rclone remote: rclone found, the remote writable, the probe removed")
  func rcloneRemote() async throws {
    let box = try healthyBox("rclone")
    try makeDirectory(box.path("remote"))
    let result = try await box.runAwaiting(
      ["doctor", "--container", "rclone:testlocal:" + box.path("remote")],
      environment: ["RCLONE_CONFIG": RcloneTestRemote.config])
    #expect(result.code == 0, "doctor: exit \(result.code)\n\(result.stdout)")
    #expect(result.stdout.contains("ok       rclone"), "\(result.stdout)")
    #expect(everything(box.path("remote")) == [], "left on the remote")
    let noRclone = try await box.runAwaiting(
      ["doctor", "--container", "rclone:testlocal:" + box.path("remote")],
      environment: ["RCLONE_CONFIG": RcloneTestRemote.config, "PATH": "/nonexistent"])
    #expect(noRclone.code == 2, "doctor: exit \(noRclone.code)\n\(noRclone.stdout)")
    #expect(noRclone.stdout.contains("problem  rclone"))
  }

  @Test("config: a misspelt key is a warning (exit 0), a broken file a problem (exit 2)")
  func config() async throws {
    let box = try healthyBox("config")
    try writeConfig(box, games: ["celeste": box.path("saves/celeste")], extra: "\"devise\": \"deck\", ")
    let warned = try await box.runAwaiting(["doctor", "--json"])
    #expect(warned.code == 0, "doctor: exit \(warned.code)\n\(warned.stdout)")
    let warning = try #require(try checks(warned.stdout).first { $0["status"] as? String == "warning" })
    #expect((warning["message"] as? String)?.contains("'devise'") == true)
    try writeFile(box.home + "/.config/savevault/config.json", "{\"games\": ")
    let broken = try await box.runAwaiting(["doctor"])
    #expect(broken.code == 2, "doctor: exit \(broken.code)\n\(broken.stdout)")
    #expect(broken.stdout.contains("problem  config"))
  }

  @Test("a desktop session without zenity or kdialog is a warning; with zenity, ok")
  func dialog() async throws {
    let box = try healthyBox("dialog")
    let bare = try await box.runAwaiting(
      ["doctor", "--json"], environment: ["DISPLAY": ":99", "PATH": "/nonexistent"])
    #expect(bare.code == 0)
    #expect(status(try checks(bare.stdout), "dialog") == ["warning"], "\(bare.stdout)")
    let zenity = try #require(which("zenity"), "zenity is not installed (scripts/install-deps.sh --test)")
    let folder = (zenity as NSString).deletingLastPathComponent
    let found = try await box.runAwaiting(
      ["doctor", "--json"], environment: ["DISPLAY": ":99", "PATH": folder])
    let line = try #require(try checks(found.stdout).first { $0["check"] as? String == "dialog" })
    #expect(line["status"] as? String == "ok")
    #expect((line["message"] as? String)?.contains("zenity") == true)
    let none = try await box.runAwaiting(["doctor", "--json"])
    #expect((try checks(none.stdout).last?["message"] as? String)?.contains("terminal") == true)
  }

  @Test("a clock 7 minutes ahead of the S3 server's is a warning that says by how much")
  func clockAhead() throws {
    let (server, bucket) = try newBucket()
    let dir = TemporaryDirectory("doctor-clock")
    try writeFile(dir.sub("save/slot"), "x")
    var context = testContext(home: dir.path, environment: server.environment())
    context.clock = { Int64(Date().timeIntervalSince1970 * 1000) + 7 * 60_000 }
    let vault = try Vault(context: context)
    let found = vault.doctor(TargetRequest(saveDirectory: dir.sub("save"), containerURL: "s3://\(bucket)/p"))
    let clock = try #require(found.first { $0.check == "clock" }, "\(found)")
    #expect(clock.status == .warning, "\(clock)")
    #expect(clock.message.contains("7 minutes ahead of"), "\(clock.message)")
  }

  /// A clock a day off, which every S3 request then fails with (RequestTimeTooSkewed, exit 4),
  /// is a problem for doctor too, with the same exit code, whether this server refuses such
  /// requests (rclone) or not (moto; Amazon's S3 and most others do).
  @Test(
    "a clock a day ahead of the S3 server's is a problem, exit 4, naming the fix",
    arguments: S3TestServer.Kind.allCases)
  func clockADayOff(_ kind: S3TestServer.Kind) async throws {
    // libfaketime's wrapper: the program it runs sees the clock a day ahead.
    let faketime = try #require(which("faketime"), "faketime is needed: scripts/install-deps.sh --test")
    let server = try #require(S3TestServer.shared(kind), "the \(kind) S3 server did not start")
    let bucket = "clock" + UUID().uuidString.lowercased().prefix(8)
    _ = try server.container(bucket: bucket)
    let box = try healthyBox("clock-\(kind)")
    let result = try await runProgramAwaiting(
      faketime, ["-f", "+1d", savevaultBinary, "doctor", "--json", "--container", "s3://\(bucket)/deck"],
      environment: box.environment(server.environment()), currentDirectory: box.dir.path)
    #expect(result.code == 4, "doctor: exit \(result.code)\n\(result.stdout)")
    let clock = try #require(
      try checks(result.stdout).first { $0["check"] as? String == "clock" }, "\(result.stdout)")
    #expect(clock["status"] as? String == "problem", "\(clock)")
    #expect((clock["message"] as? String)?.contains("1440 minutes ahead of") == true, "\(clock)")
    #expect((clock["fix"] as? String)?.contains("timedatectl set-ntp true") == true, "\(clock)")
  }

  @Test("a measured offset is rounded: a second short of 7 minutes is 7 minutes, not 6")
  func clockRounding() {
    let cases: [(Int64, DoctorCheck.Status, String)] = [
      (419_200, .warning, "7 minutes ahead of"), (420_900, .warning, "7 minutes ahead of"),
      (-419_600, .warning, "7 minutes behind"), (299_000, .ok, "within 5 minutes"),
      (59_700, .ok, "within 60 seconds"), (800, .ok, "within a second"),
    ]
    for (offset, status, words) in cases {
      let check = Vault.clockCheck("s3://b/p", offsetMs: offset)
      #expect(check.status == status, "\(offset): \(check)")
      #expect(check.message.contains(words), "\(offset): \(check.message)")
    }
  }
}

@Suite("Container write check", .tags(.small))
struct ContainerWriteCheckTests {
  @Test("checkWritable writes and removes its probe, leaving nothing", arguments: ContainerFixture.all)
  func leavesNothing(fixture: ContainerFixture) throws {
    let dir = TemporaryDirectory("writecheck")
    let container = try fixture.make(dir)
    _ = try container.checkWritable()
    switch container {
    case let folder as FolderContainer: #expect(everything(folder.root) == [])
    case is RcloneContainer: #expect(everything(dir.sub("remote")) == [])
    case let s3 as S3Container:
      let listing = try s3.client.request("GET", key: nil, query: [("list-type", "2")])
      #expect(listing.status == 200)
      #expect(!String(decoding: listing.body, as: UTF8.self).contains("<Key>"), "objects left in the bucket")
    case let memory as MemoryContainer: #expect(memory.fileCount == 0)
    default: Issue.record("no way to look inside \(container.displayName)")
    }
    #expect(try container.list(game: "g").isEmpty)
  }

  @Test("an unreachable container fails the check as unavailable", arguments: ContainerFixture.all)
  func unavailable(fixture: ContainerFixture) throws {
    let dir = TemporaryDirectory("writecheck")
    let container = try fixture.makeUnavailable(dir)
    #expect {
      _ = try container.checkWritable()
    } throws: { error in
      if case .unavailable = error as? ContainerError { return true }
      return false
    }
  }

  @Test("the embedded default folder, not made yet, is checked through its parent and not created")
  func embeddedDefault() throws {
    let dir = TemporaryDirectory("writecheck")
    let future = FolderContainer(root: dir.sub("data/savevault/container"), createsRoot: true)
    _ = try future.checkWritable()
    #expect(!FileManager.default.fileExists(atPath: dir.sub("data")), "the check created the default folder")
  }
}
