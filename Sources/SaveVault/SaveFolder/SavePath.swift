import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The name of SaveVault's own folder inside archives (and ignored in save directories).
let reservedFolder = ".savevault"

/// Whether `a` sorts before `b` by their UTF-8 bytes (the scan's and the archive's order).
func pathPrecedes(_ a: String, _ b: String) -> Bool {
  let answer = a.utf8.withContiguousStorageIfAvailable { x in
    b.utf8.withContiguousStorageIfAvailable { y -> Bool in
      let common = min(x.count, y.count)
      if common > 0, let p = x.baseAddress, let q = y.baseAddress {
        let order = memcmp(p, q, common)
        if order != 0 { return order < 0 }
      }
      return x.count < y.count
    }
  }
  return (answer ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)
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
