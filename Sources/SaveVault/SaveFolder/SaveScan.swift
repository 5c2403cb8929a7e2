import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What kind of thing an entry of a save directory or an archive is.
public enum EntryKind: String, Codable, Sendable {
  case file, directory, symlink
}

/// One entry of a save directory, by metadata.
public struct SaveScanEntry: Equatable, Sendable {
  /// The path relative to the save directory, `/`-separated, every byte kept (`RawName`).
  public var path: String
  public var kind: EntryKind
  /// Bytes for files, 0 otherwise.
  public var size: Int64
  /// Modification time in nanoseconds since the epoch.
  public var modifiedNs: Int64
  /// Permission bits (`0o7777`).
  public var mode: UInt32
  /// A symlink's target, every byte kept (`RawName`).
  public var linkTarget: String?
  /// Status change time in nanoseconds since the epoch: no one sets it back, so a file copied
  /// in with its old size and mtime (`cp -p`, `rsync -a`, unzip) still shows a change.
  public var changedNs: Int64 = 0
  /// The inode number (a file renamed over this one has another).
  public var inode: UInt64 = 0
  /// The filesystem (`st_dev`) and the number of names the file has (`st_nlink`): files with
  /// the same device and inode are one file under several names (hard links).
  public var device: UInt64 = 0
  public var linkCount: UInt64 = 1
}

extension SaveScanEntry {
  /// The entry at `path` with the times, mode and identity of its `lstat`, as a file of no
  /// size (a scan sets its kind, size and target).
  init(path: String, status info: stat) {
    self.init(
      path: path, kind: .file, size: 0, modifiedNs: FileTimes.modifiedNs(info),
      mode: UInt32(info.st_mode) & 0o7777, linkTarget: nil, changedNs: FileTimes.changedNs(info),
      inode: UInt64(info.st_ino), device: UInt64(info.st_dev), linkCount: UInt64(info.st_nlink))
  }
}

/// A scan of the live save folder: the metadata of each entry at one moment, in a stable order
/// (by path bytes, so a directory always comes before what it holds). Not a stored backup: an
/// archive is packed from a scan.
///
/// Symlinks whose target stays inside the directory are kept as symlinks; others, and FIFOs,
/// sockets and devices, are skipped with a reason. Nothing is followed out of the directory.
/// The top-level `.savevault` folder is SaveVault's own and never part of a save.
public struct SaveScan: Sendable {
  /// The save directory with every symlink resolved.
  public var root: String
  public var entries: [SaveScanEntry]
  /// Entries left out, with why.
  public var skipped: [(path: String, reason: String)]
  /// For a save of several locations: each top-level name of `entries` and the real folder it
  /// stands for (`SaveSource`); empty for a one-folder save.
  public var locations: [String: String] = [:]

  /// When the scan began, by the clock of whoever scanned (nil when not told): how recent a
  /// file's time is next to it says whether its metadata can vouch for its content later.
  public var scannedAtMs: Int64?

  /// Paths left out by the game's `exclude` globs (under their location's name): not part of
  /// the save, and kept where they are by a restore.
  public var excluded: [String] = []

  /// Where the entries' files really are.
  public var source: SaveSource { SaveSource(root: root, locations: locations) }

  /// Number of regular files.
  public var fileCount: Int { entries.reduce(0) { $0 + ($1.kind == .file ? 1 : 0) } }
  /// Bytes in regular files.
  public var byteCount: Int64 { entries.reduce(0) { $0 + $1.size } }
  /// The newest modification of any file or folder, in ms; nil when empty.
  public var newestModifiedMs: Int64? {
    entries.map(\.modifiedNs).max().map { floorDiv($0, 1_000_000) }
  }
  /// Whether there is nothing to back up: no files and no symlinks (a tree of empty folders,
  /// which a game may create before its first save, is empty too).
  public var isEmpty: Bool { !entries.contains { $0.kind != .directory } }

