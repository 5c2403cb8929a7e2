import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The few system calls SaveVault makes directly, in one place, so that the rest of the
/// library stays portable between Linux and macOS. By concern: files and folders
/// (`Platform+Files`), mounts and filesystems (`Platform+Mounts`), what makes a write durable
/// (`Platform+Durability`); here, the process and the machine.
enum Platform {
  /// The text of an `errno` value.
  static func describe(errno code: Int32) -> String {
    String(cString: strerror(code))
  }

  /// The process's umask. Read from `/proc/self/status` (Linux 4.7 and later), which leaves it
  /// as it is; elsewhere set and put back at once (a file another thread creates in between
  /// would get the 022 set meanwhile).
  static func umask() -> mode_t {
    if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
      let mask = mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8)
    {
      return mask
    }
    #if canImport(Glibc)
      let mask = Glibc.umask(0o022)
      _ = Glibc.umask(mask)
    #else
      let mask = Darwin.umask(0o022)
      _ = Darwin.umask(mask)
    #endif
    return mask
  }

  /// A short, stable tag for this machine (from `/etc/machine-id`, else the host name), to
  /// tell apart machines that carry the same device name.
  static let machineTag: String = {
    let id = (try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8))?
      .trimmingCharacters(in: .whitespacesAndNewlines)
    return String(SHA256.hex(of: (id?.isEmpty == false ? id : nil) ?? hostName()).prefix(8))
  }()

  /// This machine's host name.
  static func hostName() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "device" }
    return string(fromCString: buffer)
  }

  /// Creates a new file `<prefix>XXXXXX` (mode 0600) and returns its descriptor and path.
  static func makeTemporaryFile(prefix: String) throws(SystemError) -> (fd: Int32, path: String) {
    var template = Array((prefix + "XXXXXX").utf8CString)
    let fd = mkstemp(&template)
    guard fd >= 0 else { throw SystemError(operation: "create", path: prefix + "XXXXXX", code: errno) }
    return (fd, string(fromCString: template))
  }

  /// Creates a new folder `<prefix>XXXXXX` (mode 0700) and returns its path.
  static func makeTemporaryDirectory(prefix: String) throws(SystemError) -> String {
    var template = Array((prefix + "XXXXXX").utf8CString)
    guard mkdtemp(&template) != nil else {
      throw SystemError(operation: "create", path: prefix + "XXXXXX", code: errno)
    }
    return string(fromCString: template)
  }

  /// The text of a NUL-terminated C buffer.
  static func string(fromCString buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

/// A failed system call: which, on what, and `errno`.
struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
  var operation: String
  var path: String
  var code: Int32

  var description: String { "\(operation) '\(path)': \(Platform.describe(errno: code))" }
}
