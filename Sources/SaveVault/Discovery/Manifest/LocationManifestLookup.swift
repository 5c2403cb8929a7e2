/// Finds games in the save-location manifest: the manifest's index answers these without
/// reading the whole manifest. Aliases are followed: the game returned is the entry they name.
public protocol LocationManifestLookup: Sendable {
  /// The game with this Steam app id (`steam.id`, else one of `id.steamExtra`).
  func game(steamAppID: UInt32) -> LocationManifestGame?
  /// The game with this GOG product id (`gog.id`, else one of `id.gogExtra`).
  func game(gogID: UInt64) -> LocationManifestGame?
  /// The game with this Lutris slug (`id.lutris`).
  func game(lutrisSlug: String) -> LocationManifestGame?
  /// The game with this title: exactly, else compared normalized (case, spaces and
  /// punctuation ignored, as `LocationManifestTitle.normalized` does).
  func game(title: String) -> LocationManifestGame?
  /// The games one of whose `installDir` keys is `folder` (compared normalized).
  func games(installDir folder: String) -> [LocationManifestGame]
}

/// A manifest title compared loosely: lower case, letters and digits only, runs of anything
/// else one space, trimmed. "Hades II" and "hades ii", "Half-Life 2" and "Half Life 2" match.
public enum LocationManifestTitle {
  public static func normalized(_ title: String) -> String {
    if title.utf8.allSatisfy({ $0 < 0x80 }) { return normalizedASCII(title) }
    var result = ""
    var isSpacePending = false
    for character in title.lowercased() {
      if character.isLetter || character.isNumber {
        if isSpacePending && !result.isEmpty { result.append(" ") }
        isSpacePending = false
        result.append(character)
      } else {
        isSpacePending = true
      }
    }
    return result
  }

  /// `normalized` for ASCII text, byte by byte: the same result (ASCII letters and digits are
  /// exactly the ASCII characters that are letters or numbers), without a Character each.
  private static func normalizedASCII(_ title: String) -> String {
    var result: [UInt8] = []
    result.reserveCapacity(title.utf8.count)
    var isSpacePending = false
    for byte in title.utf8 {
      let lower = (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
      if (0x61...0x7A).contains(lower) || (0x30...0x39).contains(lower) {
        if isSpacePending && !result.isEmpty { result.append(0x20) }
        isSpacePending = false
        result.append(lower)
      } else {
        isSpacePending = true
      }
    }
    return String(decoding: result, as: UTF8.self)
  }
}
