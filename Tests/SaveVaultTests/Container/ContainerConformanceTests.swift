import Foundation
import Testing

@testable import SaveVault

/// One kind of container under test: how to make a working one and an unavailable one.
struct ContainerFixture: CustomStringConvertible, Sendable {
  var description: String
  /// A fresh, empty, working container, and the directory that owns everything it made.
  var make: @Sendable (TemporaryDirectory) throws -> any Container
  /// A container that cannot be reached.
  var makeUnavailable: @Sendable (TemporaryDirectory) throws -> any Container

  static let folder = ContainerFixture(
    description: "folder",
    make: { dir in
      try makeDirectory(dir.sub("container"))
      return FolderContainer(root: dir.sub("container"))
    },
    makeUnavailable: { dir in FolderContainer(root: dir.sub("unmounted/drive")) })

  static func s3(_ kind: S3TestServer.Kind) -> ContainerFixture {
    ContainerFixture(
      description: "s3 (\(kind.rawValue))",
      make: { _ in
        let server = try #require(S3TestServer.shared(kind), "the \(kind.rawValue) S3 server did not start")
        return try server.container(pageSize: 7)  // small pages: the listing paginates
      },
      makeUnavailable: { _ in
        let server = try #require(S3TestServer.shared(kind), "the \(kind.rawValue) S3 server did not start")
        return try S3Container(
          bucket: "no-such-bucket-here", prefix: "p", endpoint: server.endpoint,
          credentials: server.credentials, displayName: "s3://no-such-bucket-here/p",
          clock: { Int64(Date().timeIntervalSince1970 * 1000) }, retry: RetryPolicy(maxAttempts: 1))
      })
  }

  static let rclone = ContainerFixture(
    description: "rclone (local remote)",
    make: { dir in
      try makeDirectory(dir.sub("remote"))
      return try RcloneContainer(
        remote: "testlocal", path: dir.sub("remote"), displayName: "rclone:testlocal:" + dir.sub("remote"),
        environment: RcloneTestRemote.environment())
    },
    makeUnavailable: { dir in
      try RcloneContainer(
        remote: "testlocal", path: dir.sub("misspelled"), displayName: "rclone:testlocal:misspelled",
        environment: RcloneTestRemote.environment())
    })

  static let memory = ContainerFixture(
    description: "memory",
    make: { _ in MemoryContainer(displayName: "memory:test") },
    makeUnavailable: { _ in MemoryContainer(displayName: "memory:off", isAvailable: false) })

  static let all: [ContainerFixture] = [.folder, .s3(.rclone), .s3(.moto), .rclone, .memory]
}

/// Writes `data` to `fd` and returns the count, as an upload body.
func body(_ data: Data) -> (Int32) throws -> Int64 {
  { fd in
    let failure = data.withUnsafeBytes { Platform.writeAll(fd, $0) }
    if let failure { throw SystemError(operation: "write", path: "test", code: failure) }
    return Int64(data.count)
  }
}

/// Reads everything from `fd`.
func readAll(_ fd: Int32) -> Data {
  FileHandle(fileDescriptor: fd, closeOnDealloc: false).readDataToEndOfFile()
}

struct Boom: Error {}

/// `count` bytes of a fixed pseudo-random sequence (`seed` picks which): the same every run.
func seededBytes(_ count: Int, seed: UInt64) -> Data {
  var data = Data(count: count)
  data.withUnsafeMutableBytes { buffer in
    var state = seed
    for index in 0..<buffer.count {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      buffer[index] = UInt8(truncatingIfNeeded: state >> 33)
    }
  }
  return data
}

/// Failures seen on other threads, for the test thread to report.
final class ThreadFailures: @unchecked Sendable {
  private let lock = NSLock()
  private var failures: [String] = []
  func record(_ failure: String) { lock.withLock { failures.append(failure) } }
  var all: [String] { lock.withLock { failures } }
}

