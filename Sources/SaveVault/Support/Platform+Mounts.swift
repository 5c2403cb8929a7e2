import CPlatform
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Mount points and the filesystems under them: which drive a path is on, and its free space.
extension Platform {
  /// Whether the folder at `path` is the root of a mount (a drive, a bind mount): renaming it
  /// fails with EBUSY. False when it does not exist.
  static func isMountPoint(_ path: String) -> Bool {
    guard let real = realPath(path), real != "/" else { return path == "/" }
    var info = stat()
    var parent = stat()
    guard stat(real, &info) == 0, stat((real as NSString).deletingLastPathComponent, &parent) == 0 else {
      return false
    }
    if info.st_dev != parent.st_dev { return true }
    // A bind mount of a folder of the same filesystem keeps its device: ask the kernel's table.
    return mountPoints()?.contains(real) ?? false
  }

  /// The folders things are mounted on, from the kernel's table (nil where there is none).
  /// Read as bytes: `status` reads the table before every game launch, and splitting it as
  /// Swift strings cost more than the rest of the check.
  static func mountPoints() -> [String]? {
    FileManager.default.contents(atPath: "/proc/self/mountinfo").map(mountPoints(inTable:))
  }

  /// The mount points (fifth field of each line) of a `mountinfo` table.
  static func mountPoints(inTable table: Data) -> [String] {
    let space = UInt8(ascii: " ")
    let newline = UInt8(ascii: "\n")
    return table.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> [String] in
      var points: [String] = []
      var field = 0
      var start = 0
      for index in 0..<bytes.count {
        let byte = bytes[index]
        guard byte == space || byte == newline else { continue }
        // The fifth field of each line is the mount point.
        if field == 4 {
          points.append(unescapeMountField(UnsafeRawBufferPointer(rebasing: bytes[start..<index])))
        }
        field = byte == newline ? 0 : field + 1
        start = index + 1
      }
      return points
    }
  }

  /// The mount point of the filesystem `path` is on (for a path that does not exist, the one
  /// of the nearest folder above it that does), or nil where the mount table cannot be read.
  /// The same after a remount at the same place, unlike a device number (which tmpfs, btrfs,
  /// FUSE and network filesystems get anew at each mount).
  static func mountPoint(of path: String) -> String? {
    var existing = path
    while realPath(existing) == nil, existing != "/" {
      existing = (existing as NSString).deletingLastPathComponent
    }
    guard let real = realPath(existing), let points = mountPoints() else { return nil }
    return points.filter { $0 == "/" || real == $0 || real.hasPrefix($0 + "/") }.max { $0.count < $1.count }
  }

  /// A mount table field with its octal escapes (`\040` for a space) undone.
  private static func unescapeMountField(_ field: UnsafeRawBufferPointer) -> String {
    let backslash = UInt8(ascii: "\\")
    guard field.contains(backslash) else { return String(decoding: field, as: UTF8.self) }
    var bytes: [UInt8] = []
    var index = 0
    while index < field.count {
      let digits = index + 3 < field.count ? Array(field[(index + 1)...(index + 3)]) : []
      if field[index] == backslash, digits.count == 3, digits.allSatisfy({ (0x30...0x37).contains($0) }) {
        bytes.append(digits.reduce(0) { $0 &* 8 &+ ($1 - 0x30) })
        index += 4
      } else {
        bytes.append(field[index])
        index += 1
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The filesystem `path` is on (its `st_dev`), or nil when it cannot be read.
  static func deviceID(_ path: String) -> UInt64? {
    var info = stat()
    return lstat(path, &info) == 0 ? UInt64(info.st_dev) : nil
  }

  /// The free bytes on the filesystem that holds `path`, or nil if unknown.
  static func freeBytes(at path: String) -> Int64? {
    var info = statvfs()
    guard statvfs(path, &info) == 0 else { return nil }
    return Int64(info.f_bavail) * Int64(info.f_frsize)
  }

  /// The filesystems (`statfs` magic numbers) whose modification times are coarse and that
  /// keep no change time of their own: vfat (2 s), exFAT, and FUSE (exfat-fuse among others).
  static let coarseTimes: Set<Int64> = [0x4D44, 0x2011_BAB0, 0x6573_5546]

  /// Whether the folder at `path` is on a filesystem of `coarseTimes`; false when it cannot be
  /// opened.
  static func hasCoarseTimes(_ path: String) -> Bool {
    filesystemType(ofFolder: path).map(coarseTimes.contains) ?? false
  }

  /// The `statfs` magic number of the filesystem of the folder `path`; nil when it cannot be
  /// opened, and off Linux.
  static func filesystemType(ofFolder path: String) -> Int64? {
    #if os(Linux)
      let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
      guard fd >= 0 else { return nil }
      defer { close(fd) }
      return Int64(savevault_filesystem_type(fd))
    #else
      return nil
    #endif
  }

  /// Whether the filesystem of the folder `path` keeps a file's holes as holes, taking no room
  /// for them (ext4, btrfs, XFS, tmpfs, APFS do; FAT and exFAT allocate them): a file made there
  /// and grown by 1 MiB without a write takes no blocks. False when that cannot be tried.
  static func keepsHoles(in path: String) -> Bool {
    guard let (fd, probe) = try? makeTemporaryFile(prefix: path + "/.savevault-holes-") else { return false }
    defer {
      close(fd)
      unlink(probe)
    }
    var info = stat()
    return ftruncate(fd, 1 << 20) == 0 && fstat(fd, &info) == 0 && info.st_blocks == 0
  }
}
