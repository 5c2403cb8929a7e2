import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// What containers remember or skip to save round trips, checked against the real servers:
/// the conditional-PUT check made once per server, the journal that gates the search for
/// abandoned multipart uploads, and rclone's upload with no look before or after.
@Suite("Fewer requests: what a container remembers and what it skips", .tags(.large))
struct FewerRequestsTests {
  /// A container on a fresh bucket of `kind`'s server, keeping its state in `dir`.
  func container(
    _ kind: S3TestServer.Kind, state dir: TemporaryDirectory, bucket: String? = nil, partSize: Int64 = 5 << 20
  ) throws
    -> S3Container
  {
    let server = try #require(S3TestServer.shared(kind), "the \(kind.rawValue) S3 server did not start")
    let container =
      try bucket.map {
        try S3Container(
          bucket: $0, prefix: "saves", endpoint: server.endpoint, credentials: server.credentials,
          displayName: "s3://\($0)/saves", clock: { Int64(Date().timeIntervalSince1970 * 1000) },
          retry: RetryPolicy(maxAttempts: 2, baseDelay: 0.05, maxSeconds: 2))
      } ?? server.container(partSize: partSize)
    container.localState = S3LocalState(
      stateDirectory: dir.sub("state"), endpoint: server.endpoint, region: container.region,
      bucket: container.bucket, prefix: container.prefix)
    return container
  }

