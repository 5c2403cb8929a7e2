import CPlatform
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

#if os(Linux)
  /// glibc declares `syncfs` only under `_GNU_SOURCE`, which Swift's Glibc module lacks.
  @_silgen_name("syncfs") private func linuxSyncfs(_ fd: Int32) -> Int32
  /// Likewise `sync_file_range`.
  @_silgen_name("sync_file_range") private func linuxSyncFileRange(
    _ fd: Int32, _ offset: Int64, _ count: Int64, _ flags: UInt32
  ) -> Int32
#endif

/// What makes a write survive a crash: flushing files, folders and whole filesystems.
extension Platform {
  /// Flushes a directory's entries to disk (after a rename or create inside it).
  static func syncDirectory(_ path: String) throws(SystemError) {
    let fd = open(path, O_RDONLY | O_DIRECTORY)
    guard fd >= 0 else { throw SystemError(operation: "open", path: path, code: errno) }
    defer { close(fd) }
    try syncDirectory(fd: fd, path: path)
  }

  /// Flushes the entries of the directory open at `fd` (`path` names it in errors).
  static func syncDirectory(fd: Int32, path: String) throws(SystemError) {
    // Some filesystems (network mounts, FUSE) refuse fsync on a directory; that is not an error.
    if fsync(fd) != 0, errno != EINVAL, errno != ENOTSUP, errno != EBADF {
      throw SystemError(operation: "fsync", path: path, code: errno)
    }
  }

  /// Starts writing `fd`'s dirty pages to disk without waiting for them (Linux
  /// `sync_file_range(SYNC_FILE_RANGE_WRITE)`; nothing elsewhere), so that the flush that
  /// makes the file durable later has little left to wait for.
  static func startWriteback(_ fd: Int32) {
    #if os(Linux)
      _ = linuxSyncFileRange(fd, 0, 0, 2)  // SYNC_FILE_RANGE_WRITE
    #endif
  }

  /// Flushes everything written on `path`'s filesystem with one `syncfs` (Linux): a single
  /// wait (one journal commit) for every file's data and every folder's entries, however many
  /// there are, where flushing each file waits for a commit of its own. It also waits for what
  /// other programs left unflushed on that filesystem: still one wait, where a commit per file
  /// already costs more for a save of a few dozen files. False where there is no `syncfs` or
  /// it fails (a write error since the last flush, on Linux 5.8 and later): then `syncEach`
  /// flushes what must be durable and says what failed. False as well on any filesystem not
  /// known to make `syncfs` as durable as `fsync`: FUSE mounts (NTFS and exFAT drives through
  /// ntfs-3g, sshfs) answer it without flushing anything, and vfat writes without flushing the
  /// disk's cache.
  static func syncFilesystem(containing path: String) -> Bool {
    #if os(Linux)
      let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
      guard fd >= 0 else { return false }
      defer { close(fd) }
      guard syncfsIsDurable.contains(Int64(savevault_filesystem_type(fd))) else { return false }
      return linuxSyncfs(fd) == 0
    #else
      return false
    #endif
  }

  /// The filesystems (`statfs` magic numbers) whose `syncfs` flushes data, entries and the
  /// disk's cache as `fsync` does: ext2/3/4, btrfs, XFS, F2FS, and tmpfs (nothing to flush).
  static let syncfsIsDurable: Set<Int64> = [0xEF53, 0x9123_683E, 0x5846_5342, 0xF2F5_2010, 0x0102_1994]

  /// Flushes a freshly written tree one entry at a time: `fsync` of each file (`files`,
  /// relative to `root`), then of each folder (`folders`) deepest first, then of `root` (a
  /// symlink is recorded in its folder). Throws the first failure.
  static func syncEach(_ root: String, files: [String], folders: [String]) throws(SystemError) {
    for relative in files {
      let fd = RawName.withCString(relative, under: root) { open($0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
      guard fd >= 0 else { throw SystemError(operation: "open", path: root + "/" + relative, code: errno) }
      defer { close(fd) }
      // As for a folder, a filesystem that cannot flush a file (some network and FUSE mounts)
      // is not an error.
      guard fsync(fd) == 0 || errno == EINVAL || errno == ENOTSUP else {
        throw SystemError(operation: "fsync", path: root + "/" + relative, code: errno)
      }
    }
    for folder in folders.reversed() {
      let fd = RawName.withCString(folder, under: root) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
      guard fd >= 0 else { throw SystemError(operation: "open", path: root + "/" + folder, code: errno) }
      defer { close(fd) }
      try syncDirectory(fd: fd, path: root + "/" + folder)
    }
    try syncDirectory(root)
  }
}