/// The one suite every container passes (restic-style: each backend runs the same tests).
@Suite("Container conformance", .tags(.large))
struct ContainerConformanceTests {
  let name1 = ArchiveName(createdMs: 1_795_968_071_609, device: "deck").description
  let name2 = ArchiveName(createdMs: 1_795_968_071_610, device: "desk").description

  @Test(
    "a new game lists nothing; an upload is listed with size, time and device",
    arguments: ContainerFixture.all)
  func uploadAndList(fixture: ContainerFixture) throws {
    let dir = TemporaryDirectory("conformance")
    let container = try fixture.make(dir)
    try container.probe()
    #expect(try container.list(game: "celeste").isEmpty)
    let data = Data((0..<70_000).map { UInt8($0 & 0xff) })
    let stored = try container.upload(game: "celeste", name: name1, body: body(data))
    #expect(stored.name == name1)
    #expect(stored.size == Int64(data.count))
    let listed = try container.list(game: "celeste")
    #expect(listed.count == 1)
    #expect(listed.first?.name == name1)
    #expect(listed.first?.size == Int64(data.count))
    let archives = try container.archivesNewestFirst(game: "celeste")
    #expect(archives.first?.modifiedMs == 1_795_968_071_609)
    #expect(archives.first?.device == "deck")
    #expect(try container.list(game: "other").isEmpty)
  }

  @Test("what is read is exactly what was written", arguments: ContainerFixture.all)
  func readBack(fixture: ContainerFixture) throws {
    let dir = TemporaryDirectory("conformance")
    let container = try fixture.make(dir)
    let data = Data((0..<300_000).map { UInt8(($0 * 7) & 0xff) })
    try container.upload(game: "g", name: name1, body: body(data))
    #expect(try container.read(game: "g", name: name1, body: readAll) == data)
  }

