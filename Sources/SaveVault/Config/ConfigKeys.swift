import Foundation

/// Keys of a config file that SaveVault does not know (a misspelt `savedir` is silently
/// ignored by the decoder). Found by comparing the file read as plain JSON with the decoded
/// config encoded back, so a setting is known as soon as `ConfigFile` has it.
enum ConfigKeys {
  /// The unknown keys of the file at `path` as dotted paths (`games.celeste.savedir`), sorted;
  /// `[]` when the file cannot be read as JSON (loading it reports that).
  static func unknown(in path: String, known config: ConfigFile) -> [String] {
    guard let data = FileManager.default.contents(atPath: path),
      let raw = try? JSONSerialization.jsonObject(with: data),
      let encoded = try? JSONEncoder().encode(config),
      let known = try? JSONSerialization.jsonObject(with: encoded)
    else { return [] }
    return difference(raw, known, path: "")
  }

  private static func difference(_ raw: Any, _ known: Any, path: String) -> [String] {
    guard let raw = raw as? [String: Any], let known = known as? [String: Any] else { return [] }
    var result: [String] = []
    for (key, value) in raw.sorted(by: { $0.key < $1.key }) {
      let full = path.isEmpty ? key : path + "." + key
      if let counterpart = known[key] {
        result += difference(value, counterpart, path: full)
      } else if !(value is NSNull) {
        result.append(full)
      }
    }
    return result
  }
}
