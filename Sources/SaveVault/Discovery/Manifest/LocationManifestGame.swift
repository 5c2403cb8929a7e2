/// One game of the save-location manifest (Ludusavi's format, built from PCGamingWiki): where
/// the game keeps its saves, written with placeholders, and how stores know it.
public struct LocationManifestGame: Sendable, Equatable, Codable {
  /// The manifest's key: the game's title.
  public var title: String
  /// The `files` keys, in the manifest's order: path globs with placeholders such as
  /// `<winDocuments>/Saved Games/Hades`. Every one is tried, whatever its `when`.
  public var files: [String]
  /// The `registry` keys, in the manifest's order, as it writes them: a root key and a path
  /// with forward slashes (`HKEY_CURRENT_USER/Software/Foo`); each covers its subkeys.
  public var registry: [String]
  /// Whether the entry lists `registry` keys.
  public var hasRegistry: Bool { !registry.isEmpty }
  /// The `installDir` keys: folder names the game is installed under.
  public var installDirs: [String]
  /// `steam.id`.
  public var steamID: UInt32?
  /// `id.steamExtra`: DLC, demos, other editions sharing the saves.
  public var steamExtra: [UInt32]
  /// `gog.id`.
  public var gogID: UInt64?
  /// `id.gogExtra`.
  public var gogExtra: [UInt64]
  /// `id.lutris`: the Lutris slug.
  public var lutrisID: String?
  /// `id.flatpak`: the Flatpak application id.
  public var flatpakID: String?
  /// `alias`: this title is another name of the entry with that title.
  public var alias: String?

  public init(
    title: String, files: [String] = [], registry: [String] = [], installDirs: [String] = [],
    steamID: UInt32? = nil, steamExtra: [UInt32] = [], gogID: UInt64? = nil, gogExtra: [UInt64] = [],
    lutrisID: String? = nil, flatpakID: String? = nil, alias: String? = nil
  ) {
    self.title = title
    self.files = files
    self.registry = registry
    self.installDirs = installDirs
    self.steamID = steamID
    self.steamExtra = steamExtra
    self.gogID = gogID
    self.gogExtra = gogExtra
    self.lutrisID = lutrisID
    self.flatpakID = flatpakID
    self.alias = alias
  }
}
