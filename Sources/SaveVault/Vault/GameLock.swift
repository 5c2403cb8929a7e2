import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An exclusive per-game lock (`flock` on `$XDG_STATE_HOME/savevault/locks/<game>.lock`),
/// held for the life of the value. The kernel drops it when the process dies, so a killed run
/// never leaves a stale lock.
final class GameLock {
  private let fd: Int32

  /// Takes the lock or throws `VaultError.busy` at once.
  init(game: String, directory: String) throws {
    try? FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let path = directory + "/" + game + ".lock"
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw VaultError.io(path: path, reason: Platform.describe(errno: errno)) }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      let code = errno
      close(fd)
      if code == EWOULDBLOCK { throw VaultError.busy(game: game, lockPath: path) }
      throw VaultError.io(path: path, reason: Platform.describe(errno: code))
    }
    self.fd = fd
  }

  deinit { close(fd) }
}