  @Test(
    "whether the server honours a conditional PUT is checked once and remembered; names are never replaced either way",
    arguments: S3TestServer.Kind.allCases)
  func conditionalPutRemembered(kind: S3TestServer.Kind) throws {
    let dir = TemporaryDirectory("fewer-requests")
    let first = try container(kind, state: dir)
    let name = ArchiveName(createdMs: 1_795_968_071_609, device: "deck").description
    try first.upload(game: "g", name: name, body: body(Data("first".utf8)))
    let facts = try #require(first.localState?.facts(), "nothing was remembered")
    // moto refuses the second PUT with 412; rclone serve s3 replaces the object.
    #expect(facts.honoursConditionalPut == (kind == .moto), "\(facts)")

    // A later run (a new value) reads the answer instead of asking the server again: a state
    // that says the opposite is believed, so the fallback's HEAD is what still refuses here.
    let later = try container(kind, state: dir, bucket: first.bucket)
    later.localState?.remember(
      .init(
        server: facts.server, honoursConditionalPut: !facts.honoursConditionalPut,
        checkedAtMs: Int64(Date().timeIntervalSince1970 * 1000), serverSoftware: facts.serverSoftware))
    #expect(try later.honoursConditionalPut() == !facts.honoursConditionalPut)
    if kind == .moto {
      #expect(throws: ContainerError.alreadyExists(container: later.displayName, name: name)) {
        try later.upload(game: "g", name: name, body: body(Data("second".utf8)))
      }
    }
    #expect(throws: ContainerError.alreadyExists(container: first.displayName, name: name)) {
      try first.upload(game: "g", name: name, body: body(Data("third".utf8)))
    }
    #expect(try first.read(game: "g", name: name, body: readAll) == Data("first".utf8))
    // The probe objects are gone: only the archive is in the bucket.
    let listed = try first.client.request("GET", key: nil, query: [("list-type", "2"), ("prefix", "saves/")])
    #expect(XMLNode.parse(listed.body)?.all("Contents").compactMap { $0.value("Key") } == ["saves/g/" + name])
  }

  @Test(
    "a remembered answer is checked again once it is 30 days old, or when the server answers with another Server header"
  )
  func conditionalPutCheckedAgain() throws {
    let dir = TemporaryDirectory("fewer-requests")
    let first = try container(.moto, state: dir)
    #expect(try first.honoursConditionalPut(), "moto honours If-None-Match")
    let facts = try #require(first.localState?.facts())
    #expect(facts.serverSoftware?.isEmpty == false, "moto's Server header was not kept: \(facts)")
    let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
    let stale: [(String, S3LocalState.ServerFacts)] = [
      (
        "31 days old",
        .init(
          server: facts.server, honoursConditionalPut: false, checkedAtMs: nowMs - 31 * 86_400_000,
          serverSoftware: facts.serverSoftware)
      ),
      (
        "another server",
        .init(server: facts.server, honoursConditionalPut: false, checkedAtMs: nowMs, serverSoftware: "MinIO")
      ),
    ]
    for (why, wrong) in stale {
      let later = try container(.moto, state: dir, bucket: first.bucket)
      later.localState?.remember(wrong)
      _ = try later.list(game: "g")  // the listing that precedes an upload shows the server
      #expect(try later.honoursConditionalPut(), "\(why): the remembered answer was believed")
      #expect(later.localState?.facts()?.honoursConditionalPut == true, "\(why): not remembered anew")
    }
  }

  @Test(
    "an upload that another upload of the same name replaced (a server that ignores If-None-Match) goes again under the next name: both saves are kept"
  )
  func replacedUnderOurName() throws {
    let server = try #require(S3TestServer.shared(.rclone), "the rclone S3 server did not start")
    let dir = TemporaryDirectory("fewer-requests")
    let bucket = CloudEndToEndTests.newBucket()
    _ = try server.container(bucket: bucket, prefix: "saves")
    // The server checks request times: the test clock starts now.
    var vault = try Vault(
      context: testContext(
        home: dir.sub("home"), startMs: Int64(Date().timeIntervalSince1970 * 1000),
        environment: server.environment().merging(["SAVEVAULT_DEVICE": "steamdeck"]) { $1 }))
    let target = try vault.resolve(
      TargetRequest(game: "quest", saveDirectory: dir.sub("save"), containerURL: "s3://\(bucket)/saves"))
    try writeFile(dir.sub("save/a.sav"), "first")
    let first = try vault.backup(target, force: false)
    // Another device of the same name stores other bytes under the name just stored, once,
    // between this upload's PUT and the HEAD after it.
    let normal = vault.makeContainer
    final class Replaced: @unchecked Sendable {
      private let lock = NSLock()
      private var name: String?
      var value: String? { lock.withLock { name } }
      /// Records `made()`'s name unless one was recorded: once only.
      func once(_ made: () throws -> String) rethrows {
        try lock.withLock { if name == nil { name = try made() } }
      }
    }
    let replacedName = Replaced()
    vault.makeContainer = { target, paths in
      let base = try #require(try normal(target, paths) as? S3Container)
      base.checkpoint = { [weak base] point in
        guard point == "s3.stored", let base else { return }
        try replacedName.once {
          let name = try #require(try base.list(game: "quest").map(\.name).max())
          let other = "the other device's bytes"
          let response = try base.client.request(
            "PUT", key: base.keyPrefix(game: "quest") + name, payloadHash: SHA256.hex(of: other),
            body: .data(Data(other.utf8)))
          try base.client.expectSuccess(response, name: name)
          return name
        }
      }
      return base
    }
    try writeFile(dir.sub("save/a.sav"), "second")
    let replaced = try vault.backup(target, force: false)
    let overwritten = try #require(replacedName.value, "the other upload never ran")
    #expect(replaced.outcome == .uploaded)
    #expect(
      replaced.archive != overwritten, "agreed on a name that holds the other device's bytes: \(replaced)")
    vault.makeContainer = normal
    let listed = try vault.makeContainer(target, vault.paths).list(game: "quest").map(\.name)
    #expect(Set(listed) == [first.archive, overwritten, replaced.archive], "both saves kept: \(listed)")
    #expect(vault.agreements.load(target)?.archive == replaced.archive)
    let next = try vault.sync(target, policy: .fail, resolver: NobodyToAsk())
    #expect(next.state == .inSync && next.action == SyncAction.none, "\(next)")
  }

  @Test("an S3 command whose stdout reader has gone finishes with its own exit code, not a crash")
  func closedStdout() async throws {
    let server = try #require(S3TestServer.shared(.moto), "the moto S3 server did not start")
    let box = try Sandbox("closed-stdout", device: "pc")
    let bucket = CloudEndToEndTests.newBucket()
    _ = try server.container(bucket: bucket, prefix: "saves")
    try writeFile(box.save + "/slot.sav", "level 1")
    try makeDirectory(box.home)
    var ends: [Int32] = [0, 0]
    try #require(pipe(&ends) == 0)
    close(ends[0])  // the reader is gone before anything is written (`| head` that ended)
    let process = try SpawnedProgram(
      savevaultBinary, ["sync", "--save-dir", box.save, "--container", "s3://\(bucket)/saves"],
      environment: box.environment(server.environment()), stdout: .descriptor(ends[1]))
    close(ends[1])
    let stderr = await process.resultAwaiting().stderr
    #expect(
      process.terminationReason == .exit && process.terminationStatus == 0,
      "exit \(process.terminationStatus): \(stderr)")
    #expect(!stderr.contains("Fatal error"), "\(stderr)")
  }

  @Test("abandoned multipart uploads are looked for only when this device's journal says one was interrupted")
  func journalGatesCleanup() throws {
    let dir = TemporaryDirectory("fewer-requests")
    let container = try container(.moto, state: dir)
    let state = try #require(container.localState)
    let key = container.keyPrefix(game: "g") + ArchiveName(createdMs: 1, device: "deck").description
    try container.client.expectSuccess(
      try container.client.request("POST", key: key, query: [("uploads", "")]), name: key)
    func openUploads() throws -> [String] { try container.openUploads(game: "g").map(\.key) }
    try #require(try openUploads() == [key], "the server does not list multipart uploads")

    // No journal entry: an upload of the game does not look, so the open upload stays.
    try container.upload(
      game: "g", name: ArchiveName(createdMs: 2, device: "deck").description, body: body(Data("x".utf8)))
    #expect(try openUploads() == [key], "looked for abandoned uploads with nothing in the journal")

    // The entry an interrupted upload leaves: the next upload aborts it, and the entry goes.
    _ = try #require(state.begin(game: "g", key: key, nowMs: 1))
    #expect(state.interrupted(game: "g").count == 1)
    #expect(state.interrupted(game: "other").isEmpty, "an entry of another game")
    try container.upload(
      game: "g", name: ArchiveName(createdMs: 3, device: "deck").description, body: body(Data("y".utf8)))
    #expect(try openUploads().isEmpty)
    #expect(state.interrupted(game: "g").isEmpty, "the entry stayed after the cleanup")
  }

  @Test("a multipart upload is in the journal while under way and leaves it when complete")
  func journalDuringMultipart() throws {
    let dir = TemporaryDirectory("fewer-requests")
    let container = try container(.moto, state: dir, partSize: 5 << 20)
    let state = try #require(container.localState)
    let entries = CrashTally("journal entries seen during parts")
    container.checkpoint = { point in
      if point == "s3.part" { entries.add(state.interrupted(game: "g").count) }
    }
    let data = Data((0..<(11 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    let name = ArchiveName(createdMs: 1_795_968_071_609, device: "deck").description
    try container.upload(game: "g", name: name, body: body(data))
    #expect(entries.count == 3, "the journal held the upload during its 3 parts: \(entries.count)")
    #expect(state.interrupted(game: "g").isEmpty)
    #expect(try container.read(game: "g", name: name, body: readAll) == data)
  }

  @Test(
    "an rclone upload is copyto and moveto, with no look before or after; a taken name is refused by the move"
  )
  func rcloneUploadRuns() throws {
    let dir = TemporaryDirectory("fewer-requests")
    let real = try #require(which("rclone"), "rclone is not on PATH")
    // An rclone that logs each run.
    try makeDirectory(dir.sub("bin"))
    try writeFile(
      dir.sub("bin/rclone"), "#!/bin/sh\necho \"$1\" >> \(dir.sub("runs"))\nexec \(real) \"$@\"\n")
    chmod(dir.sub("bin/rclone"), 0o755)
    try makeDirectory(dir.sub("remote"))
    var environment = RcloneTestRemote.environment()
    environment["PATH"] = dir.sub("bin") + ":" + (environment["PATH"] ?? "")
    let container = try RcloneContainer(
      remote: "testlocal", path: dir.sub("remote"), displayName: "rclone:testlocal:remote",
      environment: environment)
    let names = (1...2).map {
      ArchiveName(createdMs: 1_795_968_071_600 + Int64($0), device: "deck").description
    }
    for name in names { try container.upload(game: "g", name: name, body: body(Data(name.utf8))) }
    #expect(throws: ContainerError.alreadyExists(container: container.displayName, name: names[0])) {
      try container.upload(game: "g", name: names[0], body: body(Data("again".utf8)))
    }
    #expect(try container.read(game: "g", name: names[0], body: readAll) == Data(names[0].utf8))
    #expect(try Platform.directoryNames(dir.sub("remote/g")).sorted() == names, "a temporary was left")
    let runs = try String(contentsOfFile: dir.sub("runs"), encoding: .utf8).split(separator: "\n")
    // The root's lsjson once, copyto + moveto per upload (the refused one then removes its
    // temporary), and the read's copyto.
    let expected = [
      "lsjson", "copyto", "moveto", "copyto", "moveto", "copyto", "moveto", "deletefile", "copyto",
    ]
    #expect(runs == expected.map { Substring($0) }, "\(runs)")
  }
}
