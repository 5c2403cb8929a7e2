import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Files and folders: paths, listings, temporary names, moves that never replace, whole
/// writes and reads, sparse regions, removal. Paths are given and returned with every byte
/// kept (`RawName`): a folder whose name is not UTF-8 is found, listed and walked as any other.
extension Platform {
  /// `realpath(3)`: the absolute path with every symlink resolved, or nil if it does not exist.
  static func realPath(_ path: String) -> String? {
    guard let resolved = RawName.withCString(path, { realpath($0, nil) }) else { return nil }
    defer { free(resolved) }
    return RawName.string(cString: resolved)
  }

  /// Whether `path` is a folder (symlinks followed).
  static func isFolder(_ path: String) -> Bool {
    var info = stat()
    return RawName.withCString(path) { stat($0, &info) } == 0 && info.st_mode & S_IFMT == S_IFDIR
  }

  /// Whether `path` is a regular file (symlinks followed).
  static func isRegularFile(_ path: String) -> Bool {
    var info = stat()
    return RawName.withCString(path) { stat($0, &info) } == 0 && info.st_mode & S_IFMT == S_IFREG
  }

  /// The `lstat(2)` of `path` itself (a symlink is not followed), nil when there is none.
  static func linkStatus(_ path: String) -> stat? {
    var info = stat()
    return RawName.withCString(path) { lstat($0, &info) } == 0 ? info : nil
  }

  /// Makes the folder `path` and every missing folder on its way (`mkdir -p`), names of any
  /// bytes kept. Throws the `errno` of the first folder that cannot be made (a file in its way:
  /// `EEXIST` or `ENOTDIR`).
  static func makeFolders(_ path: String) throws(SystemError) {
    if isFolder(path) { return }
    let parent = (path as NSString).deletingLastPathComponent
    if !parent.isEmpty, parent != path { try makeFolders(parent) }
    guard RawName.withCString(path, { mkdir($0, 0o755) }) == 0 || (errno == EEXIST && isFolder(path)) else {
      throw SystemError(operation: "make", path: path, code: errno)
    }
  }

  /// Whether `path` itself is a symlink.
  static func isSymlink(_ path: String) -> Bool {
    var info = stat()
    return RawName.withCString(path) { lstat($0, &info) } == 0 && info.st_mode & S_IFMT == S_IFLNK
  }

