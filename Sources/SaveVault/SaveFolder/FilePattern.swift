/// The files of a location that is not a whole folder: one file (`options.ron`) or a glob over
/// the paths inside the location's folder (`*.sav`, `profiles/**/general.opt`), in the
/// manifest's glob syntax (`Glob`). A regular file the pattern matches is part of the save, and
/// so is every regular file inside a folder it matches (`starrysky*` matching the folder
/// `starrysky/`, as the manifest means it); what the location's folder holds besides is not:
/// a restore puts back and moves away those files only, and never replaces the location's
/// folder (often a game's install folder or a whole AppData tree).
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

  /// Whether `path`, relative to the location's folder, is one the pattern names, or lies in a
  /// folder the pattern names.
  public func matches(_ path: String) -> Bool { matchedPath(path) != nil }

  /// The part of `path` the pattern names: `path` itself, or the outermost folder holding it
  /// that the pattern names (`world.sav` for `world.sav/region1.dat` under `*.sav`); nil when
  /// the pattern names neither.
  public func matchedPath(_ path: String) -> String? {
    let names = path.split(separator: "/").map(String.init)
    guard let count = (1...max(names.count, 1)).first(where: { matchesExactly(names.prefix($0)) }) else {
      return nil
    }
    return names.prefix(count).joined(separator: "/")
  }

  /// Whether the path of `names` is one the pattern names itself.
  private func matchesExactly(_ names: ArraySlice<String>) -> Bool {
    let names = Array(names)
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
