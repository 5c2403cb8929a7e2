import CPlatform
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Which folder a path leads to, beyond its name: a folder deleted and made again at the same
/// path (a game uninstalled and installed again, its Proton prefix deleted by Steam, a Steam
/// user folder replaced) is another folder, with another inode or birth time.
public struct FolderIdentity: Codable, Equatable, Sendable {
  public var path: String
  public var inode: UInt64
  /// When it was made, in ns, where its filesystem records it.
  public var bornNs: Int64?

  /// The folder at `path` now (following symlinks); nil when there is none.
  public static func of(_ path: String) -> FolderIdentity? {
    var info = stat()
    guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
    let born = savevault_birth_time_ns(path)
    return FolderIdentity(path: path, inode: UInt64(info.st_ino), bornNs: born >= 0 ? Int64(born) : nil)
  }

  /// Whether `now`, the folder at this path now, is another folder than this one. The device
  /// number is not compared: a btrfs subvolume gets another one at each mount.
  public func isReplaced(by now: FolderIdentity) -> Bool {
    guard now.inode == inode else { return true }
    guard let bornNs, let nowBorn = now.bornNs else { return false }
    return bornNs != nowBorn
  }

  /// The folders that hold `path`, as they are now: its parent, that one's parent, and so on
  /// up to the root of the filesystem `path` is on (not included: a drive mounted there or
  /// not is another question). Empty on a FUSE filesystem, whose inode numbers may be made up
  /// at each mount.
  public static func enclosing(_ path: String, mountPoint: String?) -> [FolderIdentity] {
    var folders: [FolderIdentity] = []
    var current = (path as NSString).deletingLastPathComponent
    while !current.isEmpty, current != "/", current != mountPoint {
      if let identity = of(current) {
        if folders.isEmpty, isFUSE(current) { return [] }
        folders.append(identity)
      }
      current = (current as NSString).deletingLastPathComponent
    }
    return folders
  }

  /// Whether the folder at `path` is on a FUSE filesystem (`statfs` magic 0x65735546).
  static func isFUSE(_ path: String) -> Bool {
    #if os(Linux)
      let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
      guard fd >= 0 else { return false }
      defer { close(fd) }
      return savevault_filesystem_type(fd) == 0x6573_5546
    #else
      return false
    #endif
  }

  /// The first of `recorded` that is another folder now (deleted and made again); nil when
  /// each is the same folder or is gone (a folder gone is a missing save, not a new one).
  public static func firstReplaced(_ recorded: [FolderIdentity]) -> FolderIdentity? {
    recorded.first { then in of(then.path).map(then.isReplaced) ?? false }
  }
}