  @Test("readStart gives the archive's first bytes, as read gives them", arguments: ContainerFixture.all)
  func readStart(fixture: ContainerFixture) throws {
    let dir = TemporaryDirectory("conformance")
    let container = try fixture.make(dir)
    let data = Data((0..<300_000).map { UInt8(($0 * 13) & 0xff) })
    try container.upload(game: "g", name: name1, body: body(data))
    let start = try container.readStart(game: "g", name: name1, count: 1000, body: readAll)
    #expect(start.count >= 1000 && start == data.prefix(start.count), "\(start.count) bytes")
    #expect(throws: ContainerError.self) {
      try container.readStart(game: "g", name: name2, count: 10, body: readAll)
    }
  }

  @Test("an archive is never replaced", arguments: ContainerFixture.all)
  func neverReplaces(fixture: ContainerFixture) throws {
    let dir = TemporaryDirectory("conformance")
    let container = try fixture.make(dir)
    try container.upload(game: "g", name: name1, body: body(Data("first".utf8)))
    #expect(throws: ContainerError.alreadyExists(container: container.displayName, name: name1)) {
      try container.upload(game: "g", name: name1, body: body(Data("second".utf8)))
    }
    #expect(try container.read(game: "g", name: name1, body: readAll) == Data("first".utf8))
  }

  @Test("a failed upload leaves nothing under any name", arguments: ContainerFixture.all)
  func failedUpload(fixture: ContainerFixture) throws {
    let dir = TemporaryDirectory("conformance")
    let container = try fixture.make(dir)
    #expect(throws: Boom.self) {
      try container.upload(game: "g", name: name1) { fd in
        _ = try body(Data(repeating: 1, count: 10_000))(fd)
        throw Boom()
      }
    }
    #expect(try container.list(game: "g").isEmpty)
    #expect(throws: ContainerError.self) { try container.read(game: "g", name: name1, body: readAll) }
  }

  @Test("a body that misreports its byte count fails the upload", arguments: ContainerFixture.all)
  func shortWrite(fixture: ContainerFixture) throws {
    let dir = TemporaryDirectory("conformance")
    let container = try fixture.make(dir)
    #expect(throws: ContainerError.self) {
      try container.upload(game: "g", name: name1) { fd in try body(Data(repeating: 1, count: 100))(fd) + 1 }
    }
    #expect(try container.list(game: "g").isEmpty)
  }

  @Test("a listing during an upload never shows the partial archive", arguments: ContainerFixture.all)
  func noPartialVisible(fixture: ContainerFixture) throws {
    let dir = TemporaryDirectory("conformance")
    let container = try fixture.make(dir)
    var seenDuring: [ContainerFile] = []
    try container.upload(game: "g", name: name1) { fd in
      let count = try body(Data(repeating: 2, count: 50_000))(fd)
      seenDuring = try container.list(game: "g")
      return count
    }
    #expect(seenDuring.isEmpty)
    #expect(try container.list(game: "g").map(\.name) == [name1])
  }

  @Test(
    "delete removes one archive; deleting or reading a missing one is notFound",
    arguments: ContainerFixture.all)
  func delete(fixture: ContainerFixture) throws {
    let dir = TemporaryDirectory("conformance")
    let container = try fixture.make(dir)
    try container.upload(game: "g", name: name1, body: body(Data("1".utf8)))
    try container.upload(game: "g", name: name2, body: body(Data("2".utf8)))
    try container.delete(game: "g", name: name1)
    #expect(try container.list(game: "g").map(\.name) == [name2])
    #expect(throws: ContainerError.notFound(container: container.displayName, name: name1)) {
      try container.delete(game: "g", name: name1)
    }
    #expect(throws: ContainerError.notFound(container: container.displayName, name: name1)) {
      try container.read(game: "g", name: name1, body: readAll)
    }
  }

  @Test("many archives are all listed, newest first", arguments: ContainerFixture.all)
  func manyArchives(fixture: ContainerFixture) throws {
    let dir = TemporaryDirectory("conformance")
    let container = try fixture.make(dir)
    let names = (0..<30).map {
      ArchiveName(createdMs: 1_795_968_000_000 + Int64($0) * 1000, device: "d\($0 % 3)").description
    }
    for name in names.shuffled() { try container.upload(game: "g", name: name, body: body(Data(name.utf8))) }
    #expect(try container.archivesNewestFirst(game: "g").map(\.name) == names.reversed())
  }

  @Test(
    "a 0-byte archive is stored, listed, read and read the start of as nothing",
    arguments: ContainerFixture.all)
  func emptyArchive(fixture: ContainerFixture) throws {
    let dir = TemporaryDirectory("conformance")
    let container = try fixture.make(dir)
    let stored = try container.upload(game: "g", name: name1, body: body(Data()))
    #expect(stored.size == 0)
    #expect(try container.list(game: "g").map { [$0.name: $0.size] } == [[name1: 0]])
    #expect(try container.read(game: "g", name: name1, body: readAll) == Data())
    #expect(try container.readStart(game: "g", name: name1, count: 10, body: readAll) == Data())
  }

  /// Sizes around the edges a container may cut at: none, one, a page, a page and one, 64 KiB
  /// and one, and (once) past the 5 MiB an S3 container sends in parts.
  static let sizes = [0, 1, 4095, 4096, 65_537, (5 << 20) + 1]

  @Test("archives of seeded random sizes come back byte for byte", arguments: ContainerFixture.all)
  func seededSizes(fixture: ContainerFixture) throws {
    let dir = TemporaryDirectory("conformance")
    let container = try fixture.make(dir)
    var expected: [String: Data] = [:]
    for (index, size) in Self.sizes.enumerated() {
      let name = ArchiveName(createdMs: 1_795_968_000_000 + Int64(index), device: "deck").description
      expected[name] = seededBytes(size, seed: UInt64(size) &+ 7)
      let stored = try container.upload(game: "g", name: name, body: body(expected[name] ?? Data()))
      #expect(stored.size == Int64(size), "\(size) bytes")
    }
    let listed = try container.list(game: "g")
    #expect(
      Dictionary(uniqueKeysWithValues: listed.map { ($0.name, $0.size) })
        == expected.mapValues { Int64($0.count) })
    for (name, data) in expected {
      let back = try container.read(game: "g", name: name, body: readAll)
      #expect(back == data, "\(data.count) bytes: read \(back.count), differing")
      let start = try container.readStart(game: "g", name: name, count: 1000, body: readAll)
      #expect(
        start.count >= min(1000, data.count) && start == data.prefix(start.count), "\(data.count) bytes")
    }
  }

  @Test(
    "listings during concurrent uploads never fail, never show a partial archive; all are listed after",
    arguments: ContainerFixture.all)
  func listingDuringConcurrentUploads(fixture: ContainerFixture) throws {
    let dir = TemporaryDirectory("conformance")
    let container = try fixture.make(dir)
    let archives = (0..<6).map { index in
      (
        ArchiveName(createdMs: 1_795_968_000_000 + Int64(index), device: "d\(index)").description,
        seededBytes(150_000 + index * 10_000, seed: UInt64(index))
      )
    }
    let sizes = Dictionary(uniqueKeysWithValues: archives.map { ($0.0, Int64($0.1.count)) })
    let failures = ThreadFailures()
    let group = DispatchGroup()
    for (name, data) in archives {
      group.enter()
      Thread.detachNewThread {
        defer { group.leave() }
        do { try container.upload(game: "g", name: name, body: body(data)) } catch {
          failures.record("upload of \(name): \(error)")
        }
      }
    }
    var listings = 0
    repeat {
      let listed = try container.list(game: "g")  // an error here is never to be read as empty
      for file in listed {
        #expect(sizes[file.name] == file.size, "listed \(file.name) with \(file.size) bytes mid-upload")
      }
      listings += 1
    } while group.wait(timeout: .now() + .milliseconds(5)) == .timedOut
    #expect(failures.all == [])
    #expect(Set(try container.list(game: "g").map(\.name)) == Set(sizes.keys), "after \(listings) listings")
  }

  @Test("names that are not storable are refused before the body runs", arguments: ContainerFixture.all)
  func refusedNames(fixture: ContainerFixture) throws {
    let dir = TemporaryDirectory("conformance")
    let container = try fixture.make(dir)
    try container.upload(game: "g", name: name1, body: body(Data("kept".utf8)))
    for name in ["../x", "a/b", "", String(repeating: "a", count: 256), ".hidden", "../g/" + name1] {
      var ran = false
      #expect(throws: ContainerError.refusedName(container: container.displayName, name: name), "'\(name)'") {
        try container.upload(game: "g", name: name) { fd in
          ran = true
          return try body(Data("x".utf8))(fd)
        }
      }
      #expect(!ran, "the body ran for '\(name)'")
      #expect(throws: ContainerError.notFound(container: container.displayName, name: name), "'\(name)'") {
        try container.read(game: "g", name: name, body: readAll)
      }
    }
    #expect(try container.list(game: "g").map(\.name) == [name1])
    #expect(try container.list(game: "x").isEmpty)
    let longest = String(repeating: "a", count: 255)
    try container.upload(game: "g", name: longest, body: body(Data("255".utf8)))
    #expect(try container.read(game: "g", name: longest, body: readAll) == Data("255".utf8))
  }

  @Test(
    "readStart asking for more than the archive holds gives the whole archive",
    arguments: ContainerFixture.all)
  func readStartPastTheEnd(fixture: ContainerFixture) throws {
    let dir = TemporaryDirectory("conformance")
    let container = try fixture.make(dir)
    let data = seededBytes(100, seed: 3)
    try container.upload(game: "g", name: name1, body: body(data))
    #expect(try container.readStart(game: "g", name: name1, count: 1_000_000, body: readAll) == data)
  }

  @Test(
    "an upload whose reader fails midway (past a part) stores nothing; the name stays free",
    arguments: ContainerFixture.all)
  func interruptedUpload(fixture: ContainerFixture) throws {
    let dir = TemporaryDirectory("conformance")
    let container = try fixture.make(dir)
    let half = seededBytes((5 << 20) + 65_536, seed: 5)
    #expect(throws: Boom.self) {
      try container.upload(game: "g", name: name1) { fd in
        _ = try body(half)(fd)
        throw Boom()
      }
    }
    #expect(try container.list(game: "g").isEmpty)
    #expect(throws: ContainerError.notFound(container: container.displayName, name: name1)) {
      try container.read(game: "g", name: name1, body: readAll)
    }
    try container.upload(game: "g", name: name1, body: body(Data("whole".utf8)))
    #expect(try container.read(game: "g", name: name1, body: readAll) == Data("whole".utf8))
  }

  @Test(
    "containers list every stored file; only the catalog keeps to backups", arguments: ContainerFixture.all)
  func plainFiles(fixture: ContainerFixture) throws {
    let dir = TemporaryDirectory("conformance")
    let container = try fixture.make(dir)
    try container.upload(game: "g", name: "notes.txt", body: body(Data("not a backup".utf8)))
    try container.upload(game: "g", name: name1, body: body(Data("1".utf8)))
    #expect(Set(try container.list(game: "g").map(\.name)) == [name1, "notes.txt"])
    #expect(try container.catalog(game: "g").all.map(\.name) == [name1])
  }

  @Test("an unavailable container is an error, never an empty listing", arguments: ContainerFixture.all)
  func unavailable(fixture: ContainerFixture) throws {
    let dir = TemporaryDirectory("conformance")
    let container = try fixture.makeUnavailable(dir)
    func isUnavailable(_ action: () throws -> Void) {
      do {
        try action()
        Issue.record("expected ContainerError.unavailable")
      } catch let error as ContainerError {
        guard case .unavailable = error else {
          Issue.record("expected unavailable, got \(error)")
          return
        }
      } catch { Issue.record("expected ContainerError, got \(error)") }
    }
    isUnavailable { try container.probe() }
    isUnavailable { _ = try container.list(game: "g") }
    isUnavailable { try container.upload(game: "g", name: name1, body: body(Data("x".utf8))) }
    isUnavailable { _ = try container.read(game: "g", name: name1, body: readAll) }
  }
}