  /// A digest of every entry's path, kind, size, mtime, mode, link target, change time and
  /// inode: equal digests mean nothing changed (the fingerprint's fast path). One line per
  /// entry, `kind NUL path NUL size NUL mtime NUL mode NUL target NUL ctime NUL inode LF`,
  /// numbers in decimal.
  public var metadataDigest: String {
    let hash = SHA256()
    var line: [UInt8] = []
    line.reserveCapacity(4096)
    for entry in entries {
      line.append(contentsOf: entry.kind.rawValue.utf8)
      line.append(0)
      line.append(contentsOf: entry.path.utf8)
      line.append(0)
      appendDecimal(Int64(entry.size), to: &line)
      line.append(0)
      appendDecimal(entry.modifiedNs, to: &line)
      line.append(0)
      appendDecimal(Int64(entry.mode), to: &line)
      line.append(0)
      if let target = entry.linkTarget { line.append(contentsOf: target.utf8) }
      line.append(0)
      appendDecimal(entry.changedNs, to: &line)
      line.append(0)
      appendDecimal(Int64(bitPattern: entry.inode), to: &line)
      line.append(0x0A)
      if line.count >= 4096 {
        hash.update(line)
        line.removeAll(keepingCapacity: true)
      }
    }
    hash.update(line)
    return hash.finalize()
  }
}

extension SaveScan {
  /// The files that are hard links to a file earlier in the scan: for each, by index in
  /// `entries`, the index of the first of its names. An archive stores the data once, under
  /// the first name. Names of one file agree on every other fact; a filesystem whose inode
  /// numbers say otherwise (some FUSE mounts) gets no links.
  func hardlinks() -> [Int: Int] {
    struct FileID: Hashable {
      var device: UInt64
      var inode: UInt64
    }
    var first: [FileID: Int] = [:]
    var links: [Int: Int] = [:]
    for (index, entry) in entries.enumerated() where entry.kind == .file && entry.linkCount > 1 {
      let id = FileID(device: entry.device, inode: entry.inode)
      guard let earlier = first[id] else {
        first[id] = index
        continue
      }
      let target = entries[earlier]
      if target.size == entry.size && target.modifiedNs == entry.modifiedNs
        && target.changedNs == entry.changedNs
        && target.mode == entry.mode
      {
        links[index] = earlier
      }
    }
    return links
  }
}

extension SaveScan {
  /// Scans the directory at `path` (following symlinks to reach it, never inside it).
  /// Returns nil when it does not exist. Throws `SaveFolderError` for unreadable folders or a
  /// non-directory.
  public static func scan(_ path: String) throws -> SaveScan? {
    guard let root = Platform.realPath(path) else {
      if errno == ENOENT || errno == ENOTDIR { return nil }
      throw SaveFolderError.unresolvable(path: path, reason: Platform.describe(errno: errno))
    }
    var info = stat()
    guard RawName.withCString(root, { stat($0, &info) }) == 0 else { return nil }
    guard info.st_mode & S_IFMT == S_IFDIR else {
      throw SaveFolderError.notDirectory(path: path)
    }
    let fd = RawName.withCString(root) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    guard fd >= 0 else {
      throw SaveFolderError.unreadable(path: root, reason: Platform.describe(errno: errno))
    }
    var scan = SaveScan(root: root, entries: [], skipped: [])
    try scan.walk(fd, relative: "")
    scan.entries.sort { pathPrecedes($0.path, $1.path) }
    return scan
  }

