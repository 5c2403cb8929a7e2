/// Where a scan's files really are. A one-folder save is one root; a save of several
/// locations is one top-level name per location (`1-Hades`, `2-Saves`), each standing for the
/// folder it really is, so that the archive, the fingerprint and the restore see one tree.
public struct SaveSource: Sendable, Equatable {
  /// The save directory, symlinks resolved (for several locations: the first one's).
  public var root: String
  /// For a save of several locations: each top-level name and the real folder it stands for.
  public var locations: [String: String] = [:]

  public init(root: String, locations: [String: String] = [:]) {
    self.root = root
    self.locations = locations
  }

  /// The folder and the path inside it where the entry at `path` (a scan's or an archive's
  /// path) really is.
  public func split(_ path: String) -> (root: String, relative: String) {
    guard !locations.isEmpty else { return (root, path) }
    let slash = path.utf8.firstIndex(of: UInt8(ascii: "/"))
    let name = slash.map { String(path[..<$0]) } ?? path
    let rest = slash.map { String(path[path.utf8.index(after: $0)...]) } ?? ""
    return (locations[name] ?? root + "/" + name, rest)
  }
}
