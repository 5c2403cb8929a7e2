import Foundation

/// The files a restore staged, each by its inode, size and modification time, taken before the
/// swap: a file of the save after the swap that is none of them was written by another program
/// (the game, started meanwhile) and is no part of what the restore agreed on.
struct RestoredStamps {
  private struct Stamp: Hashable {
    var inode: UInt64
    var size: Int64
    var modifiedNs: Int64

    init(_ entry: SaveScanEntry) {
      (inode, size, modifiedNs) = (entry.inode, entry.size, entry.modifiedNs)
    }
  }

  private var stamps: Set<Stamp>

  /// The stamps of every file under the staged `folders` (a rename keeps all three).
  init(staged folders: [String]) {
    stamps = Set(
      folders.flatMap { folder in
        ((try? SaveScan.scan(folder)?.entries) ?? []).filter { $0.kind == .file }.map(Stamp.init)
      })
  }

  /// The paths of `scan`, the save after the swap, that may not hold what `content` (the
  /// archive's) says: entries the archive lacks and files that are not the ones staged. Nil
  /// when the scan is exactly what the restore put in place.
  func notRestored(_ scan: SaveScan, content: [ManifestEntry]) -> Set<String>? {
    let expected = Set(content.map(\.path))
    let differing = scan.entries.filter { entry in
      !expected.contains(entry.path) || (entry.kind == .file && !stamps.contains(Stamp(entry)))
    }
    let isWhole = Set(scan.entries.map(\.path)).isSuperset(of: expected)
    return differing.isEmpty && isWhole ? nil : Set(differing.map(\.path))
  }
}
