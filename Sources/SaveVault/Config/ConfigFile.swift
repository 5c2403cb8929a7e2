import Foundation

/// The JSON config file:
///
/// ```json
/// { "container": "s3://saves/alice", "device": "steamdeck",
///   "games": { "celeste": { "saveDir": "~/.local/share/Celeste/Saves", "container": "/mnt/nas/saves" } } }
/// ```
public struct ConfigFile: Codable, Equatable, Sendable {
  /// The container for every game that names none.
  public var container: String?
  /// This device's name in archive names (overridden by `SAVEVAULT_DEVICE`).
  public var device: String?
  /// The games, by name.
  public var games: [String: GameEntry]?
  /// Caps on what a restore accepts (and so on what a backup may hold).
  public var limits: Limits?
  /// The S3 endpoint for `s3://` containers (MinIO, Garage, R2, B2…); AWS when absent.
  public var endpoint: String?
  /// The S3 region (default: AWS_REGION, the profile's, then us-east-1).
  public var region: String?
  /// Allow plain HTTP to an S3 endpoint on another machine.
  public var allowInsecureHTTP: Bool?
  /// How new backups are compressed: `"zstd"` or `"none"` (the default).
  public var compress: String?
  /// The save-location manifest: a file path or an http(s) URL, over SaveVault's own copy of
  /// Ludusavi's manifest.
  public var manifest: String?
  /// More manifests merged into it (paths or http(s) URLs), as Ludusavi merges secondary ones.
  public var secondaryManifests: [String]?
  /// More folders to look for installed games in: a Steam library, a folder of game folders.
  public var roots: [String]?
  /// Wine prefixes whose games' saves are looked for (a prefix made by hand or another launcher).
  public var winePrefixes: [String]?
  /// The Steam account whose folders `<storeUserId>` names when this machine's Steam has several
  /// (its account id, `userdata/<id>`, or its 64-bit SteamID).
  public var steamUser: String?
  /// The keys of the file that SaveVault does not know (not part of the file's content).
  public var unknownKeys: [UnknownConfigKey] = []

  /// The file's keys: a new setting is added here too, or it is reported as unknown.
  enum CodingKeys: String, CodingKey, CaseIterable {
    case container, device, games, limits, endpoint, region, allowInsecureHTTP, compress
    case manifest, secondaryManifests, roots, winePrefixes, steamUser
  }

  /// `"limits": {"maxEntries": 150000, "maxDepth": 128, "maxBytes": 68719476736}`
  public struct Limits: Codable, Equatable, Sendable {
    public var maxEntries: Int?
    public var maxDepth: Int?
    public var maxBytes: Int64?

    enum CodingKeys: String, CodingKey, CaseIterable {
      case maxEntries, maxDepth, maxBytes
    }
  }

  public init(container: String? = nil, device: String? = nil, games: [String: GameEntry]? = nil) {
    self.container = container
    self.device = device
    self.games = games
  }

  /// One game of the config file.
  public struct GameEntry: Codable, Equatable, Sendable {
    /// The game's save directory; `~` is the home directory.
    public var saveDir: String?
    /// This game's container, overriding the file's.
    public var container: String?
    /// The Steam app id, so that `wrap` can find the game under Steam.
    public var steamAppId: String?
    /// How this game's new backups are compressed, overriding the file's `compress`.
    public var compress: String?
    /// The game's save locations, besides or instead of `saveDir`: folders or file globs,
    /// written as plain paths or with the manifest's placeholders (`<winDocuments>/My Game`).
    public var locations: [String]?
    /// Globs of files inside the locations that are not part of the save.
    public var exclude: [String]?
    /// The game's title (the display name) when the entry's key is its safe form.
    public var title: String?
    /// The store whose install the placeholders of `locations` are resolved in: `steam`, `gog`,
    /// `epic`, `lutris` (`steam` when only `steamAppId` is given).
    public var store: String?
    /// The game's id in `store` (GOG product id, Epic app name, Lutris slug).
    public var storeGameId: String?
    /// The Wine prefix the game runs in, when no store says it.
    public var winePrefix: String?

    /// An entry's keys: a new one is added here too, or it is refused as unknown.
    enum CodingKeys: String, CodingKey, CaseIterable {
      case saveDir, container, steamAppId, compress, locations, exclude, title, store, storeGameId, winePrefix
    }

    public init(
      saveDir: String? = nil, container: String? = nil, steamAppId: String? = nil, compress: String? = nil
    ) {
      self.saveDir = saveDir
      self.container = container
      self.steamAppId = steamAppId
      self.compress = compress
    }
  }

  /// Loads the file at `path`, with the keys it does not know in `unknownKeys`. A missing file
  /// is an empty config unless `isRequired`.
  public static func load(path: String, isRequired: Bool) throws(ConfigError) -> ConfigFile {
    guard let data = FileManager.default.contents(atPath: path) else {
      if !FileManager.default.fileExists(atPath: path) && !isRequired { return ConfigFile() }
      throw .unreadableFile(
        path: path,
        reason: FileManager.default.fileExists(atPath: path) ? "cannot read it" : "it does not exist")
    }
    do {
      var config = try JSONDecoder().decode(ConfigFile.self, from: data)
      config.unknownKeys = ConfigKeys.unknown(in: data)
      return config
    } catch let error as DecodingError {
      throw .unreadableFile(path: path, reason: "not valid config JSON (\(error.summary))")
    } catch {
      throw .unreadableFile(path: path, reason: "not valid JSON")
    }
  }
}

extension DecodingError {
  /// A one-line account of a decoding failure: which key, what was wrong.
  var summary: String {
    func keyPath(_ context: Context) -> String {
      let path = context.codingPath.map(\.stringValue).joined(separator: ".")
      return path.isEmpty ? "" : " at '\(path)'"
    }
    switch self {
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
      return "wrong type\(keyPath(context))"
    case .keyNotFound(let key, let context):
      return "missing '\(key.stringValue)'\(keyPath(context))"
    case .dataCorrupted(let context):
      return "malformed\(keyPath(context))"
    @unknown default:
      return "malformed"
    }
  }
}