@Suite("Folder container specifics", .tags(.small))
struct FolderContainerTests {
  @Test("stale temporary files of killed runs are cleaned up; fresh ones are left alone")
  func staleTemporaries() throws {
    let dir = TemporaryDirectory("folder")
    let container = FolderContainer(root: dir.sub("c"))
    try writeFile(dir.sub("c/g/.savevault-tmp-old"), "half", modifiedNs: 1_000_000_000_000_000_000)
    try writeFile(dir.sub("c/g/.savevault-tmp-new"), "in progress")
    try container.upload(
      game: "g", name: ArchiveName(createdMs: 1, device: "x").description, body: body(Data("ok".utf8)))
    #expect(!FileManager.default.fileExists(atPath: dir.sub("c/g/.savevault-tmp-old")))
    #expect(FileManager.default.fileExists(atPath: dir.sub("c/g/.savevault-tmp-new")))
  }

  @Test("the embedded default folder is created by the first upload; other folders never are")
  func createsOnlyDefault() throws {
    let dir = TemporaryDirectory("folder")
    let embedded = FolderContainer(root: dir.sub("default/container"), createsRoot: true)
    try embedded.probe()
    #expect(try embedded.list(game: "g").isEmpty)
    #expect(!FileManager.default.fileExists(atPath: dir.sub("default")), "probe and list change nothing")
    try embedded.upload(
      game: "g", name: ArchiveName(createdMs: 1, device: "x").description, body: body(Data("ok".utf8)))
    #expect(FileManager.default.fileExists(atPath: dir.sub("default/container/g")))
    #expect(throws: ContainerError.self) { try FolderContainer(root: dir.sub("mnt/nas")).probe() }
    #expect(!FileManager.default.fileExists(atPath: dir.sub("mnt")))
  }

