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
    try write([(data, path)])
  }

  /// Writes several files of one folder, each as `write(_:to:)` does and in the order given (a
  /// crash leaves a prefix of them new), with fewer flushes: every temporary file is written
  /// before any is flushed, so that on a journalling filesystem the first flush commits them
  /// all and the others find nothing left to wait for.
  static func write(_ files: [(data: Data, path: String)]) throws(AtomicFileError) {
    guard let folder = files.first.map({ ($0.path as NSString).deletingLastPathComponent }) else { return }
    precondition(
      files.allSatisfy { ($0.path as NSString).deletingLastPathComponent == folder },
      "AtomicFile.write: files of one folder only")
    do {
      try FileManager.default.createDirectory(
        atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw AtomicFileError(path: folder, reason: "cannot create it: \(error.localizedDescription)")
    }
    var written: [(fd: Int32, temporary: String, path: String)] = []
    var renamed = 0
    defer {
      for file in written {
        close(file.fd)
      }
      for file in written.dropFirst(renamed) { unlink(file.temporary) }
    }
    for (data, path) in files {
      let (fd, temporary): (Int32, String)
      do {
        (fd, temporary) = try Platform.makeTemporaryFile(prefix: path + ".tmp-")
      } catch {
        throw AtomicFileError(path: path, reason: Platform.describe(errno: error.code))
      }
      written.append((fd, temporary, path))
      if let code = data.withUnsafeBytes({ Platform.writeAll(fd, $0) }) {
        throw AtomicFileError(path: path, reason: Platform.describe(errno: code))
      }
    }
    for file in written where fsync(file.fd) != 0 {
      throw AtomicFileError(path: file.path, reason: Platform.describe(errno: errno))
    }
    for file in written {
      guard rename(file.temporary, file.path) == 0 else {
        throw AtomicFileError(path: file.path, reason: Platform.describe(errno: errno))
      }
      renamed += 1
      // Each rename is durable before the next is made: the order is the callers' guarantee.
      try? Platform.syncDirectory(folder)
    }
  }
}

/// A small file `AtomicFile` could not write: which file or folder, and why.
public struct AtomicFileError: Error, Equatable, Sendable, CustomStringConvertible {
  public var path: String
  public var reason: String

  public var description: String { "'\(path)': \(reason)" }
}
