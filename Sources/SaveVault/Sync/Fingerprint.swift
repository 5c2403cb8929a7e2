import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Decides whether a save directory changed since the agreement's agreement: first by metadata
/// (path, size, mtime in ns, mode, ctime in ns, inode), and when that differs, by content,
/// hashing only the files whose metadata differs from the agreed index. A game that rewrites
/// identical bytes raises no change; other bytes copied in with the old size and mtime
/// (`cp -p`) do, as their ctime (and often inode) is new.
struct Fingerprint {
  var scan: SaveScan

  /// Whether the save differs from the agreed record. A missing or damaged index counts as
  /// changed (never as agreement).
  func hasChanged(since record: Agreement, index: () -> [String: AgreedFile]?) throws -> Bool {
    if scan.metadataDigest == record.metadataDigest { return false }
    guard let known = index() else { return true }
    return try contentDigest(known: known) != record.contentDigest
  }

  /// The content digest of the scan, reusing `known` hashes for files whose metadata
  /// matches and hashing the rest.
  func contentDigest(known: [String: AgreedFile] = [:]) throws -> String {
    ContentDigest.of(try contentEntries(known: known))
  }

  /// The scan as manifest entries, with content hashes.
  func contentEntries(known: [String: AgreedFile] = [:]) throws -> [ManifestEntry] {
    try scan.entries.map { entry in
      switch entry.kind {
      case .directory: return ManifestEntry(path: entry.path, kind: .directory)
      case .symlink: return ManifestEntry(path: entry.path, kind: .symlink, target: entry.linkTarget)
      case .file:
        if let agreed = known[entry.path], agreed.matches(entry), !agreed.detail.isEmpty {
          return ManifestEntry(path: entry.path, kind: .file, size: entry.size, sha256: agreed.detail)
        }
        let (root, relative) = scan.source.split(entry.path)
        let (size, digest) = try Self.hashFile(relative, under: root)
        return ManifestEntry(path: entry.path, kind: .file, size: size, sha256: digest)
      }
    }
  }

  /// The size and hash (`FileDigest`: a sparse file's holes are not read) of the file at
  /// `relative` (in `RawName`'s mapping) under `root`.
  static func hashFile(_ relative: String, under root: String) throws -> (Int64, String) {
    let path = root + "/" + relative
    let fd = RawName.withCString(relative, under: root) { open($0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
    guard fd >= 0 else {
      throw SaveFolderError.unreadable(path: path, reason: Platform.describe(errno: errno))
    }
    defer { close(fd) }
    do {
      return try FileDigest.of(fd: fd, path: path)
    } catch let error as SystemError {
      throw SaveFolderError.unreadable(path: path, reason: Platform.describe(errno: error.code))
    }
  }
}
