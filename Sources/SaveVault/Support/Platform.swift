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

/// The few system calls SaveVault makes directly, in one place, so that the rest of the
/// library stays portable between Linux and macOS.
enum Platform {
  /// The text of an `errno` value.
  static func describe(errno code: Int32) -> String {
    String(cString: strerror(code))
  }

  /// `realpath(3)`: the absolute path with every symlink resolved, or nil if it does not exist.
  static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// Whether `path` is a folder (symlinks followed).
  static func isFolder(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
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
  /// otherwise a dangling symlink's target (followed up to 8 times), or the real parent
  /// folder joined with the last component.
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
    return (realPath(folder) ?? folder) + "/" + name
  }

  /// The names in `folder` (without `.` and `..`). Throws the `errno` of a failed open or read,
  /// so that a folder that cannot be listed is never mistaken for an empty one.
  static func directoryNames(_ folder: String) throws(SystemError) -> [String] {
    guard let directory = opendir(folder) else {
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
    return stat(path, &info) == 0 ? [UInt64(info.st_dev), UInt64(info.st_ino)] : nil
  }

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

  /// The name of a `readdir` entry, every byte kept (`RawName`).
  static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
    withUnsafePointer(to: &entry.pointee.d_name) { pointer in
      pointer.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { RawName.string(cString: $0) }
    }
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

  /// The filesystem `path` is on (its `st_dev`), or nil when it cannot be read.
  static func deviceID(_ path: String) -> UInt64? {
    var info = stat()
    return lstat(path, &info) == 0 ? UInt64(info.st_dev) : nil
  }

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
  private static func string(fromCString buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Links `source` to `destination` without ever replacing an existing `destination`, then
  /// removes `source`. Falls back to an existence check and `rename` on filesystems without
  /// hard links (exFAT SD cards, some FUSE mounts). A `destination` that is already `source`'s
  /// file (a move killed between its link and its unlink) is finished.
  static func moveNoReplace(from source: String, to destination: String) throws(SystemError) {
    if link(source, destination) == 0 {
      unlink(source)
      return
    }
    let code = errno
    if code == EEXIST {
      var from = stat()
      var to = stat()
      if lstat(source, &from) == 0, lstat(destination, &to) == 0, from.st_dev == to.st_dev,
        from.st_ino == to.st_ino, from.st_mode & S_IFMT == S_IFREG
      {
        unlink(source)
        return
      }
      throw SystemError(operation: "link", path: destination, code: code)
    }
    guard code == EPERM || code == ENOTSUP || code == EOPNOTSUPP || code == EMLINK || code == EXDEV
    else { throw SystemError(operation: "link", path: destination, code: code) }
    var info = stat()
    if lstat(destination, &info) == 0 {
      throw SystemError(operation: "rename", path: destination, code: EEXIST)
    }
    guard rename(source, destination) == 0 else {
      throw SystemError(operation: "rename", path: destination, code: errno)
    }
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

  /// Reads `fd` to its end in chunks of up to 1 MiB, handing each to `body`; returns the byte
  /// count. A read error throws `SystemError` naming `path`; `body`'s errors pass through.
  static func forEachChunk(
    of fd: Int32, path: String, _ body: (UnsafeRawBufferPointer) throws -> Void
  ) throws -> Int64 {
    let size = 1 << 20
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    defer { buffer.deallocate() }
    var total: Int64 = 0
    while true {
      let count = read(fd, buffer, size)
      if count < 0 {
        if errno == EINTR { continue }
        throw SystemError(operation: "read", path: path, code: errno)
      }
      if count == 0 { return total }
      try body(UnsafeRawBufferPointer(start: buffer, count: count))
      total += Int64(count)
    }
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

  /// The free bytes on the filesystem that holds `path`, or nil if unknown.
  static func freeBytes(at path: String) -> Int64? {
    var info = statvfs()
    guard statvfs(path, &info) == 0 else { return nil }
    return Int64(info.f_bavail) * Int64(info.f_frsize)
  }
}

/// A failed system call: which, on what, and `errno`.
struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
  var operation: String
  var path: String
  var code: Int32

  var description: String { "\(operation) '\(path)': \(Platform.describe(errno: code))" }
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
    let spec = timespec(tv_sec: Int(ms / 1000), tv_nsec: Int((ms % 1000) * 1_000_000))
    var times = [spec, spec]
    _ = futimens(fd, &times)
  }
}
