import Foundation

/// What a command works on: one game, its save locations, the container and this device.
public struct Target: Sendable, Equatable {
  /// The game's name: the folder inside the container.
  public var game: String
  /// Where the game keeps its saves: at least one location, the first being the save
  /// directory. A one-folder game is one location whose archives hold its content at the top
  /// (`SaveLocation.atTop`); a game of several locations (or of locations given with
  /// placeholders) has each under its name in its archives.
  public var locations: [SaveLocation]
  /// The container URL as given (or the embedded default's path).
  public var containerURL: String
  /// The parsed container location.
  public var container: ContainerLocation
  /// This device's name, as used in archive names.
  public var device: String
  /// The caps every archive (and so every backup) must stay under.
  public var limits = ExtractionLimits()
  /// Endpoint and region for `s3://` containers.
  public var s3 = S3Settings()
  /// How new backups (and pending archives) are compressed.
  public var compression = ArchiveCompression.none
  /// Whether the game's name was taken from the save directory's last component (no
  /// `--game`), rather than named by the player or the config file.
  public var isNameFromFolder = false
  /// Globs of paths inside the locations that are not part of the save (`*.log`, `cache/**`).
  public var exclude: [String] = []
  /// The save locations that discovery finds for the game on this machine (what `scan` lists
  /// for it); nil when it is no game the manifest knows here. A backup refuses to leave out
  /// any of their files (`Vault.leftOutLocations`).
  public var discovered: DiscoveredSave?
  /// The game's `exclude` entries that name a whole location (a portable form, or a path with
  /// `~` expanded): discovery's locations the player chose to leave out of the save.
  public var excludedLocations: [String] = []

  /// What the agreement is kept per: the container's canonical location, and for S3 its endpoint
  /// (one bucket name on two servers is two containers). A folder is keyed by its path as
  /// written, which stays the same while its drive is unmounted; another path to the same
  /// folder (a symlink, a bind mount) finds the same agreement (`AgreementStore.load`).
  /// The save directory as the user gave it (absolute, `~` expanded, symlinks not resolved):
  /// the first location's folder.
  public var saveDirectory: String { locations[0].path }

  /// Whether the game is one folder whose archives hold its content at the top.
  var isOneFolder: Bool { locations.count == 1 && locations[0].isAtTop }

  var agreementKey: String {
    if case .s3 = container { return container.canonical + "@" + (s3.endpoint ?? "aws:" + s3.region) }
    return container.canonical
  }
}

/// What discovery finds of a game's save on this machine.
public struct DiscoveredSave: Sendable, Equatable {
  /// The game's title in the save-location manifest.
  public var title: String
  /// Its existing save locations, as `scan` lists them.
  public var locations: [DetectedLocation]

  public init(title: String, locations: [DetectedLocation]) {
    self.title = title
    self.locations = locations
  }
}

/// The flags that pick a target, before resolution.
public struct TargetRequest: Sendable, Equatable {
  public var game: String?
  public var saveDirectory: String?
  public var containerURL: String?
  public var configFile: String?
  /// `--endpoint URL` for S3-compatible stores.
  public var endpoint: String?
  /// `--allow-insecure-http`: plain HTTP to an S3 endpoint on another machine.
  public var allowsInsecureHTTP = false
  /// `--compress`: how new backups are compressed, over the config file's `compress`.
  public var compression: ArchiveCompression?
  /// Whether `Vault.resolve` checks where the save directory lies (`Placement`): not for
  /// commands that only read the container (`list`, `verify`).
  public var checksPlacement = true

  public init(
    game: String? = nil, saveDirectory: String? = nil, containerURL: String? = nil,
    configFile: String? = nil, endpoint: String? = nil, allowsInsecureHTTP: Bool = false,
    compression: ArchiveCompression? = nil
  ) {
    self.compression = compression
    self.game = game
    self.saveDirectory = saveDirectory
    self.containerURL = containerURL
    self.configFile = configFile
    self.endpoint = endpoint
    self.allowsInsecureHTTP = allowsInsecureHTTP
  }
}