  @Test(
    "container URLs",
    arguments: [
      ("/mnt/nas/saves", ContainerLocation.folder(path: "/mnt/nas/saves")),
      ("file:///mnt/my%20saves/", .folder(path: "/mnt/my saves")),
      ("relative/dir", .folder(path: "/work/relative/dir")),
      ("~/Dropbox/saves", .folder(path: "/home/u/Dropbox/saves")),
      ("s3://bucket/some/prefix/", .s3(bucket: "bucket", prefix: "some/prefix")),
      ("rclone:gdrive:Saves/Games", .rclone(remote: "gdrive", path: "Saves/Games")),
    ])
  func urls(text: String, expected: ContainerLocation) throws {
    #expect(try ContainerLocation.parse(text, currentDirectory: "/work", home: "/home/u") == expected)
  }

  @Test(
    "unusable container URLs are usage errors",
    arguments: ["", "file://relative", "ftp://host/x", "s3:///x", "rclone:nocolon"])
  func badURLs(text: String) {
    #expect(throws: ConfigError.self) { try ContainerLocation.parse(text, currentDirectory: "/", home: "/h") }
  }
}

@Suite("S3 specifics", .tags(.large))
struct S3SpecificTests {
  @Test(
    "a clock an hour off (59 min 35 s) is named as such, to the nearest minute (exit 4), on a server that checks",
    arguments: S3TestServer.Kind.allCases)
  func clockSkew(kind: S3TestServer.Kind) throws {
    let server = try #require(S3TestServer.shared(kind), "the \(kind.rawValue) S3 server did not start")
    let good = try server.container()
    let skewed = try S3Container(
      bucket: good.bucket, prefix: "p", endpoint: server.endpoint,
      credentials: server.credentials,
      displayName: "s3://\(good.bucket)/p", clock: { Int64(Date().timeIntervalSince1970 * 1000) + 3_575_000 },
      retry: RetryPolicy(maxAttempts: 1))
    do {
      _ = try skewed.list(game: "g")
      // moto does not check request times; rclone's server (gofakes3) does.
      #expect(kind == .moto, "\(kind) accepted a request signed an hour in the future")
    } catch let error as ContainerError {
      #expect("\(error)".contains("your clock is 60 minutes ahead"), "\(error)")
    }
  }