  /// Whether `path` is a file this process can read (symlinks followed).
  static func isReadableFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access(path, R_OK) == 0
  }

  /// The size of the file at `path` (symlinks followed), nil when it cannot be read.
  static func fileSize(_ path: String) -> Int64? {
    var info = stat()
    return stat(path, &info) == 0 ? Int64(info.st_size) : nil
  }

  /// Where `path` really is, even when it does not exist yet: `realpath` if it exists;
  /// otherwise a dangling symlink's target (followed up to 8 times), or where its parent
  /// folder really is (the nearest folder above that exists, made real) joined with the last
  /// component.
  static func resolvedPath(_ path: String) -> String {
    var current = path
    for _ in 0..<8 {
      if let real = realPath(current) { return real }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let count = readlink(current, &buffer, buffer.count - 1)
      guard count > 0 else { break }
      let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      let folder = (current as NSString).deletingLastPathComponent
      current = target.hasPrefix("/") ? target : folder + "/" + target
    }
    let folder = (current as NSString).deletingLastPathComponent
    let name = (current as NSString).lastPathComponent
    guard let real = realPath(folder) else {
      let isTop = folder.isEmpty || folder == "/" || folder == "." || folder == current
      return (isTop ? folder : resolvedPath(folder)) + "/" + name
    }
    return (real == "/" ? "" : real) + "/" + name
  }

  /// The names in `folder` (without `.` and `..`). Throws the `errno` of a failed open or read,
  /// so that a folder that cannot be listed is never mistaken for an empty one.
  static func directoryNames(_ folder: String) throws(SystemError) -> [String] {
    guard let directory = RawName.withCString(folder, { opendir($0) }) else {
      throw SystemError(operation: "open", path: folder, code: errno)
    }
    defer { closedir(directory) }
    var names: [String] = []
    while true {
      errno = 0
      guard let entry = readdir(directory) else {
        if errno != 0 { throw SystemError(operation: "read", path: folder, code: errno) }
        return names
      }
      let name = self.name(of: entry)
      if name != "." && name != ".." { names.append(name) }
    }
  }

  /// The device and inode of what `path` names (following symlinks), or nil when it does not
  /// exist: equal for two paths to the same folder, whatever mount or link they go through.
  static func fileIdentity(_ path: String) -> [UInt64]? {
    var info = stat()
    return RawName.withCString(path) { stat($0, &info) } == 0
      ? [UInt64(info.st_dev), UInt64(info.st_ino)] : nil
  }

  /// The name of a `readdir` entry, every byte kept (`RawName`).
  static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
    withUnsafePointer(to: &entry.pointee.d_name) { pointer in
      pointer.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { RawName.string(cString: $0) }
    }
  }

  /// Links `source` to `destination` without ever replacing an existing `destination`, then
  /// removes `source`. Falls back to an existence check and `rename` on filesystems without
  /// hard links (exFAT SD cards, some FUSE mounts). A `destination` that is already `source`'s
  /// file (a move killed between its link and its unlink) is finished.
  /// (Paths as the scans give them: every byte kept, `RawName`.)
  static func moveNoReplace(from source: String, to destination: String) throws(SystemError) {
    let code = RawName.withCString(source) { from in
      RawName.withCString(destination) { to in moveNoReplace(from, to) }
    }
    if let (operation, code) = code { throw SystemError(operation: operation, path: destination, code: code) }
  }

  /// `moveNoReplace` on C strings: the failing call and its error, nil when done.
  private static func moveNoReplace(
    _ source: UnsafePointer<CChar>, _ destination: UnsafePointer<CChar>
  ) -> (String, Int32)? {
    if link(source, destination) == 0 {
      unlink(source)
      return nil
    }
    let code = errno
    if code == EEXIST {
      var from = stat()
      var to = stat()
      if lstat(source, &from) == 0, lstat(destination, &to) == 0, from.st_dev == to.st_dev,
        from.st_ino == to.st_ino, from.st_mode & S_IFMT == S_IFREG
      {
        unlink(source)
        return nil
      }
      return ("link", code)
    }
    guard code == EPERM || code == ENOTSUP || code == EOPNOTSUPP || code == EMLINK || code == EXDEV
    else { return ("link", code) }
    var info = stat()
    if lstat(destination, &info) == 0 { return ("rename", EEXIST) }
    return rename(source, destination) == 0 ? nil : ("rename", errno)
  }

  /// Writes every byte of `buffer` to `fd`, retrying short writes; returns `errno` on failure.
  static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32? {
    guard let base = buffer.baseAddress else { return nil }
    var offset = 0
    while offset < buffer.count {
      #if canImport(Glibc)
        let count = Glibc.write(fd, base + offset, buffer.count - offset)
      #else
        let count = Darwin.write(fd, base + offset, buffer.count - offset)
      #endif
      if count < 0 {
        if errno == EINTR { continue }
        return errno
      }
      offset += count
    }
    return nil
  }

  /// The data regions of the file open at `fd`, `size` bytes long, when it has holes (a sparse
  /// file: a disk image, a pre-allocated save); nil when it has none or the filesystem cannot
  /// say (`SEEK_DATA`/`SEEK_HOLE` unsupported). Regions are in order and end by `size`; a file
  /// that is one hole has none. Moves the file offset.
  static func dataRegions(of fd: Int32, size: Int64) -> [Range<Int64>]? {
    #if os(Linux)
      let (seekData, seekHole): (Int32, Int32) = (3, 4)  // glibc declares them only under _GNU_SOURCE
    #else
      let (seekData, seekHole) = (SEEK_DATA, SEEK_HOLE)
    #endif
    var regions: [Range<Int64>] = []
    var offset: Int64 = 0
    while offset < size {
      let data = Int64(lseek(fd, off_t(offset), seekData))
      if data < 0 && errno == ENXIO { break }  // only a hole from `offset` on
      guard data >= 0 else { return nil }
      guard data < size else { break }
      let hole = Int64(lseek(fd, off_t(data), seekHole))
      guard hole > data else { return nil }
      regions.append(data..<min(hole, size))
      offset = hole
    }
    return regions == [0..<size] ? nil : regions
  }

  /// Reads `fd` to its end, or `limit` bytes, in chunks of up to 1 MiB, handing each to
  /// `body`; returns the byte count. A read error throws `SystemError` naming `path`; `body`'s
  /// errors pass through.
  static func forEachChunk(
    of fd: Int32, path: String, upTo limit: Int64 = .max, _ body: (UnsafeRawBufferPointer) throws -> Void
  ) throws -> Int64 {
    let size = 1 << 20
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    defer { buffer.deallocate() }
    var total: Int64 = 0
    while total < limit {
      let count = read(fd, buffer, Int(min(Int64(size), limit - total)))
      if count < 0 {
        if errno == EINTR { continue }
        throw SystemError(operation: "read", path: path, code: errno)
      }
      if count == 0 { return total }
      try body(UnsafeRawBufferPointer(start: buffer, count: count))
      total += Int64(count)
    }
    return total
  }

  /// Removes `path` and everything under it, never following a symlink, making each folder
  /// writable first (a read-only folder's entries cannot be removed). Best effort: what cannot
  /// be removed stays. Works relative to open folders (`unlinkat`), one listing per folder.
  static func removeTree(_ path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    guard info.st_mode & S_IFMT == S_IFDIR else {
      unlink(path)
      return
    }
    chmod(path, 0o700)
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    if fd >= 0 { removeContents(of: fd) }
    rmdir(path)
  }

  /// Empties the folder open at `fd`, and closes it.
  private static func removeContents(of fd: Int32) {
    guard let directory = fdopendir(fd) else {
      close(fd)
      return
    }
    defer { closedir(directory) }
    let folder = dirfd(directory)
    var names: [(name: String, isFolder: Bool?)] = []
    while let item = readdir(directory) {
      let name = self.name(of: item)
      if name == "." || name == ".." { continue }
      let type = item.pointee.d_type
      names.append((name, type == UInt8(DT_UNKNOWN) ? nil : type == UInt8(DT_DIR)))
    }
    for (name, isFolder) in names {
      RawName.withCString(name) { name in
        var folderEntry = isFolder ?? false
        if isFolder == nil {
          var info = stat()
          folderEntry =
            fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && info.st_mode & S_IFMT == S_IFDIR
        }
        guard folderEntry else {
          unlinkat(folder, name, 0)
          return
        }
        fchmodat(folder, name, 0o700, 0)
        let child = openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if child >= 0 { removeContents(of: child) }
        unlinkat(folder, name, AT_REMOVEDIR)
      }
    }
  }
}