extension Target {
  /// Resolves flags, config file and environment into a target.
  ///
  /// A relative `saveDir` or folder `container` in the config file is taken from the config
  /// file's folder (as its path names it); in flags and the environment, from the current one.
  ///
  /// Container precedence: `--container`, the game's `container`, the file's `container`,
  /// `SAVEVAULT_CONTAINER`, then the embedded default. Device: `SAVEVAULT_DEVICE`, the file's
  /// `device`, then the host name. Compression: `--compress`, the game's `compress`, the
  /// file's, then none. Throws `ConfigError` (a usage error) for anything missing or invalid.
  /// `loadConfig` reads the config file (a vault reads it once per run).
  public static func resolve(
    _ request: TargetRequest, paths: Paths, context: Context,
    loadConfig: (String, Bool) throws(ConfigError) -> ConfigFile = { (path, isRequired) throws(ConfigError) in
      try ConfigFile.load(path: path, isRequired: isRequired)
    },
    roots: ((ConfigFile) -> GameRoots)? = nil
  ) throws(ConfigError) -> Target {
    let configPath = request.configFile.map { absolute($0, context: context, home: paths.home) }
    let config = try loadConfig(configPath ?? paths.configFile, configPath != nil)
    // Relative paths in the config file are the file's, not the current folder's (a launcher
    // runs the game, and so savevault, from wherever it likes).
    let configFolder = Self.folder(ofConfig: configPath ?? paths.configFile, paths: paths, context: context)
    var gameName = request.game
    var saveDirectory = request.saveDirectory
    var saveDirectoryBase = context.currentDirectory
    var gameEntry: ConfigFile.GameEntry?
    var locations: [SaveLocation] = []
    if let name = request.game, var entry = config.games?[name] {
      if let unknown = config.unknownKeys.first(where: { $0.game == name }) {
        throw .unknownKey(unknown, configPath: configPath ?? paths.configFile)
      }
      // A prefix written `~/.wine` or relative to the config file, as `saveDir` may be.
      entry.winePrefix = entry.winePrefix.map { absolute($0, in: configFolder, home: paths.home) }
      gameEntry = entry
      if saveDirectory == nil {
        saveDirectory = entry.saveDir
        saveDirectoryBase = configFolder
        if let listed = entry.locations, !listed.isEmpty {
          locations = try Self.locations(
            of: entry, game: name, configFolder: configFolder, paths: paths,
            roots: {
              roots?(config) ?? GameRoots.scan(config, paths: paths, environment: context.environment)
            })
          saveDirectory = locations.first?.path
        }
      }
    } else if let name = request.game, request.saveDirectory == nil {
      throw .unknownGame(name: name, configPath: configPath ?? paths.configFile)
    }
    guard let rawSaveDirectory = saveDirectory, !rawSaveDirectory.isEmpty else {
      if let name = gameName { throw .missingSaveDirectory(game: name) }
      throw .noTarget
    }
    let saveDirectoryPath = absolute(rawSaveDirectory, in: saveDirectoryBase, home: paths.home)
    let isNameFromFolder = gameName == nil
    if gameName == nil {
      gameName = saveDirectoryPath.split(separator: "/").last.map(String.init)
    }
    guard let game = gameName, isValidGameName(game) else {
      throw .invalidGameName(gameName ?? "", isFromSaveDirectory: request.game == nil)
    }
    let (containerURL, location) = try Self.container(
      flag: request.containerURL, game: gameEntry, config: config, configFolder: configFolder, paths: paths,
      context: context)
    let device =
      context.environment["SAVEVAULT_DEVICE"].flatMap { $0.isEmpty ? nil : $0 } ?? config.device
      ?? context.hostName
    var limits = ExtractionLimits()
    if let configured = config.limits {
      guard configured.maxEntries ?? 1 > 0, configured.maxDepth ?? 1 > 0, configured.maxBytes ?? 1 > 0 else {
        throw .invalid("config file '\(configPath ?? paths.configFile)': limits must be positive")
      }
      limits.maxEntries = configured.maxEntries ?? limits.maxEntries
      limits.maxDepth = configured.maxDepth ?? limits.maxDepth
      limits.maxTotalBytes = configured.maxBytes ?? limits.maxTotalBytes
    }
    let environment = context.environment
    func nonEmpty(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
    let s3 = S3Settings(
      endpoint: request.endpoint ?? nonEmpty("AWS_ENDPOINT_URL_S3") ?? nonEmpty("AWS_ENDPOINT_URL")
        ?? config.endpoint,
      region: nonEmpty("AWS_REGION") ?? nonEmpty("AWS_DEFAULT_REGION") ?? config.region
        ?? AWSSharedConfig.region(environment: environment, home: paths.home) ?? "us-east-1",
      allowsInsecureHTTP: request.allowsInsecureHTTP || config.allowInsecureHTTP == true)
    let configured = try ArchiveCompression.configured(
      game: gameEntry?.compress, file: config.compress, configPath: configPath ?? paths.configFile)
    let compression = request.compression ?? configured
    var target = Target(
      game: game, locations: locations.isEmpty ? [Self.onlyLocation(saveDirectoryPath)] : locations,
      containerURL: containerURL, container: location, device: ArchiveName.sanitize(device: device),
      limits: limits, s3: s3, compression: compression, isNameFromFolder: isNameFromFolder)
    target.exclude = target.isOneFolder ? [] : gameEntry?.exclude ?? []
    target.excludedLocations = (gameEntry?.exclude ?? []).compactMap { entry in
      entry.hasPrefix("<")
        ? entry
        : entry.hasPrefix("/") || entry.hasPrefix("~")
          ? absolute(entry, context: context, home: paths.home) : nil
    }
    return target
  }

  /// The container URL and where it is: `--container` (relative to the current folder), else
  /// the game's or the file's `container` (relative to the config file's folder), else
  /// `SAVEVAULT_CONTAINER`, then the embedded default.
  static func container(
    flag: String?, game: ConfigFile.GameEntry?, config: ConfigFile, configFolder: String, paths: Paths,
    context: Context
  ) throws(ConfigError) -> (url: String, location: ContainerLocation) {
    let configured = game?.container ?? config.container
    let url =
      flag ?? configured ?? context.environment["SAVEVAULT_CONTAINER"].flatMap { $0.isEmpty ? nil : $0 }
      ?? paths.defaultContainer
    let location = try ContainerLocation.parse(
      url, currentDirectory: flag == nil && configured != nil ? configFolder : context.currentDirectory,
      home: paths.home)
    return (url, location)
  }

  /// The folder relative paths in the config file at `configPath` are taken from.
  static func folder(ofConfig configPath: String, paths: Paths, context: Context) -> String {
    absolute(configPath + "/..", context: context, home: paths.home)
  }

  /// The games of the config file (`--config`, `SAVEVAULT_CONFIG` or the default), sorted.
  public static func configuredGames(configFile: String?, paths: Paths, context: Context) throws(ConfigError)
    -> [String]
  {
    let path = configFile.map { absolute($0, context: context, home: paths.home) }
    let config = try ConfigFile.load(path: path ?? paths.configFile, isRequired: path != nil)
    return (config.games ?? [:]).keys.sorted()
  }

  /// The longest game name, in UTF-8 bytes. A name is part of file names of 255 bytes at most:
  /// the longest is the agreement's `<game>-<12 hex>.index` while it is written, as
  /// `<game>-<12 hex>.index.tmp-XXXXXX` (the name and 30 bytes); the rest is margin.
  public static let maxGameNameBytes = 200

  /// What `isValidGameName` accepts, in words (for errors and help).
  public static let gameNameRule =
    "1 to \(maxGameNameBytes) bytes in UTF-8, with no '/', '\\' or control character, not starting with '.'"

  /// The game name for a title (a detected game's, or one `add --detect` is given): the
  /// title itself when it is a safe name; else `: ` becomes ` - `, every other `/`, `\` and
  /// `:` becomes `-`, control characters go, runs of dots become one, leading dots and spaces
  /// go, and the result is cut to `maxGameNameBytes` on a character boundary. The title stays
  /// the display name. "Half-Life 2: Episode One" is "Half-Life 2 - Episode One"; ".hack//G.U."
  /// is "hack--G.U.".
  public static func gameName(forTitle title: String) -> String {
    if isValidGameName(title), !title.contains(":"), !title.contains("..") { return title }
    var name = title.replacingOccurrences(of: ": ", with: " - ")
    name = String(
      name.unicodeScalars.compactMap { scalar -> Character? in
        if scalar == "/" || scalar == "\\" || scalar == ":" { return "-" }
        return scalar.value < 0x20 || scalar.value == 0x7f ? nil : Character(scalar)
      })
    while name.contains("..") { name = name.replacingOccurrences(of: "..", with: ".") }
    while let first = name.first, first == "." || first == " " { name.removeFirst() }
    while name.utf8.count > maxGameNameBytes { name.removeLast() }
    name = name.trimmingCharacters(in: .whitespaces)
    return name.isEmpty ? "game" : name
  }

  /// Whether `name` can be a game folder: see `gameNameRule`.
  public static func isValidGameName(_ name: String) -> Bool {
    guard !name.isEmpty, name.utf8.count <= maxGameNameBytes, !name.hasPrefix(".") else { return false }
    return !name.unicodeScalars.contains { $0 == "/" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7f }
  }
}

/// `path` made absolute: `~` and `~/…` expand to `home`, relative paths join the working
/// directory, and `.`/`..`/empty components are folded lexically.
func absolute(_ path: String, context: Context, home: String) -> String {
  absolute(path, in: context.currentDirectory, home: home)
}

/// `path` made absolute as `absolute(_:context:home:)` does, with relative paths joining `folder`.
func absolute(_ path: String, in folder: String, home: String) -> String {
  var full = path
  if full == "~" {
    full = home
  } else if full.hasPrefix("~/") {
    full = home + full.dropFirst(1)
  } else if !full.hasPrefix("/") {
    full = folder + "/" + full
  }
  var parts: [Substring] = []
  for part in full.split(separator: "/", omittingEmptySubsequences: true) {
    if part == "." { continue }
    if part == ".." {
      if !parts.isEmpty { parts.removeLast() }
      continue
    }
    parts.append(part)
  }
  return "/" + parts.joined(separator: "/")
}

extension ArchiveCompression {
  /// The compression the config file names: the game's `compress`, else the file's, else none.
  /// Both are checked, so a misspelling is found even where the other overrides it.
  static func configured(game: String?, file: String?, configPath: String) throws(ConfigError)
    -> ArchiveCompression
  {
    func parse(_ value: String?, key: String) throws(ConfigError) -> ArchiveCompression? {
      guard let value else { return nil }
      guard let compression = ArchiveCompression(rawValue: value) else {
        throw .invalid("config file '\(configPath)': \(key) must be one of \(settings), not '\(value)'")
      }
      return compression
    }
    let fileSetting = try parse(file, key: "compress")
    return try parse(game, key: "the game's compress") ?? fileSetting ?? .none
  }
}

extension Target {
  /// The one location of a game named by its save directory: the folder, its content at the
  /// top of its archives; or, when the path is a file, that file in its folder.
  static func onlyLocation(_ path: String) -> SaveLocation {
    guard Platform.isRegularFile(path) else { return .atTop(path) }
    var location = fileLocation(path, portable: PortableLocation(template: path))
    location.name = SaveLocation.name(index: 0, path: location.path)
    return location
  }
}

extension Target {
  /// The target with each location listed as a path that is a file here now made the location
  /// of that one file (named as the list would name it: a file made since the list was read,
  /// by a restore, say).
  public func resolvingFiles() -> Target {
    guard !isOneFolder else { return self }
    var target = self
    for (index, location) in locations.enumerated()
    where location.shape == .folder && Platform.isRegularFile(location.path) {
      var file = Self.fileLocation(location.path, portable: location.portable)
      file.name = SaveLocation.name(index: index, path: file.path)
      target.locations[index] = file
    }
    return target
  }
}
