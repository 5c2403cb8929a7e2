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

  /// Whether `now`, the folder at this path now, is another folder than this one: another
  /// birth time where the filesystem records one, else another inode. (The device number is
  /// not compared: a btrfs subvolume gets another one at each mount.)
  public func isReplaced(by now: FolderIdentity) -> Bool {
    if let bornNs, let nowBorn = now.bornNs { return bornNs != nowBorn }
    return now.inode != inode
  }

  /// The folders that hold `path`, as they are now: the nearest existing folder above it
  /// (symlinks resolved), that one's parent, and so on up to the root of its filesystem (not
  /// included: a drive mounted there or not is another question). Empty on a filesystem whose
  /// inode numbers or birth times do not last (FAT and exFAT number folders anew at each
  /// mount, network and FUSE filesystems may make them up, overlayfs copies folders up).
  public static func enclosing(_ path: String) -> [FolderIdentity] {
    guard var folder = nearestAbove(path), !isUnstable(folder) else { return [] }
    var folders: [FolderIdentity] = []
    while folder != "/", !folder.isEmpty {
      let parent = (folder as NSString).deletingLastPathComponent
      var here = stat()
      var above = stat()
      guard stat(folder, &here) == 0, stat(parent, &above) == 0, here.st_dev == above.st_dev,
        let identity = of(folder)
      else { break }
      folders.append(identity)
      folder = parent
    }
    return folders
  }

  /// The nearest existing folder above `path`, symlinks resolved.
  public static func nearestAbove(_ path: String) -> String? {
    var current = (path as NSString).deletingLastPathComponent
    while current.count > 1, Platform.realPath(current) == nil {
      current = (current as NSString).deletingLastPathComponent
    }
    return Platform.realPath(current)
  }

  /// The filesystems (`statfs` magic numbers) whose folders' inode numbers or birth times do
  /// not last: vfat, exFAT, CIFS, SMB2, 9p, overlayfs, FUSE.
  static let unstable: Set<Int64> = [
    0x4D44, 0x2011_BAB0, 0xFF53_4D42, 0xFE53_4D42, 0x0102_1997, 0x794C_7630, 0x6573_5546,
  ]

  /// Whether the folder at `path` is on a filesystem of `unstable`.
  /// True when it cannot be opened (on Linux; elsewhere false).
  static func isUnstable(_ path: String) -> Bool {
    #if os(Linux)
      Platform.filesystemType(ofFolder: path).map(unstable.contains) ?? true
    #else
      false
    #endif
  }

  /// The first of `recorded` that is another folder now (deleted and made again); nil when
  /// each is the same folder or is gone (a folder gone is a missing save, not a new one).
  public static func firstReplaced(_ recorded: [FolderIdentity]) -> FolderIdentity? {
    recorded.first { then in of(then.path).map(then.isReplaced) ?? false }
  }
}
