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
        let container = try server.container()
        container.pageSize = 7  // force pagination
        return container
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

  static let all: [ContainerFixture] = [.folder, .s3(.rclone), .s3(.moto), .rclone]
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
    let container = try server.container()
    container.multipartThreshold = 5 << 20
    container.partSize = 5 << 20
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
    let started = try container.request("POST", key: key, query: [("uploads", "")])
    try container.expectSuccess(started, name: key)
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
