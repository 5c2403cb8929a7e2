import Foundation

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// The model's own spelling of a path whose bytes need not be UTF-8 (a Latin-1 or Shift-JIS
/// folder name): every byte from 0x80 up, and `%`, written `%XX`; the rest as it is. Injective,
/// and not SaveVault's `RawName`, so that the model reads names its own way: the files on disk
/// by their bytes (`opendir`, `readdir`), an archive's entries by the bytes SaveVault reads in
/// its headers. Every path the model writes, reads or walks goes through here (for a plain
/// ASCII path it is the path itself).
enum SimulatedPath {
  /// The model's spelling of `bytes`.
  static func spelling(_ bytes: some Sequence<UInt8>) -> String {
    var text = ""
    for byte in bytes {
      if byte >= 0x80 || byte == UInt8(ascii: "%") {
        text += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
      } else {
        text.unicodeScalars.append(Unicode.Scalar(byte))
      }
    }
    return text
  }

  /// The bytes the model's spelling `path` stands for.
  static func bytes(_ path: String) -> [UInt8] {
    let utf8 = Array(path.utf8)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(utf8.count)
    var index = 0
    while index < utf8.count {
      if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
        let byte = UInt8(String(decoding: utf8[index + 1...index + 2], as: UTF8.self), radix: 16)
      {
        bytes.append(byte)
        index += 3
      } else {
        bytes.append(utf8[index])
        index += 1
      }
    }
    return bytes
  }

  /// Calls `body` with the NUL-terminated bytes of `path`.
  static func withCString<Result>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> Result) rethrows
    -> Result
  {
    // A path without `%` is its own bytes (every path but those of names that are not UTF-8).
    guard path.utf8.contains(UInt8(ascii: "%")) else { return try path.withCString(body) }
    let terminated = (bytes(path) + [0]).map { CChar(bitPattern: $0) }
    return try body(terminated)
  }

  /// The `lstat` of `path`, nil when there is nothing there.
  static func status(_ path: String) -> stat? {
    var info = stat()
    return withCString(path) { lstat($0, &info) } == 0 ? info : nil
  }

  static func exists(_ path: String) -> Bool { status(path) != nil }

  static func isRegularFile(_ path: String) -> Bool {
    status(path).map { $0.st_mode & S_IFMT == S_IFREG } ?? false
  }

  static func isFolder(_ path: String) -> Bool {
    status(path).map { $0.st_mode & S_IFMT == S_IFDIR } ?? false
  }

  /// Makes the folder `path` and the missing ones above it.
  static func makeFolders(_ path: String) {
    guard !path.isEmpty, !isFolder(path) else { return }
    makeFolders((path as NSString).deletingLastPathComponent)
    _ = withCString(path) { mkdir($0, 0o755) }
  }

  /// Writes `data` as the whole file at `path` (its folders made first).
  @discardableResult
  static func write(_ data: Data, to path: String) -> Bool {
    makeFolders((path as NSString).deletingLastPathComponent)
    let fd = withCString(path) { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0o644) }
    guard fd >= 0 else { return false }
    defer { close(fd) }
    let written = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    return written == data.count
  }

  /// What the file at `path` holds (nil when it is none, or a link).
  static func contents(_ path: String) -> Data? {
    let fd = withCString(path) { open($0, O_RDONLY | O_NOFOLLOW) }
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else { return nil }
      if count == 0 { return data }
      data.append(contentsOf: buffer[0..<count])
    }
  }

  static func unlink(_ path: String) {
    _ = withCString(path) { Glibc.unlink($0) }
  }

  /// Sets the file's access and modification times to `ns` nanoseconds since the epoch.
  static func setTimes(_ path: String, ns: Int64) {
    let time = timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000))
    var times = [time, time]
    _ = withCString(path) { utimensat(AT_FDCWD, $0, &times, AT_SYMLINK_NOFOLLOW) }
  }

  /// The names in the folder at `path`, in the model's spelling (nil when it cannot be read).
  static func names(_ path: String) -> [String]? {
    guard let folder = withCString(path, { opendir($0) }) else { return nil }
    defer { closedir(folder) }
    var names: [String] = []
    while let entry = readdir(folder) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> [UInt8] in
        Array(raw.prefix { $0 != 0 })
      }
      if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
      names.append(spelling(name))
    }
    return names
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
