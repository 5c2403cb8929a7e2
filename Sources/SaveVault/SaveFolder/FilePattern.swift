/// The files of a location that is not a whole folder: one file (`options.ron`) or a glob over
/// the paths inside the location's folder (`*.sav`, `profiles/**/general.opt`), in the
/// manifest's glob syntax (`Glob`). Only regular files match; a folder matched by the pattern
/// is no part of the save (the manifest names files this way), nor is what the folder holds
/// besides the matching files: a restore puts back and moves away matching files only, and
/// never replaces the folder (often a game's install folder or a whole AppData tree).
public struct FilePattern: Codable, Sendable, Equatable, Hashable {
  /// The glob, relative to the location's folder, `/`-separated, never empty.
  public var pattern: String
  /// False inside a Wine or Proton prefix, where Windows games spell names as they like.
  public var caseSensitive: Bool

  public init(pattern: String, caseSensitive: Bool) {
    self.pattern = pattern
    self.caseSensitive = caseSensitive
  }

  /// A pattern that matches exactly the file `name` (a name inside the folder, no `/`).
  public static func file(_ name: String, caseSensitive: Bool) -> FilePattern {
    FilePattern(pattern: Glob.escape(name), caseSensitive: caseSensitive)
  }

  var components: [String] { pattern.split(separator: "/").map(String.init) }

  /// Whether `path`, relative to the location's folder, is one the pattern names.
  public func matches(_ path: String) -> Bool {
    let names = path.split(separator: "/").map(String.init)
    let parts = components
    // Component by component; `**` spans any number of folders (none too).
    func match(_ n: Int, _ p: Int) -> Bool {
      if p == parts.count { return n == names.count }
      if parts[p] == "**" {
        return (n...names.count).contains { match($0, p + 1) }
      }
      guard n < names.count, Glob.matches(names[n], parts[p], caseSensitive: caseSensitive) else {
        return false
      }
      return match(n + 1, p + 1)
    }
    return match(0, 0)
  }

  /// Splits a path that holds glob characters into its longest folder free of them and the
  /// pattern after it: `/a/b/*.sav` is `/a/b` and `*.sav`. Nil when no component is a glob.
  public static func split(_ path: String) -> (folder: String, pattern: String)? {
    let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    guard let first = parts.firstIndex(where: { $0 == "**" || Glob.literal($0) == nil }), first > 0 else {
      return nil
    }
    let folder = parts[..<first].joined(separator: "/")
    return (folder.isEmpty ? "/" : folder, parts[first...].joined(separator: "/"))
  }
}
