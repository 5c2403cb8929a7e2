import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Pure rules for archive entry paths, applied in Swift before libarchive sees an entry.
enum EntryPolicy {
  /// The outcome of checking one entry path.
  enum PathCheck: Equatable {
    /// A clean relative path: no empty, `.` or `..` components.
    case accepted(String)
    /// The archive's root itself (`.` or `./`): nothing to extract.
    case root
    case refused(String)
  }

  /// Normalises an entry path: drops `.` and empty components. Refuses absolute paths
  /// (`/x`, `//x`), any `..` component, and NUL bytes.
  static func check(path raw: String) -> PathCheck {
    if raw.isEmpty { return .refused("an entry has an empty name") }
    if raw.hasPrefix("/") { return .refused("entry '\(raw)' has an absolute path") }
    if raw.utf8.contains(0) { return .refused("entry '\(raw)' has a NUL byte in its name") }
    var parts: [Substring] = []
    for component in raw.split(separator: "/", omittingEmptySubsequences: true) {
      if component == "." { continue }
      if component == ".." { return .refused("entry '\(raw)' climbs out with '..'") }
      parts.append(component)
    }
    return parts.isEmpty ? .root : .accepted(parts.joined(separator: "/"))
  }

  /// Every proper ancestor of a clean relative path, outermost first: `a/b/c` → `a`, `a/b`.
  static func ancestors(of path: String) -> [String] {
    var result: [String] = []
    var current = ""
    for component in path.split(separator: "/").dropLast() {
      current = current.isEmpty ? String(component) : current + "/" + component
      result.append(current)
    }
    return result
  }
}

/// Caps that an archive must stay under before anything is extracted, and that a save must
/// stay under to be backed up (so that every backup can be restored).
public struct ExtractionLimits: Sendable, Equatable {
  public var maxEntries: Int
  public var maxDepth: Int
  public var maxTotalBytes: Int64

  public init(maxEntries: Int = 150_000, maxDepth: Int = 128, maxTotalBytes: Int64 = 64 << 30) {
    self.maxEntries = maxEntries
    self.maxDepth = maxDepth
    self.maxTotalBytes = maxTotalBytes
  }
}

extension ExtractionLimits {
  /// Why `scan` could not be restored under these limits, or nil if it can.
  func violation(of scan: SaveScan) -> String? {
    if scan.entries.count > maxEntries {
      return "it has \(scan.entries.count) entries, more than SaveVault restores (\(maxEntries))"
    }
    // Scanned paths are clean (no empty components): the depth is one more than the slashes.
    if let deep = scan.entries.first(where: {
      $0.path.utf8.count >= maxDepth && Self.depth($0.path) > maxDepth
    }) {
      return "'\(deep.path.prefix(80))…' is nested deeper than SaveVault restores (\(maxDepth) levels)"
    }
    let hashed = Self.hashedBytes(of: scan)
    if hashed > maxTotalBytes {
      return "it holds \(hashed) bytes, more than SaveVault restores (\(maxTotalBytes))"
    }
    // Swift strings compare by canonical equivalence, as the restore's checks do, and libarchive
    // reads UTF-8 names back in NFC: two spellings of one name could not both come back.
    var seen: [String: String] = [:]
    for entry in scan.entries where !entry.path.utf8.allSatisfy({ $0 < 0x80 }) {
      if let twin = seen.updateValue(entry.path, forKey: entry.path) {
        return
          "'\(twin)' and '\(entry.path)' differ only in how Unicode spells them (as a Mac and Linux spell é), and a restore could not bring both back: rename one"
      }
    }
    return nil
  }

  /// What a restore of `scan` counts against `maxTotalBytes`: each file's size, but the data
  /// alone of a file hashed by chunks (`FileDigest`), whose holes are never read.
  static func hashedBytes(of scan: SaveScan) -> Int64 {
    scan.entries.reduce(0) { total, entry in
      guard entry.kind == .file, FileDigest.scheme(size: entry.size) == .chunks else {
        return total + entry.size
      }
      let (root, relative) = scan.source.split(entry.path)
      let fd = RawName.withCString(relative, under: root) { open($0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
      guard fd >= 0 else { return total + entry.size }  // the pack says why it cannot be read
      defer { close(fd) }
      var info = stat()
      guard fstat(fd, &info) == 0, Int64(info.st_blocks) * 512 < entry.size,
        let regions = Platform.dataRegions(of: fd, size: entry.size)
      else { return total + entry.size }
      return total + regions.reduce(0) { $0 + $1.upperBound - $1.lowerBound }
    }
  }

  private static func depth(_ path: String) -> Int {
    path.utf8.reduce(1) { $0 + ($1 == UInt8(ascii: "/") ? 1 : 0) }
  }
}
