import Foundation
import SaveVault

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file that keeps a copy of what a command writes to stderr, each line stamped with the
/// local time and what it is about (`wrap`'s log: in Steam's game mode nobody sees stderr).
///
/// It is opened for appending, so that two commands writing at once interleave whole lines,
/// and renamed `NAME.1` (replacing an older one) when it is over `rotationSize` as it is
/// opened. A log that cannot be written is given up after one warning: it never stops the
/// command.
final class LogFile: @unchecked Sendable {
  /// The size over which the file is set aside as it is opened.
  static let rotationSize: Int64 = 1 << 20

  let path: String
  private let clock: @Sendable () -> Int64
  private let lock = NSLock()
  private var descriptor: Int32
  private var subjectName: String?
  /// Told once why the file cannot be written, after which nothing more is tried.
  private let failed: @Sendable (String) -> Void

  /// Opens (creating it and its folder) the log `path`, after setting aside one that is over
  /// `rotationSize`; nil, after telling `failed` why, when it cannot be opened.
  static func openForAppending(
    _ path: String, clock: @escaping @Sendable () -> Int64, failed: @escaping @Sendable (String) -> Void
  ) -> LogFile? {
    let folder = (path as NSString).deletingLastPathComponent
    try? FileManager.default.createDirectory(
      atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    var info = stat()
    if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int64(info.st_size) > rotationSize {
      _ = rename(path, path + ".1")
    }
    let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      failed("cannot keep a log in '\(path)': \(String(cString: strerror(errno)))")
      return nil
    }
    return LogFile(path: path, descriptor: descriptor, clock: clock, failed: failed)
  }

  private init(
    path: String, descriptor: Int32, clock: @escaping @Sendable () -> Int64,
    failed: @escaping @Sendable (String) -> Void
  ) {
    self.path = path
    self.descriptor = descriptor
    self.clock = clock
    self.failed = failed
  }

  deinit {
    if descriptor >= 0 { close(descriptor) }
  }

  /// What the lines are about (a game's name), written after the time; none when nil.
  var subject: String? {
    get { lock.withLock { subjectName } }
    set { lock.withLock { subjectName = newValue } }
  }

  /// Appends `message`, each of its lines stamped, in one write.
  func append(_ message: String) {
    let failure: String? = lock.withLock {
      guard descriptor >= 0 else { return nil }
      let prefix = Format.shortTime(clock()) + (subjectName.map { " \($0):" } ?? "")
      var lines = message.split(separator: "\n", omittingEmptySubsequences: false)
      while lines.count > 1 && lines.last?.isEmpty == true { lines.removeLast() }
      let text =
        lines
        .map { "\(prefix) \($0)\n" }.joined()
      let bytes = Array(text.utf8)
      var written = 0
      while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else {
          let reason = count < 0 ? String(cString: strerror(errno)) : "nothing written"
          close(descriptor)
          descriptor = -1
          return "cannot write the log '\(path)': \(reason)"
        }
        written += count
      }
      return nil
    }
    if let failure { failed(failure) }
  }
}