  @Test("a clock a day behind is named as such on rclone serve s3, which says so with AccessDenied")
  func clockDayBehind() throws {
    let server = try #require(S3TestServer.shared(.rclone), "the rclone S3 server did not start")
    let good = try server.container()
    let skewed = try S3Container(
      bucket: good.bucket, prefix: "p", endpoint: server.endpoint, credentials: server.credentials,
      displayName: "s3://\(good.bucket)/p",
      clock: { Int64(Date().timeIntervalSince1970 * 1000) - 86_400_000 },
      retry: RetryPolicy(maxAttempts: 1))
    #expect {
      _ = try skewed.list(game: "g")
    } throws: { error in
      "\(error)".contains("your clock is 1440 minutes behind")
    }
  }

  @Test(
    "a large archive goes up in parts and comes back byte for byte", arguments: S3TestServer.Kind.allCases)
  func multipart(kind: S3TestServer.Kind) throws {
    let server = try #require(S3TestServer.shared(kind), "the \(kind.rawValue) S3 server did not start")
    let container = try server.container(partSize: 5 << 20)
    var data = Data(count: 12 << 20)
    data.withUnsafeMutableBytes { buffer in
      var state: UInt64 = 42
      for index in 0..<buffer.count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        buffer[index] = UInt8(truncatingIfNeeded: state >> 33)
      }
    }
    let name = ArchiveName(createdMs: 1_795_968_071_609, device: "deck").description
    try container.upload(game: "g", name: name, body: body(data))
    #expect(try container.read(game: "g", name: name, body: readAll) == data)
    #expect(try container.list(game: "g").first?.size == Int64(data.count))
  }

  // On moto only: the test dates the later run two hours ahead, which rclone serve s3 rightly
  // refuses as clock skew.
  @Test(
    "multipart uploads a killed run left behind are aborted by a later upload",
    arguments: [S3TestServer.Kind.moto])
  func staleMultipartCleanup(kind: S3TestServer.Kind) throws {
    let server = try #require(S3TestServer.shared(kind), "the \(kind.rawValue) S3 server did not start")
    let container = try server.container()
    let key = container.keyPrefix(game: "g") + ArchiveName(createdMs: 1, device: "killed").description
    let started = try container.client.request("POST", key: key, query: [("uploads", "")])
    try container.client.expectSuccess(started, name: key)
    func openUploads() throws -> [String] { try container.openUploads(game: "g").map(\.key) }
    try #require(try openUploads() == [key], "the server does not list multipart uploads")
    // Two hours later, another upload of the game cleans up.
    let later = try S3Container(
      bucket: container.bucket, prefix: container.prefix, endpoint: server.endpoint,
      credentials: server.credentials, displayName: "later",
      clock: { Int64(Date().timeIntervalSince1970 * 1000) + 2 * 3_600_000 },
      retry: RetryPolicy(maxAttempts: 1))
    try later.upload(
      game: "g", name: ArchiveName(createdMs: 2, device: "d").description, body: body(Data("x".utf8)))
    #expect(try openUploads().isEmpty)
  }
}

