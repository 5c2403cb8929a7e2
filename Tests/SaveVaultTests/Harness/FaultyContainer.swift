import Foundation

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// A decorator around any container that injects one kind of fault into one kind of call:
/// on the Nth call of that operation, or on every call. Counts every call, so that tests can
/// bound retries, and every fault it injected.
final class FaultyContainer: Container, @unchecked Sendable {
  enum Operation: String, Sendable, CaseIterable {
    case probe, list, read, upload, delete
  }

  enum Fault: Sendable, CustomStringConvertible {
    /// The call throws this instead of running.
    case error(ContainerError)
    /// The call hangs for a while, then reports a timeout (a stalled server).
    case timeout
    /// The call answers late but right (a slow server).
    case stall(milliseconds: Int)
    /// The call is refused for want of permission.
    case permissionDenied
    /// `read` hands over only the first half of the archive.
    case shortRead
    /// `read` hands over the archive with one byte changed.
    case wrongBytes
    /// `list` silently leaves out the newer half (a listing cut short without saying so).
    case partialListing
    /// `list` silently answers "nothing" (a misspelled path on some remotes).
    case emptyListing
    /// `upload` stores the archive, but the answer is lost.
    case lostAnswer

    var description: String {
      switch self {
      case .error(let error): "error(\(error))"
      case .timeout: "timeout"
      case .stall(let ms): "stall \(ms) ms"
      case .permissionDenied: "permission denied"
      case .shortRead: "short read"
      case .wrongBytes: "wrong bytes"
      case .partialListing: "partial listing"
      case .emptyListing: "empty listing"
      case .lostAnswer: "lost answer"
      }
    }
  }

  let base: any Container
  let operation: Operation
  let fault: Fault
  /// Which call of `operation` fails (1 = the first); 0 = every call.
  let onCall: Int
  private let lock = NSLock()
  private var calls: [Operation: Int] = [:]
  private(set) var injected = 0

  init(_ base: any Container, fault: Fault, on operation: Operation, call: Int = 0) {
    self.base = base
    self.fault = fault
    self.operation = operation
    self.onCall = call
  }

  var displayName: String { base.displayName }

  func calls(_ operation: Operation) -> Int {
    lock.lock()
    defer { lock.unlock() }
    return calls[operation] ?? 0
  }

  var totalCalls: Int {
    lock.lock()
    defer { lock.unlock() }
    return calls.values.reduce(0, +)
  }

  /// Counts the call; returns the fault when this call is the one to fail.
  private func fires(_ operation: Operation) -> Fault? {
    lock.lock()
    defer { lock.unlock() }
    calls[operation, default: 0] += 1
    guard operation == self.operation, onCall == 0 || calls[operation] == onCall else { return nil }
    injected += 1
    return fault
  }

  /// The generic faults, common to every operation; nil for the operation-specific ones.
  private func generic(_ fault: Fault) throws {
    switch fault {
    case .error(let error): throw renamed(error)
    case .timeout:
      usleep(150_000)
      throw ContainerError.unavailable(container: displayName, reason: "no answer for 20 s (timed out)")
    case .stall(let milliseconds): usleep(UInt32(milliseconds) * 1000)
    case .permissionDenied:
      throw ContainerError.unavailable(container: displayName, reason: "cannot open it: Permission denied")
    default: break
    }
  }

  /// `error` as this container would say it: with its own name.
  private func renamed(_ error: ContainerError) -> ContainerError {
    switch error {
    case .unavailable(_, let cause): .unavailable(container: displayName, cause: cause)
    case .notFound(_, let name): .notFound(container: displayName, name: name)
    case .alreadyExists(_, let name): .alreadyExists(container: displayName, name: name)
    case .transferFailed(_, let name, let reason):
      .transferFailed(container: displayName, name: name, reason: reason)
    case .noSpace: .noSpace(container: displayName)
    case .refusedName(_, let name): .refusedName(container: displayName, name: name)
    }
  }

  func probe() throws {
    if let fault = fires(.probe) { try generic(fault) }
    try base.probe()
  }

  func list(game: String) throws -> [ContainerFile] {
    guard let fault = fires(.list) else { return try base.list(game: game) }
    try generic(fault)
    let files = try base.list(game: game)
    let newestFirst = ArchiveCatalog(files).recognized.map(\.name)
    let archives = newestFirst.compactMap { name in files.first { $0.name == name } }
    switch fault {
    case .partialListing: return Array(archives.dropFirst(archives.count / 2 + 1))
    case .emptyListing: return []
    default: return archives
    }
  }

  func upload(game: String, name: String, body: (Int32) throws -> Int64) throws -> ContainerFile {
    guard let fault = fires(.upload) else { return try base.upload(game: game, name: name, body: body) }
    try generic(fault)
    let stored = try base.upload(game: game, name: name, body: body)
    if case .lostAnswer = fault {
      throw ContainerError.transferFailed(
        container: displayName, name: name, reason: "the connection dropped")
    }
    return stored
  }

  func read<Result>(game: String, name: String, body: (Int32) throws -> Result) throws -> Result {
    guard let fault = fires(.read) else { return try base.read(game: game, name: name, body: body) }
    try generic(fault)
    return try base.read(game: game, name: name) { fd in
      switch fault {
      case .shortRead, .wrongBytes:
        var data = Data()
        _ = try Platform.forEachChunk(of: fd, path: name) { data.append(contentsOf: $0) }
        if case .shortRead = fault {
          data = data.prefix(data.count / 2)
        } else {
          data[data.count / 2] ^= 0x5a
        }
        let (copy, path) = try Platform.makeTemporaryFile(
          prefix: NSTemporaryDirectory() + "/savevault-fault-")
        defer {
          close(copy)
          unlink(path)
        }
        _ = data.withUnsafeBytes { Platform.writeAll(copy, $0) }
        lseek(copy, 0, SEEK_SET)
        return try body(copy)
      default:
        return try body(fd)
      }
    }
  }

  func delete(game: String, name: String) throws {
    if let fault = fires(.delete) { try generic(fault) }
    try base.delete(game: game, name: name)
  }

  func checkWritable() throws -> WriteCheck {
    if let fault = fires(.probe) { try generic(fault) }
    return try base.checkWritable()
  }
}