/// Modification and change times of `stat` results, which Linux and macOS spell differently.
enum FileTimes {
  /// The modification time in nanoseconds since the epoch.
  static func modifiedNs(_ info: stat) -> Int64 {
    #if canImport(Darwin)
      nanoseconds(info.st_mtimespec)
    #else
      nanoseconds(info.st_mtim)
    #endif
  }

  /// The status change time (ctime) in nanoseconds since the epoch.
  static func changedNs(_ info: stat) -> Int64 {
    #if canImport(Darwin)
      nanoseconds(info.st_ctimespec)
    #else
      nanoseconds(info.st_ctim)
    #endif
  }

  private static func nanoseconds(_ time: timespec) -> Int64 {
    nanoseconds(seconds: Int64(time.tv_sec), nanoseconds: Int64(time.tv_nsec))
  }

  /// seconds × 10⁹ + nanoseconds, saturating at Int64's range instead of trapping: a file or
  /// an archive entry may carry any time at all (the far future, a hostile 2⁶²).
  static func nanoseconds(seconds: Int64, nanoseconds: Int64) -> Int64 {
    let (scaled, overflowed) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflowed { return seconds < 0 ? Int64.min : Int64.max }
    let (sum, overflowedSum) = scaled.addingReportingOverflow(nanoseconds)
    if overflowedSum { return nanoseconds < 0 ? Int64.min : Int64.max }
    return sum
  }

  /// The modification time in milliseconds since the epoch (rounded down).
  static func modifiedMs(_ info: stat) -> Int64 {
    floorDiv(modifiedNs(info), 1_000_000)
  }

  /// Sets an open file's access and modification times to `ms`. Best effort.
  static func setModified(fd: Int32, ms: Int64) {
    var times = timespecs(ms)
    _ = futimens(fd, &times)
  }

  /// Sets the access and modification times of the file at `path` (not following a symlink)
  /// to `ms`. Best effort.
  static func setModified(path: String, ms: Int64) {
    var times = timespecs(ms)
    _ = utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW)
  }

  private static func timespecs(_ ms: Int64) -> [timespec] {
    let spec = timespec(tv_sec: Int(ms / 1000), tv_nsec: Int((ms % 1000) * 1_000_000))
    return [spec, spec]
  }
}

/// A GiB of zeros that takes no memory: read-only anonymous pages, all of them the kernel's
/// one zero page when read (a 1 MiB buffer of zeros where they cannot be mapped). Unmapped
/// in `deinit`.
final class ZeroPages {
  let bytes: UnsafeRawPointer
  let count: Int
  private let isMapped: Bool

  init() {
    let size = 1 << 30
    let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
    if let mapped, mapped != UnsafeMutableRawPointer(bitPattern: -1) {
      (bytes, count, isMapped) = (UnsafeRawPointer(mapped), size, true)
    } else {
      let block = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 16)
      block.initializeMemory(as: UInt8.self, repeating: 0, count: 1 << 20)
      (bytes, count, isMapped) = (UnsafeRawPointer(block), 1 << 20, false)
    }
  }

  deinit {
    if isMapped {
      munmap(UnsafeMutableRawPointer(mutating: bytes), count)
    } else {
      bytes.deallocate()
    }
  }
}