  /// Lists the folder open at `fd` (and closes it) with one `fstatat` per entry relative to
  /// it, then walks its subfolders, each opened relative to it without following symlinks.
  mutating func walk(_ fd: Int32, relative: String) throws {
    let folder = relative.isEmpty ? root : root + "/" + relative
    guard let directory = fdopendir(fd) else {
      let code = errno
      close(fd)
      throw SaveFolderError.unreadable(path: folder, reason: Platform.describe(errno: code))
    }
    defer { closedir(directory) }
    let folderFD = dirfd(directory)
    var subfolders: [(path: String, name: String)] = []
    while true {
      errno = 0
      guard let item = readdir(directory) else {
        if errno != 0 {
          throw SaveFolderError.unreadable(path: folder, reason: Platform.describe(errno: errno))
        }
        break
      }
      let name = Platform.name(of: item)
      if name == "." || name == ".." || (relative.isEmpty && name == reservedFolder) { continue }
      let path = relative.isEmpty ? name : relative + "/" + name
      var info = stat()
      guard RawName.withCString(name, { fstatat(folderFD, $0, &info, AT_SYMLINK_NOFOLLOW) }) == 0 else {
        if errno == ENOENT { continue }  // vanished while listing
        throw SaveFolderError.unreadable(path: folder + "/" + name, reason: Platform.describe(errno: errno))
      }
      var entry = SaveScanEntry(path: path, status: info)
      switch info.st_mode & S_IFMT {
      case S_IFREG:
        entry.size = Int64(info.st_size)
      case S_IFDIR:
        entry.kind = .directory
        subfolders.append((path, name))
      case S_IFLNK:
        let target = try Self.readLink(folderFD, name, fullPath: folder + "/" + name)
        guard SymlinkPolicy.staysInside(linkPath: path, target: target) else {
          skipped.append((path, "symlink to '\(target)' leads outside the save directory"))
          continue
        }
        entry.kind = .symlink
        entry.linkTarget = target
      default:
        skipped.append((path, "not a file, folder or symlink (FIFO, socket or device)"))
        continue
      }
      entries.append(entry)
    }
    for subfolder in subfolders {
      let child = RawName.withCString(subfolder.name) {
        openat(folderFD, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      }
      guard child >= 0 else {
        if errno == ENOENT { continue }  // vanished while listing
        throw SaveFolderError.unreadable(
          path: root + "/" + subfolder.path, reason: Platform.describe(errno: errno))
      }
      try walk(child, relative: subfolder.path)
    }
  }

  /// Scans a save of several locations as one tree: each location's entries under its own
  /// top-level `name` (the name's own folder entry is not listed, so that a location missing
  /// and one empty look alike). A location that does not exist holds nothing; nil when none
  /// exists. `isExcluded` is asked with each path inside its location (`Saves/cache/x`);
  /// what it excludes is left out with its folder's content, as not part of the save.
  /// A location with a `FilePattern` (by its name in `patterns`) holds only the files in its
  /// folder that the pattern matches. A file two locations name (two globs of one game over
  /// one folder) is the first one's only: stored once, restored once.
  public static func scan(
    locations: [(name: String, path: String)], patterns: [String: FilePattern] = [:],
    isExcluded: (String) -> Bool = { _ in false }
  ) throws -> SaveScan? {
    var result: SaveScan?
    var named = Set<String>()
    for location in locations {
      let found =
        try patterns[location.name].map { try scan(location.path, files: $0) } ?? scan(location.path)
      guard var part = found else { continue }
      part.entries.removeAll { $0.kind == .file && !named.insert(part.root + "/" + $0.path).inserted }
      var whole = result ?? SaveScan(root: part.root, entries: [], skipped: [])
      whole.locations[location.name] = part.root
      var excludedFolders: [String] = []
      for var entry in part.entries {
        if excludedFolders.contains(where: { entry.path.hasPrefix($0 + "/") }) { continue }
        if isExcluded(entry.path) {
          if entry.kind == .directory { excludedFolders.append(entry.path) }
          whole.excluded.append(location.name + "/" + entry.path)
          continue
        }
        entry.path = location.name + "/" + entry.path
        whole.entries.append(entry)
      }
      whole.skipped += part.skipped.map { (location.name + "/" + $0.path, $0.reason) }
      result = whole
    }
    result?.entries.sort { pathPrecedes($0.path, $1.path) }
    return result
  }

  static func readLink(_ folderFD: Int32, _ name: String, fullPath: String) throws -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = RawName.withCString(name) { readlinkat(folderFD, $0, &buffer, buffer.count - 1) }
    guard count >= 0 else {
      throw SaveFolderError.unreadable(path: fullPath, reason: Platform.describe(errno: errno))
    }
    return RawName.string(buffer[0..<count].map { UInt8(bitPattern: $0) })
  }
}
