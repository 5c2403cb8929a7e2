import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An archive written to a local temporary file on a second thread while the uploader reads
/// what is already written, so that packing and sending overlap.
///
/// The writer (an upload's `body`) appends: every byte below the file's current size is
/// final. `wait(until:)` blocks until the file holds that many bytes or the writer is done;
/// `finish()` joins the writer and returns its byte count, checked against the file, or
/// rethrows its error. The file is removed with the value.
final class GrowingArchive: @unchecked Sendable {
  let fd: Int32
  let path: String
  private let container: String
  private let name: String
  private let done = DispatchSemaphore(value: 0)
  private let lock = NSLock()
  private var outcome: Result<Int64, any Error>?
  private var isJoined = false

  /// Starts `body` on a second thread, writing into a new temporary file. `body` runs at most
  /// until `finish()` returns, which the caller must call before `body`'s captures go away.
  init(container: String, name: String, prefix: String, body: @escaping (Int32) throws -> Int64) throws {
    self.container = container
    self.name = name
    do {
      (fd, path) = try Platform.makeTemporaryFile(prefix: NSTemporaryDirectory() + "/" + prefix)
    } catch {
      throw ArchiveError.writeFailed(
        path: NSTemporaryDirectory(), reason: Platform.describe(errno: error.code))
    }
    let writer = BodyBox(body: body)
    Thread { [self] in
      var result: Result<Int64, any Error> = .success(0)
      if let body = writer.take() { result = Result { try body(fd) } }
      lock.lock()
      outcome = result
      lock.unlock()
      done.signal()
    }.start()
  }

  deinit {
    close(fd)
    unlink(path)
  }

  /// Blocks until the file holds at least `bytes` bytes or the writer has ended. Returns the
  /// bytes there now and whether that is all there will be (the writer ended well). Throws the
  /// writer's error.
  func wait(until bytes: Int64) throws -> (available: Int64, isComplete: Bool) {
    var pause: UInt32 = 200
    while true {
      lock.lock()
      let ended = outcome
      lock.unlock()
      if let ended {
        let size = try ended.get()
        return (size, true)
      }
      var info = stat()
      if fstat(fd, &info) == 0, Int64(info.st_size) >= bytes { return (Int64(info.st_size), false) }
      usleep(pause)
      pause = min(pause * 2, 5_000)
    }
  }

  /// Joins the writer; returns its byte count after checking it against the file (a
  /// mismatch is `.transferFailed`).
  func finish() throws -> Int64 {
    if !isJoined {
      done.wait()
      isJoined = true
    }
    lock.lock()
    let ended = outcome
    lock.unlock()
    guard let size = try ended?.get() else { return 0 }
    var info = stat()
    guard fstat(fd, &info) == 0, Int64(info.st_size) == size else {
      throw ContainerError.transferFailed(
        container: container, name: name,
        reason: "wrote \(size) bytes but the file holds \(Int64(info.st_size))")
    }
    return size
  }
}

/// The upload's body, handed to the writing thread, which drops it once it has run (the
/// caller passes a non-escaping closure through `withoutActuallyEscaping`).
private final class BodyBox: @unchecked Sendable {
  private var body: ((Int32) throws -> Int64)?
  private let lock = NSLock()

  init(body: @escaping (Int32) throws -> Int64) { self.body = body }

  func take() -> ((Int32) throws -> Int64)? {
    lock.lock()
    defer { lock.unlock() }
    let taken = body
    body = nil
    return taken
  }
}