@Suite("Container kinds: one registry entry each", .tags(.small))
struct ContainerKindTests {
  @Test("every kind's example parses to a location of that kind, spelled as it canonically is")
  func examples() throws {
    for kind in ContainerKind.all {
      let location = try ContainerLocation.parse(kind.example, currentDirectory: "/", home: "/h")
      #expect(location.kind.name == kind.name, "\(kind.example)")
      #expect(location.canonical.hasPrefix(kind.scheme), "\(location.canonical)")
      #expect(try ContainerLocation.parse(location.canonical, currentDirectory: "/", home: "/h") == location)
    }
  }

  @Test("every kind has the vault's half of its entry (making it, doctor's checks), in the same order")
  func support() {
    #expect(ContainerSupport.all.map(\.kind.name) == ContainerKind.all.map(\.name))
    #expect(Set(ContainerKind.all.map(\.scheme)).count == ContainerKind.all.count, "two kinds share a scheme")
  }

  @Test("--container's help names every kind")
  func help() {
    for kind in ContainerKind.all {
      #expect(ContainerKind.helpList.contains(kind.help))
      #expect(ContainerKind.summaryList.contains(kind.summary))
    }
  }
}

@Suite("Container unavailable: a typed cause, spelled as before", .tags(.small))
struct ContainerCauseTests {
  @Test(
    "each cause reads as the message it had as text",
    arguments: [
      (
        ContainerError.Cause.clockSkew(minutes: 60),
        "your clock is 60 minutes ahead of the server's (S3 allows 15)"
      ),
      (.clockSkew(minutes: -1440), "your clock is 1440 minutes behind the server's (S3 allows 15)"),
      (
        .clockSkew(minutes: nil),
        "your clock is off from the server's (S3 allows 15): set the system time right"
      ),
      (
        .network(endpoint: "https://h", detail: "Connection refused"),
        "cannot reach https://h: Connection refused"
      ),
      (.certificate(endpoint: "https://h", detail: "SSL certificate problem"), "cannot reach https://h: SSL"),
      (.httpLibraryMissing(reason: "not found"), LibCurlUnavailable.marker + " (not found)"),
      (.credentialsRefused(reason: "refused the access key (HTTP 403)"), "refused the access key (HTTP 403)"),
      (.missing(reason: "the bucket 'b' does not exist"), "the bucket 'b' does not exist"),
    ])
  func spelled(cause: ContainerError.Cause, words: String) {
    let error = ContainerError.unavailable(container: "s3://b/p", cause: cause)
    #expect(
      "\(error)".hasPrefix("container 's3://b/p' is unavailable: ") && "\(error)".contains(words), "\(error)")
    #expect(error.exitStatus == .containerUnavailable)
  }

}
