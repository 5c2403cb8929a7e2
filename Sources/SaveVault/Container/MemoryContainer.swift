import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A container held in this process's memory: for tests, and the plainest statement of the
/// `Container` contract (it passes the same conformance suite as the others).
///
/// Not reachable by a container URL: what it holds is gone when the process ends, so a
/// backup "stored" in one would be lost. Bodies still get a real file descriptor (a temporary
/// file), as the other containers give them. Safe to use from several threads: a file appears
/// in listings only once its upload has finished, and a name is taken at most once.
public final class MemoryContainer: Container, @unchecked Sendable {
  public let displayName: String
  /// Whether it answers at all; false: every call throws `.unavailable` (an unmounted drive).
  public let isAvailable: Bool
  private let clock: @Sendable () -> Int64
  private let lock = NSLock()
  private var games: [String: [String: Stored]] = [:]
  private var uploads = 0

  private struct Stored {
    var data: Data
    var modifiedMs: Int64
    var version: ContainerFile.Version
  }

  /// An empty container; `clock` gives the modification time of what is stored.
  public init(
    displayName: String = "memory", isAvailable: Bool = true,
    clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
  ) {
    self.displayName = displayName
    self.isAvailable = isAvailable
    self.clock = clock
  }

  public func probe() throws {
    guard isAvailable else {
      throw ContainerError.unavailable(
        container: displayName,
        cause: .missing(reason: "the memory container '\(displayName)' is switched off"))
    }
  }

  public func list(game: String) throws -> [ContainerFile] {
    try probe()
    return lock.withLock { games[game] ?? [:] }.map { file($0.key, $0.value) }
  }

  @discardableResult
  public func upload(game: String, name: String, body: (Int32) throws -> Int64) throws -> ContainerFile {
    guard ContainerFile.isStorable(name) else {
      throw ContainerError.refusedName(container: displayName, name: name)
    }
    try probe()
    if lock.withLock({ games[game]?[name] != nil }) {
      throw ContainerError.alreadyExists(container: displayName, name: name)
    }
    let staged = try StagedArchive(
      container: displayName, name: name, prefix: "savevault-memory-", body: body)
    let data = try Self.contents(staged.fd, size: staged.size, container: displayName, name: name)
    let stored = try lock.withLock { () throws -> Stored in
      guard games[game]?[name] == nil else {
        throw ContainerError.alreadyExists(container: displayName, name: name)
      }
      uploads += 1
      let stored = Stored(data: data, modifiedMs: clock(), version: ContainerFile.Version("m\(uploads)"))
      games[game, default: [:]][name] = stored
      return stored
    }
    return file(name, stored)
  }

  public func read<Result>(game: String, name: String, body: (Int32) throws -> Result) throws -> Result {
    try probe()
    guard let stored = lock.withLock({ games[game]?[name] }) else {
      throw ContainerError.notFound(container: displayName, name: name)
    }
    let path = try StagedArchive.emptyFile(prefix: "savevault-memory-")
    defer { unlink(path) }
    let fd = open(path, O_RDWR)
    guard fd >= 0 else {
      throw ContainerError.transferFailed(
        container: displayName, name: name,
        reason: "cannot open '\(path)': \(Platform.describe(errno: errno))")
    }
    defer { close(fd) }
    if let code = stored.data.withUnsafeBytes({ Platform.writeAll(fd, $0) }) {
      throw ContainerError.transferFailed(
        container: displayName, name: name,
        reason: "cannot write '\(path)': \(Platform.describe(errno: code))")
    }
    lseek(fd, 0, SEEK_SET)
    return try body(fd)
  }

  public func delete(game: String, name: String) throws {
    try probe()
    guard lock.withLock({ games[game]?.removeValue(forKey: name) }) != nil else {
      throw ContainerError.notFound(container: displayName, name: name)
    }
  }

  public func checkWritable() throws -> WriteCheck {
    try probe()
    return WriteCheck()
  }

  /// How many files it holds, of every game.
  var fileCount: Int { lock.withLock { games.values.reduce(0) { $0 + $1.count } } }

  private func file(_ name: String, _ stored: Stored) -> ContainerFile {
    ContainerFile(
      name: name, size: Int64(stored.data.count), modifiedMs: stored.modifiedMs, version: stored.version)
  }

  /// The `size` bytes of `fd` from its start.
  private static func contents(_ fd: Int32, size: Int64, container: String, name: String) throws -> Data {
    var data = Data(count: Int(size))
    let got = data.withUnsafeMutableBytes { buffer -> Int in
      guard let base = buffer.baseAddress else { return 0 }
      var done = 0
      while done < buffer.count {
        let count = pread(fd, base + done, buffer.count - done, off_t(done))
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        done += count
      }
      return done
    }
    guard got == Int(size) else {
      throw ContainerError.transferFailed(
        container: container, name: name, reason: "read \(got) of the \(size) bytes written")
    }
    return data
  }
}
