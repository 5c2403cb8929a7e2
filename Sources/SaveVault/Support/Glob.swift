import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The manifest's path globs, as Ludusavi matches them (globetter with a literal separator):
/// `?` one character, `*` any run within a name, `**` a whole component matching any number of
/// folders, `[...]` and `[!...]` classes. Paths substituted into a template are escaped with
/// `escape` so that a `[` in a home folder is not a class. Matching is case-insensitive inside
/// a Wine or Proton prefix (Windows games write `my games` for `My Games`) and exact natively.
enum Glob {
  /// `literal` with glob characters bracketed (`[` → `[[]`), so it matches only itself.
  static func escape(_ literal: String) -> String {
    var result = ""
    for character in literal {
      switch character {
      case "[", "*", "?": result += "[\(character)]"
      default: result.append(character)
      }
    }
    return result
  }

  /// The text `pattern` matches when it has no wildcard (escapes undone); nil otherwise.
  static func literal(_ pattern: String) -> String? {
    let characters = Array(pattern)
    var result = ""
    var index = 0
    while index < characters.count {
      switch characters[index] {
      case "*", "?": return nil
      case "[":
        guard index + 2 < characters.count, characters[index + 2] == "]", characters[index + 1] != "!" else {
          return nil
        }
        result.append(characters[index + 1])
        index += 3
        continue
      default: result.append(characters[index])
      }
      index += 1
    }
    return result
  }

  /// Whether one name matches one component's pattern (no `/`).
  static func matches(_ name: String, _ pattern: String, caseSensitive: Bool) -> Bool {
    let name = Array(caseSensitive ? name : name.lowercased())
    let pattern = Array(caseSensitive ? pattern : pattern.lowercased())
    var n = 0
    var p = 0
    var star: (p: Int, n: Int)?
    while n < name.count {
      if p < pattern.count, pattern[p] == "*" {
        star = (p, n)
        p += 1
      } else if p < pattern.count, let next = step(pattern, p, name[n]) {
        p = next
        n += 1
      } else if let saved = star {
        p = saved.p + 1
        n = saved.n + 1
        star = (saved.p, saved.n + 1)
      } else {
        return false
      }
    }
    while p < pattern.count, pattern[p] == "*" { p += 1 }
    return p == pattern.count
  }

  /// The pattern index after `character` matched the element at `p`; nil if it does not match.
  private static func step(_ pattern: [Character], _ p: Int, _ character: Character) -> Int? {
    switch pattern[p] {
    case "?": return p + 1
    case "[":
      var index = p + 1
      let negated = index < pattern.count && pattern[index] == "!"
      if negated { index += 1 }
      var matched = false
      var first = true
      while index < pattern.count, pattern[index] != "]" || first {
        first = false
        let low = pattern[index]
        if index + 2 < pattern.count, pattern[index + 1] == "-", pattern[index + 2] != "]" {
          if low <= character && character <= pattern[index + 2] { matched = true }
          index += 3
        } else {
          if low == character { matched = true }
          index += 1
        }
      }
      // An unclosed `[` is the character itself, as in globetter.
      guard index < pattern.count else { return character == "[" ? p + 1 : nil }
      return matched != negated ? index + 1 : nil
    default:
      return pattern[p] == character ? p + 1 : nil
    }
  }

  /// One match: the path and the names it went through, one per pattern component (a `**`
  /// gives the names it spanned joined by `/`, possibly empty).
  struct Match: Equatable {
    var path: String
    var names: [String]
  }

  /// The existing paths under `anchor` (an exact path, not a pattern) that `components` match,
  /// following symlinks. Names are the bytes on disk (`RawName`, as `Platform.directoryNames`
  /// gives them): a folder whose name is not UTF-8 is walked and matched as any other. Names
  /// holding a backslash are skipped (Windows-only names), `**` goes at most `maximumDepth`
  /// folders down and never into a folder it already went through for the same component (a
  /// link to a parent or to itself is no loop, and no file is found twice that way), and at
  /// most `limit` matches are returned.
  /// With `followsLinks` false, no symlink is gone through (a save's own folder is walked as
  /// a scan walks it), a symlink itself is a match, and every name is kept.
  static func expand(
    anchor: String, components: [String], caseSensitive: Bool, maximumDepth: Int = 32, limit: Int = 10_000,
    followsLinks: Bool = true
  ) -> [Match] {
    var found: [Match] = []
    /// The folders `**` went through, by device, inode and the index of its component.
    var walked = Set<[UInt64]>()
    func status(_ path: String) -> stat? {
      var info = stat()
      return RawName.withCString(path) { followsLinks ? stat($0, &info) : lstat($0, &info) } == 0 ? info : nil
    }
    func isDirectory(_ path: String) -> Bool { status(path).map { $0.st_mode & S_IFMT == S_IFDIR } ?? false }
    /// Whether `**` at `index` may go through the folder at `path`: the first time only.
    func isNew(_ path: String, _ index: Int) -> Bool {
      guard let info = status(path) else { return false }
      return walked.insert([UInt64(info.st_dev), UInt64(info.st_ino), UInt64(index)]).inserted
    }
    func walk(_ path: String, _ index: Int, _ names: [String], _ depth: Int) {
      guard found.count < limit else { return }
      guard index < components.count else {
        if status(path) != nil { found.append(Match(path: path, names: names)) }
        return
      }
      if !followsLinks, index > 0, !isDirectory(path) { return }
      let component = components[index]
      if component == "**" {
        guard isNew(path, index) else { return }
        walk(path, index + 1, names + [""], depth)
        guard depth < maximumDepth else { return }
        for name in entries(path, keepingBackslashes: !followsLinks) where isDirectory(path + "/" + name) {
          descend(path + "/" + name, index, names, name, depth + 1)
        }
        return
      }
      if caseSensitive || component == "." || component == "..", let literal = literal(component) {
        walk(path + "/" + literal, index + 1, names + [literal], depth)
        return
      }
      for name in entries(path, keepingBackslashes: !followsLinks)
      where Glob.matches(name, component, caseSensitive: caseSensitive) {
        walk(path + "/" + name, index + 1, names + [name], depth)
      }
    }
    /// Inside a `**`: `spanned` folders down so far.
    func descend(_ path: String, _ index: Int, _ names: [String], _ spanned: String, _ depth: Int) {
      guard isNew(path, index) else { return }
      walk(path, index + 1, names + [spanned], depth)
      guard depth < maximumDepth, found.count < limit else { return }
      for name in entries(path, keepingBackslashes: !followsLinks) where isDirectory(path + "/" + name) {
        descend(path + "/" + name, index, names, spanned + "/" + name, depth + 1)
      }
    }
    guard isDirectory(anchor) else { return [] }
    walk(anchor, 0, [], 0)
    return found
  }

  private static func entries(_ path: String, keepingBackslashes: Bool) -> [String] {
    ((try? Platform.directoryNames(path)) ?? []).filter { keepingBackslashes || !$0.contains("\\") }.sorted()
  }
}
