import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// libarchive hands the UTF-8 names of an archive over in Unicode NFC, whatever their bytes
/// in the archive (a save copied from a Mac names `é` as `e` and a combining accent), while a
/// SaveVault manifest lists every name as it was on disk. After an extraction into the working
/// directory, what came out under another spelling of a listed name is renamed to the
/// manifest's bytes, so that a restore gives back the names byte for byte.
enum NameSpelling {
  /// Renames the entries of `extracted` (relative to the working directory) whose names are
  /// spelled otherwise in `manifest`, deepest first, and makes again the symlinks whose target
  /// is; returns the entries with the manifest's spelling. Swift compares strings by canonical
  /// equivalence, so `manifest` finds each entry under either spelling.
  static func restore(_ extracted: [ManifestEntry], as manifest: [ManifestEntry]) throws -> [ManifestEntry] {
    var listed: [String: ManifestEntry] = [:]
    for entry in manifest { listed[entry.path] = entry }
    var result = extracted
    var renames: [(index: Int, depth: Int)] = []
    for (index, entry) in extracted.enumerated() {
      guard let original = listed[entry.path] else { continue }
      if !original.path.utf8.elementsEqual(entry.path.utf8) {
        renames.append((index, entry.path.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "/") ? 1 : 0) }))
      }
      if let target = original.target, let extractedTarget = entry.target,
        !target.utf8.elementsEqual(extractedTarget.utf8)
      {
        try RawName.withCString(entry.path) { path in
          guard unlink(path) == 0, RawName.withCString(target, { symlink($0, path) }) == 0 else {
            throw ArchiveError.writeFailed(path: entry.path, reason: Platform.describe(errno: errno))
          }
        }
        result[index].target = target
      }
    }
    // Deepest first: a parent keeps its extracted spelling until its children are renamed.
    for (index, _) in renames.sorted(by: { $0.depth > $1.depth }) {
      let entry = extracted[index]
      guard let original = listed[entry.path] else { continue }
      let parent = EntryPolicy.ancestors(of: entry.path).last.map { $0 + "/" } ?? ""
      let name = original.path.split(separator: "/").last.map(String.init) ?? original.path
      let renamed = parent + name
      let moved = RawName.withCString(entry.path) { from in RawName.withCString(renamed) { rename(from, $0) }
      }
      guard moved == 0 else {
        throw ArchiveError.writeFailed(path: entry.path, reason: Platform.describe(errno: errno))
      }
    }
    for (index, _) in renames {
      result[index].path = listed[extracted[index].path]?.path ?? result[index].path
    }
    return result
  }
}
