import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Vault {
  /// Scans the target's save as its archives hold it: a one-folder game's folder at the top,
  /// else all of its locations as one tree (each under its top-level name, the `exclude` globs
  /// left out). Nil when nothing of it exists. A location of registry keys is its export, made
  /// again from the prefix's file first (`RegistryExport`).
  /// The scan says when it began (`scannedAtMs`, the context's clock).
  func scanSave(_ target: Target) throws -> SaveScan? {
    let startedMs = context.clock()
    var scan: SaveScan?
    if target.isOneFolder {
      scan = try SaveScan.scan(target.saveDirectory)
    } else {
      for location in target.locations { try location.shape.kind.prepareScan(location) }
      scan = try SaveScan.scan(
        locations: target.locations.map { ($0.name, $0.path) }, patterns: target.filePatterns,
        isExcluded: Self.exclusion(target))
    }
    scan?.scannedAtMs = startedMs
    return scan
  }

  /// Whether a path inside a location is left out by the target's `exclude` globs.
  static func exclusion(_ target: Target) -> (String) -> Bool {
    let patterns = target.exclude
    return { path in patterns.contains { matches(glob: $0, path: path) } }
  }

  /// Links (or, where links cannot be made, copies) what the `exclude` globs left out of the
  /// location `name` at `save` into `staging`, so that the folder swapped in still has it: it
  /// is no part of the save, and a restore must not take it away.
  func keepExcluded(_ excluded: [String], name: String, from save: String, into staging: String) {
    for path in excluded where path.hasPrefix(name + "/") {
      let inside = String(path.dropFirst(name.count + 1))
      let from = save + "/" + inside
      let to = staging + "/" + inside
      guard !Self.exists(to) else { continue }
      try? FileManager.default.createDirectory(
        atPath: (to as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      if link(from, to) != 0 {
        do {
          try FileManager.default.copyItem(atPath: from, toPath: to)
        } catch {
          context.log.warning(
            "could not keep '\(from)' (excluded from the save) in the restored folder: \(error)")
        }
      }
    }
  }

  /// Whether the path inside a location matches an `exclude` glob: `*` and `?` within one
  /// folder name, `**` across folders, `[...]` a class; a pattern without `/` is matched
  /// against the last name only (`*.log` excludes logs anywhere).
  static func matches(glob: String, path: String) -> Bool {
    let subject = glob.contains("/") ? path : String(path.split(separator: "/").last ?? "")
    let pattern = glob.replacingOccurrences(of: "**/", with: "").replacingOccurrences(of: "**", with: "*")
    let flags = glob.contains("**") ? 0 : FNM_PATHNAME
    return fnmatch(pattern, subject, flags) == 0
      || (glob.contains("**/") && fnmatch(glob.replacingOccurrences(of: "**/", with: "*/"), subject, 0) == 0)
  }

  /// A location of the game whose folder is gone, with the folder that held it, although this
  /// device's agreement has files in it: its drive may be unmounted (an SD card), and
  /// uploading the rest would make a save without it the latest. Nil when every location
  /// that held files is there (or only the location's own folder was deleted).
  func missingLocation(_ target: Target) -> SaveLocation? {
    // A folder deleted by the player (its parent is there) is a change like any other; a
    // folder whose parent is gone too (a drive's whole tree) is not there to be asked.
    let gone = target.locations.filter { location in
      !Self.exists(location.path) && !Self.exists((location.path as NSString).deletingLastPathComponent)
    }
    guard !gone.isEmpty, let index = agreements.loadIndex(target) else { return nil }
    return gone.first { location in index.keys.contains { $0.hasPrefix(location.name + "/") } }
  }
}
