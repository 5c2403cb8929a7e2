import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Small files written so that a crash leaves the old content or the new, never a mix:
/// a temporary file in the same folder, flushed, renamed over, and the folder flushed.
enum AtomicFile {
  /// Writes `data` to `path` (mode 0600), creating parent folders (0700). Throws
  /// `AtomicFileError`; the old content, if any, is then left as it was.
  static func write(_ data: Data, to path: String) throws(AtomicFileError) {
    let folder = (path as NSString).deletingLastPathComponent
    do {
      try FileManager.default.createDirectory(
        atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw AtomicFileError(path: folder, reason: "cannot create it: \(error.localizedDescription)")
    }
    let fd: Int32
    let temporary: String
    do {
      (fd, temporary) = try Platform.makeTemporaryFile(prefix: path + ".tmp-")
    } catch {
      throw AtomicFileError(path: path, reason: Platform.describe(errno: error.code))
    }
    var isDone = false
    defer {
      if !isDone { unlink(temporary) }
    }
    let failure = data.withUnsafeBytes { Platform.writeAll(fd, $0) }
    if let code = failure ?? (fsync(fd) == 0 ? nil : errno) {
      close(fd)
      throw AtomicFileError(path: path, reason: Platform.describe(errno: code))
    }
    close(fd)
    guard rename(temporary, path) == 0 else {
      throw AtomicFileError(path: path, reason: Platform.describe(errno: errno))
    }
    isDone = true
    try? Platform.syncDirectory(folder)
  }
}

/// A small file `AtomicFile` could not write: which file or folder, and why.
public struct AtomicFileError: Error, Equatable, Sendable, CustomStringConvertible {
  public var path: String
  public var reason: String

  public var description: String { "'\(path)': \(reason)" }
}
