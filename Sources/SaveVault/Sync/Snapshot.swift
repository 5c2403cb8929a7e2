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
public struct SnapshotEntry: Equatable, Sendable {
  /// The path relative to the save directory, `/`-separated.
  public var path: String
  public var kind: EntryKind
  /// Bytes for files, 0 otherwise.
  public var size: Int64
  /// Modification time in nanoseconds since the epoch.
  public var modifiedNs: Int64
  /// Permission bits (`0o7777`).
  public var mode: UInt32
  /// A symlink's target.
  public var linkTarget: String?
}

/// The metadata of a save directory at one moment, in a stable order (by path bytes, so a
/// directory always comes before what it holds).
///
/// Symlinks whose target stays inside the directory are kept as symlinks; others, and FIFOs,
/// sockets and devices, are skipped with a reason. Nothing is followed out of the directory.
/// The top-level `.savevault` folder is SaveVault's own and never part of a save.
public struct Snapshot: Sendable {
  /// The save directory with every symlink resolved.
  public var root: String
  public var entries: [SnapshotEntry]
  /// Entries left out, with why.
  public var skipped: [(path: String, reason: String)]

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

  /// A digest of every entry's path, kind, size, mtime, mode and link target: equal digests
  /// mean nothing changed (the fingerprint's fast path).
  public var metadataDigest: String {
    let hash = SHA256()
    for entry in entries {
      hash.update(
        Array(
          "\(entry.kind.rawValue)\u{0}\(entry.path)\u{0}\(entry.size)\u{0}\(entry.modifiedNs)\u{0}\(entry.mode)\u{0}\(entry.linkTarget ?? "")\n"
            .utf8))
    }
    return hash.finalize()
  }
}

/// The name of SaveVault's own folder inside archives (and ignored in save directories).
let reservedFolder = ".savevault"

extension Snapshot {
  /// Scans the directory at `path` (following symlinks to reach it, never inside it).
  /// Returns nil when it does not exist. Throws for unreadable folders or a non-directory.
  public static func scan(_ path: String) throws -> Snapshot? {
    guard let root = Platform.realPath(path) else {
      if errno == ENOENT || errno == ENOTDIR { return nil }
      throw VaultError.io(path: path, reason: Platform.describe(errno: errno))
    }
    var info = stat()
    guard stat(root, &info) == 0 else { return nil }
    guard info.st_mode & S_IFMT == S_IFDIR else {
      throw VaultError.saveDirectoryNotDirectory(path: path)
    }
    var snapshot = Snapshot(root: root, entries: [], skipped: [])
    try snapshot.walk(relative: "")
    snapshot.entries.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    return snapshot
  }

  private mutating func walk(relative: String) throws {
    let folder = relative.isEmpty ? root : root + "/" + relative
    let names: [String]
    do {
      names = try Platform.directoryNames(folder)
    } catch {
      throw ArchiveError.unreadable(path: folder, reason: Platform.describe(errno: error.code))
    }
    var subfolders: [String] = []
    for name in names {
      if relative.isEmpty && name == reservedFolder { continue }
      let path = relative.isEmpty ? name : relative + "/" + name
      let full = folder + "/" + name
      var info = stat()
      guard lstat(full, &info) == 0 else {
        if errno == ENOENT { continue }  // vanished while listing
        throw ArchiveError.unreadable(path: full, reason: Platform.describe(errno: errno))
      }
      var entry = SnapshotEntry(
        path: path, kind: .file, size: 0, modifiedNs: FileTimes.modifiedNs(info),
        mode: UInt32(info.st_mode) & 0o7777, linkTarget: nil)
      switch info.st_mode & S_IFMT {
      case S_IFREG:
        entry.size = Int64(info.st_size)
      case S_IFDIR:
        entry.kind = .directory
        subfolders.append(path)
      case S_IFLNK:
        let target = try Self.readLink(full)
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
    for subfolder in subfolders { try walk(relative: subfolder) }
  }

  private static func readLink(_ path: String) throws -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count >= 0 else {
      throw ArchiveError.unreadable(path: path, reason: Platform.describe(errno: errno))
    }
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

/// The rule for symlinks, shared by packing and extraction.
enum SymlinkPolicy {
  /// Whether a symlink at `linkPath` (relative to the root) pointing to `target` stays inside
  /// the root whatever the other symlinks are: the target is relative, non-empty, made of
  /// leading `..` components followed only by plain names, and never climbs above the root.
  static func staysInside(linkPath: String, target: String) -> Bool {
    guard !target.isEmpty, !target.hasPrefix("/"), !target.contains("\u{0}") else { return false }
    var depth = linkPath.split(separator: "/").count - 1
    var seenName = false
    for component in target.split(separator: "/", omittingEmptySubsequences: true) {
      if component == "." { return false }
      if component == ".." {
        if seenName { return false }
        depth -= 1
        if depth < 0 { return false }
      } else {
        seenName = true
      }
    }
    return true
  }
}
