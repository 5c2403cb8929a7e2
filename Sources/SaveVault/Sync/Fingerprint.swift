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
///
/// Metadata vouches for a file only when the file is clearly older than the scan its index
/// entry was recorded from, as git treats a "racily clean" entry: a file rewritten right after
/// that scan with the same size may keep every time it had on a filesystem whose times are
/// coarse and that has no change time of its own (FAT and exFAT: 2 s). A file whose time is
/// within `granularityNs` of the recording is hashed at every look until an agreement recorded
/// later finds it older.
struct Fingerprint {
  var scan: SaveScan

  /// Whether the save differs from the agreed record. A missing or damaged index counts as
  /// changed (never as agreement).
  func hasChanged(since record: Agreement, index: () -> [String: AgreedFile]?) throws -> Bool {
    let untrusted = untrustedFiles(since: record)
    if untrusted.isEmpty, scan.metadataDigest == record.metadataDigest { return false }
    guard let known = index() else { return true }
    return try contentDigest(known: known, untrusted: untrusted) != record.contentDigest
  }

  /// The files of the scan whose metadata cannot vouch for their content against `record`'s
  /// index: their modification time is not clearly before the scan the index was recorded
  /// from (`Agreement.indexedAtMs`), by the filesystem's time granularity (`granularityNs`).
  func untrustedFiles(since record: Agreement) -> Set<String> {
    let recordedNs = record.indexedAtMs.multipliedReportingOverflow(by: 1_000_000)
    guard !recordedNs.overflow else { return [] }
    let isCoarse = ([scan.root] + scan.locations.values).contains(where: Platform.hasCoarseTimes)
    var untrusted = Set<String>()
    for entry in scan.entries where entry.kind == .file {
      let granularity = Self.granularityNs(modifiedNs: entry.modifiedNs, isCoarse: isCoarse)
      if entry.modifiedNs > recordedNs.partialValue - granularity { untrusted.insert(entry.path) }
    }
    return untrusted
  }

  /// How far apart two moments may be and still give a file the same modification time:
  /// 2 s on a filesystem of coarse times, and (to be safe, wherever it is) for a time of whole
  /// seconds; else 20 ms, the kernel's coarse clock and exFAT's 10 ms with room to spare.
  static func granularityNs(modifiedNs: Int64, isCoarse: Bool) -> Int64 {
    isCoarse || modifiedNs % 1_000_000_000 == 0 ? 2_000_000_000 : 20_000_000
  }

  /// The content digest of the scan, reusing `known` hashes for files whose metadata
  /// matches (but those of `untrusted`) and hashing the rest.
  func contentDigest(known: [String: AgreedFile] = [:], untrusted: Set<String> = []) throws -> String {
    ContentDigest.of(try contentEntries(known: known, untrusted: untrusted))
  }

  /// The scan as manifest entries, with content hashes: `known`'s for files whose metadata
  /// matches it, but for those of `untrusted` (`untrustedFiles`), which are hashed again.
  func contentEntries(known: [String: AgreedFile] = [:], untrusted: Set<String> = []) throws
    -> [ManifestEntry]
  {
    try scan.entries.map { entry in
      switch entry.kind {
      case .directory: return ManifestEntry(path: entry.path, kind: .directory)
      case .symlink: return ManifestEntry(path: entry.path, kind: .symlink, target: entry.linkTarget)
      case .file:
        if let agreed = known[entry.path], agreed.matches(entry), !agreed.detail.isEmpty,
          !untrusted.contains(entry.path)
        {
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
