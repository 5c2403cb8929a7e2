import Foundation

/// A key of the config file that SaveVault does not know (a misspelt `contianer` is not read
/// by the decoder, so without this check it would be silently ignored).
public struct UnknownConfigKey: Equatable, Sendable, CustomStringConvertible {
  /// The key's dotted path in the file: `games.celeste.contianer`, `limits.maxEntires`, `devise`.
  public var path: String
  /// The key itself.
  public var key: String
  /// The game whose entry holds it; nil for a key elsewhere (top level, `limits`).
  public var game: String?
  /// The known key nearest to it (edit distance, case-insensitive), when one is near.
  public var suggestion: String?
  /// The keys known where it stands.
  public var known: [String]

  /// `unknown key 'contianer' (did you mean 'container'?)`, or with the known keys listed; a
  /// key nested outside a game entry says where (`unknown key 'maxEntires' in 'limits' …`).
  public var description: String {
    let parent = path.dropLast(key.count + 1)
    return "unknown key '\(key)'" + (game == nil && !parent.isEmpty ? " in '\(parent)'" : "")
      + (suggestion.map { " (did you mean '\($0)'?)" } ?? " (known: \(known.joined(separator: ", ")))")
  }
}

/// Finds the keys of a config file that SaveVault does not know, from the coding keys of
/// `ConfigFile`, `ConfigFile.Limits` and `ConfigFile.GameEntry`.
enum ConfigKeys {
  /// The unknown keys of the config file `data`, sorted by path; `[]` when it is not a JSON
  /// object (loading it reports that). Keys whose value is `null` are not counted.
  static func unknown(in data: Data) -> [UnknownConfigKey] {
    guard let raw = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return [] }
    var result = unknown(raw, known: ConfigFile.CodingKeys.allCases.map(\.rawValue), path: "", game: nil)
    if let limits = raw["limits"] as? [String: Any] {
      result += unknown(
        limits, known: ConfigFile.Limits.CodingKeys.allCases.map(\.rawValue), path: "limits.", game: nil)
    }
    for (name, entry) in (raw["games"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) {
      guard let entry = entry as? [String: Any] else { continue }
      result += unknown(
        entry, known: ConfigFile.GameEntry.CodingKeys.allCases.map(\.rawValue), path: "games.\(name).",
        game: name)
    }
    return result
  }

  private static func unknown(_ object: [String: Any], known: [String], path: String, game: String?)
    -> [UnknownConfigKey]
  {
    object.keys.sorted().filter { !known.contains($0) && !(object[$0] is NSNull) }.map { key in
      UnknownConfigKey(
        path: path + key, key: key, game: game, suggestion: closest(to: key, among: known), known: known)
    }
  }

  /// The key of `known` nearest to `key` by edit distance, ignoring case, when it is near: at
  /// most a third of the key's length apart (at least 2), or one containing the other.
  static func closest(to key: String, among known: [String]) -> String? {
    let word = Array(key.lowercased())
    let ranked = known.map { candidate -> (String, Int) in
      let other = candidate.lowercased()
      let isPart =
        min(word.count, other.count) >= 4 && (other.contains(String(word)) || String(word).contains(other))
      return (candidate, isPart ? 0 : editDistance(word, Array(other)))
    }
    guard let best = ranked.min(by: { $0.1 < $1.1 }), best.1 <= max(2, word.count / 3) else { return nil }
    return best.0
  }

  /// Levenshtein distance: insertions, deletions and substitutions of one character.
  static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    var previous = Array(0...b.count)
    for (i, x) in a.enumerated() {
      var current = [i + 1]
      for (j, y) in b.enumerated() {
        current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
      }
      previous = current
    }
    return previous[b.count]
  }
}
