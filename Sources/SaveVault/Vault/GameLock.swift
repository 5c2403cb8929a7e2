import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An exclusive per-game lock (`flock` on `$XDG_STATE_HOME/savevault/locks/<game>.lock`),
/// held for the life of the value. The kernel drops it when the process dies, so a killed run
/// never leaves a stale lock. The holder writes who it is into the file, so that a waiting
/// process can name it.
final class GameLock {
  private let fd: Int32

  /// Takes the lock, polling for up to `waitSeconds`, or throws `VaultError.busy` naming the
  /// holder.
  init(game: String, directory: String, waitSeconds: Double, holder: String) throws {
    try? FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let path = directory + "/" + game + ".lock"
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw VaultError.io(path: path, reason: Platform.describe(errno: errno)) }
    let deadline = Date().addingTimeInterval(waitSeconds)
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      let code = errno
      guard code == EWOULDBLOCK || code == EINTR else {
        close(fd)
        throw VaultError.io(path: path, reason: Platform.describe(errno: code))
      }
      guard Date() < deadline else {
        let current = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        close(fd)
        throw VaultError.busy(
          game: game, holder: current.isEmpty ? "another savevault" : current, lockPath: path)
      }
      usleep(100_000)
    }
    ftruncate(fd, 0)
    _ = Data(holder.utf8).withUnsafeBytes { Platform.writeAll(fd, $0) }
    self.fd = fd
  }

  deinit {
    ftruncate(fd, 0)
    close(fd)
  }
}
