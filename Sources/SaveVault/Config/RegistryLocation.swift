import Foundation

/// A location of registry keys: one key of the manifest (with its subkeys) in a game's Wine or
/// Proton prefix. Its folder is SaveVault's readable export of the key (`RegistryExport`), made
/// again from the prefix's file before each look at the save, so the archive holds a `.reg`
/// file of only the game's keys and only their content counts as the save.
public struct RegistrySource: Codable, Sendable, Equatable {
  /// The prefix (the folder holding `user.reg`, `system.reg` and `drive_c`).
  public var prefix: String
  /// The key as the manifest writes it.
  public var manifestKey: String
  /// Its file in the prefix and its paths there.
  public var key: WineRegistryKey

  public init(prefix: String, manifestKey: String, key: WineRegistryKey) {
    self.prefix = prefix
    self.manifestKey = manifestKey
    self.key = key
  }

  /// The prefix's file that holds the key.
  public var file: String { prefix + "/" + key.file.rawValue }

  /// The keys of `registry` that are this location's: its key and their subkeys.
  func sections(of registry: WineRegistry) -> [WineRegistry.Section] {
    registry.sections.filter { section in
      key.paths.contains { WineRegistry.path(section.path, isAtOrUnder: $0) }
    }
  }

  /// The key a location's text names, when it is `registry:…` with a key of a root SaveVault
  /// reads (`HKEY_CURRENT_USER`, `HKEY_LOCAL_MACHINE`).
  public static func key(in text: String) -> (manifestKey: String, key: WineRegistryKey)? {
    guard RegistryKeyText.isRegistry(text) else { return nil }
    let manifestKey = String(text.dropFirst(RegistryKeyText.scheme.count))
    return WineRegistryKey(manifestKey: manifestKey).map { (manifestKey, $0) }
  }
}

extension Target {
  /// The location of the registry key `text` (`registry:HKEY_…/…`) names, in the prefix of the
  /// game the entry names: its export folder is
  /// `$XDG_CACHE_HOME/savevault/registry/<game>/<key>`. Throws when the text is not such a key
  /// or the game has no prefix here.
  static func registryLocation(
    _ text: String, of entry: ConfigFile.GameEntry, game: String, paths: Paths, roots: () -> GameRoots
  ) throws(ConfigError) -> (path: String, portable: PortableLocation, registry: RegistrySource) {
    guard let (manifestKey, key) = RegistrySource.key(in: text) else {
      throw .invalid(
        "game '\(game)': the location '\(text)' is no registry key SaveVault reads: write 'registry:HKEY_CURRENT_USER/…' or 'registry:HKEY_LOCAL_MACHINE/…'"
      )
    }
    let portable = PortableLocation(template: text, store: entry.storeName, storeGameID: entry.storeID)
    let windows = PortableLocation(template: "<winDir>", store: entry.storeName, storeGameID: entry.storeID)
    let folder: String
    switch windows.resolve(on: roots()) {
    case .existing(let paths): folder = paths[0]
    case .wouldBe(let path): folder = path
    case .unresolvable(let why):
      throw .invalid("game '\(game)': the location '\(text)' has no place on this machine: \(why)")
    }
    guard folder.hasSuffix("/drive_c/windows") else {
      throw .invalid("game '\(game)': the location '\(text)' has no Wine or Proton prefix on this machine")
    }
    let prefix = String(folder.dropLast("/drive_c/windows".count))
    let name = manifestKey.split(whereSeparator: { $0 == "/" || $0 == "\\" }).joined(separator: "-")
    let export = paths.cacheDirectory + "/registry/" + game + "/" + name
    return (export, portable, RegistrySource(prefix: prefix, manifestKey: manifestKey, key: key))
  }
}
