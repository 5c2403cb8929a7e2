import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension SaveScan {
  /// The files in the folder at `path` that `pattern` matches, and those inside the folders
  /// it matches, as a scan of that folder: its regular files, and its symlinks as a scan of a
  /// folder keeps them (a link whose target stays inside the folder is kept as a link; one
  /// leading out of it, and anything else, is skipped with why). Nothing is found through a
  /// symlink inside the folder, and names are the bytes on disk (`RawName`). Nil when the
  /// folder does not exist.
  public static func scan(_ path: String, files pattern: FilePattern) throws -> SaveScan? {
    guard let root = Platform.realPath(path) else {
      if errno == ENOENT || errno == ENOTDIR { return nil }
      throw SaveFolderError.unresolvable(path: path, reason: Platform.describe(errno: errno))
    }
    guard Platform.isFolder(root) else { throw SaveFolderError.notDirectory(path: path) }
    var scan = SaveScan(root: root, entries: [], skipped: [])
    var found: [String: SaveScanEntry] = [:]
    // Every match, however many and however deep: none is left out of the save unsaid.
    let matches = Glob.expand(
      anchor: root, components: pattern.components, caseSensitive: pattern.caseSensitive, maximumDepth: .max,
      limit: .max, followsLinks: false)
    for match in matches {
      let relative = String(match.path.dropFirst(root.count + 1))
      guard !relative.isEmpty, relative.split(separator: "/").first.map(String.init) != reservedFolder else {
        continue
      }
      guard let info = Platform.linkStatus(match.path) else {
        if errno == ENOENT { continue }  // vanished while listing
        throw SaveFolderError.unreadable(path: match.path, reason: Platform.describe(errno: errno))
      }
      var entry = SaveScanEntry(path: relative, status: info)
      switch info.st_mode & S_IFMT {
      case S_IFDIR:
        // A folder it names is part of the save whole: its files and links, as a scan of the
        // location's folder finds them there.
        for inside in try scan.walked(relative) where inside.kind != .directory {
          found[inside.path] = inside
        }
      case S_IFREG:
        entry.size = Int64(info.st_size)
        found[relative] = entry
      case S_IFLNK:
        let folder = (match.path as NSString).deletingLastPathComponent
        let fd = RawName.withCString(folder) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else {
          throw SaveFolderError.unreadable(path: folder, reason: Platform.describe(errno: errno))
        }
        defer { close(fd) }
        let target = try readLink(fd, (match.path as NSString).lastPathComponent, fullPath: match.path)
        guard SymlinkPolicy.staysInside(linkPath: relative, target: target) else {
          scan.skipped.append((relative, "symlink to '\(target)' leads outside the location's folder"))
          continue
        }
        entry.kind = .symlink
        entry.linkTarget = target
        found[relative] = entry
      default:
        scan.skipped.append((relative, "matches the location's files but is not a file, folder or symlink"))
      }
    }
    // (A file inside a folder the pattern names may be matched itself too: once.)
    scan.entries = found.values.sorted { pathPrecedes($0.path, $1.path) }
    return scan
  }

  /// The entries under the folder `relative` of this scan's root, walked as a scan walks the
  /// root (no symlink followed, each link kept or skipped as inside the root); what it skips
  /// is added to `skipped`.
  private mutating func walked(_ relative: String) throws -> [SaveScanEntry] {
    let fd = RawName.withCString(relative, under: root) {
      open($0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    }
    guard fd >= 0 else {
      if errno == ENOENT { return [] }  // vanished while listing
      throw SaveFolderError.unreadable(path: root + "/" + relative, reason: Platform.describe(errno: errno))
    }
    let before = entries.count
    try walk(fd, relative: relative)
    defer { entries.removeSubrange(before...) }
    return Array(entries[before...])
  }
}
