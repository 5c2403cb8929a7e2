import Foundation

/// One place a game keeps its saves: a folder on this machine, the name its content has at the
/// top of an archive of several locations, and its portable form (what says where it is on
/// another machine).
public struct SaveLocation: Sendable, Equatable {
  /// The folder's top-level name in an archive: its position and last component, `1-Hades`.
  public var name: String
  /// The folder on this machine (absolute, `~` expanded, symlinks not resolved).
  public var path: String
  /// The location as the config or the manifest writes it, resolved on any machine (for a
  /// location of files, with their pattern: `<base>/options.ron`, `<winAppData>/X/*.sav`).
  public var portable: PortableLocation
  /// What of `path` the location is: the whole folder, some of its files, or registry keys.
  public var shape: Shape

  /// What a location is of the place `path` names. Each shape has one type that knows its scan,
  /// stage, swap and "written since" (`LocationShape`); the code switches on it there only.
  public enum Shape: Sendable, Equatable {
    /// The whole folder at `path`.
    case folder
    /// Some files of the folder at `path`: one file, or a glob.
    case files(FilePattern)
    /// Registry keys in a Wine prefix; `path` is SaveVault's export of them (`RegistryExport`).
    case registry(RegistrySource)
  }

  public init(name: String, path: String, portable: PortableLocation, shape: Shape = .folder) {
    self.name = name
    self.path = path
    self.portable = portable
    self.shape = shape
  }

  /// The location as written, `path` and the pattern: what it names to a person.
  public var shown: String { pattern.map { path + "/" + $0.pattern } ?? path }

  /// For a location of files, their pattern; nil for a folder or registry keys (whose export
  /// is a folder, scanned whole).
  public var pattern: FilePattern? {
    if case .files(let pattern) = shape { pattern } else { nil }
  }

  /// For a location of registry keys, where they are; nil for files and folders.
  public var registrySource: RegistrySource? {
    if case .registry(let source) = shape { source } else { nil }
  }

  /// A location not named yet (its name is given by its position in the game's list).
  static func unnamed(_ path: String, _ portable: PortableLocation, _ shape: Shape = .folder) -> SaveLocation
  {
    SaveLocation(name: "", path: path, portable: portable, shape: shape)
  }

  /// The only location of a one-folder game, at `path`: its content is at the top of its
  /// archives, under no name.
  public static func atTop(_ path: String) -> SaveLocation {
    SaveLocation(name: "", path: path, portable: PortableLocation(template: path))
  }

  /// Whether the location's content is at the top of its archives (a one-folder game's).
  public var isAtTop: Bool { name.isEmpty }

  /// The archive name of the location at `index` (from 0) whose folder is `path`: `1-Hades`.
  /// Characters that are not safe in a folder name become `_`.
  public static func name(index: Int, path: String) -> String {
    let last = path.split(separator: "/").last.map(String.init) ?? "location"
    let safe = String(
      last.unicodeScalars.map { $0.value < 0x20 || $0 == "\\" || $0.value == 0x7f ? "_" : Character($0) })
    return "\(index + 1)-" + (safe.hasPrefix(".") ? "_" + safe.dropFirst() : safe)
  }
}

extension SaveLocation {
  /// Whether this location lies in `outer`, so that its files are `outer`'s already: inside a
  /// whole folder (or that folder's own files), or in what a location of files names (a folder
  /// its glob matches, `<base>/0_*` holding `<base>/0_Options`, or a file it matches). A
  /// location of registry keys is in none.
  /// Folders are compared by real path (`~/.steam/steam` is a link to Steam's installation).
  public func isInside(_ outer: SaveLocation) -> Bool {
    let files: FilePattern?
    switch shape {
    case .folder: files = nil
    case .files(let pattern): files = pattern
    case .registry: return false
    }
    let outerFiles: FilePattern?
    switch outer.shape {
    case .folder: outerFiles = nil
    case .files(let pattern): outerFiles = pattern
    case .registry: return false
    }
    let path = Platform.resolvedPath(self.path)
    let outerPath = Platform.resolvedPath(outer.path)
    guard !(path == outerPath && files == outerFiles) else { return false }
    let folder = outerPath == "/" ? "/" : outerPath + "/"
    guard let pattern = outerFiles else {
      return path.hasPrefix(folder) || (path == outerPath && files != nil)
    }
    if path.hasPrefix(folder) { return pattern.matchedPath(String(path.dropFirst(folder.count))) != nil }
    // The same folder: a file the pattern names.
    guard path == outerPath, let name = files.flatMap({ Glob.literal($0.pattern) }) else { return false }
    return pattern.matches(name)
  }

  /// The portable form of the folder the location is in: its own for a folder or registry
  /// keys, without the pattern for a location of files (as `ArchiveLocation.folderPortable`).
  public var folderPortable: PortableLocation { ArchiveLocation(self).folderPortable }

  /// Whether it is `other` under another name: the same place, of the same shape.
  public func isSamePlace(as other: SaveLocation) -> Bool { path == other.path && shape == other.shape }

  /// `locations` without repeats (the same folder and files) and without any that lies in
  /// another (`isInside`), in their order: one place is never two locations of a game,
  /// whether its list came from the config, from scanning or from an agreement.
  public static func outermost(_ locations: [SaveLocation]) -> [SaveLocation] {
    var kept: [SaveLocation] = []
    for location in locations
    where !kept.contains(where: location.isSamePlace) && !locations.contains(where: location.isInside) {
      kept.append(location)
    }
    return kept
  }
}

extension ArchiveLocation {
  public init(_ location: SaveLocation) {
    self.init(name: location.name, portable: location.portable, path: location.shown, files: location.pattern)
  }
}

extension Target {
  /// The locations of a config entry with `locations`: its `saveDir` first (when it has one),
  /// then each location. A plain path is taken from the config file's folder (its portable
  /// form is worked out, so `~/.config/X` is `<xdgConfig>/X` on any machine); one with
  /// placeholders is resolved on this machine, in the install and prefix of the game the entry
  /// names (`steamAppId`, or `store` and `storeGameId`): every folder it matches, else the
  /// folder a save would be written to. Throws when one has no place here.
  static func locations(
    of entry: ConfigFile.GameEntry, game: String, configFolder: String, paths: Paths, roots: () -> GameRoots
  ) throws(ConfigError) -> [SaveLocation] {
    let written = (entry.saveDir.map { [$0] } ?? []) + (entry.locations ?? [])
    var found: [SaveLocation] = []
    var registries: [SaveLocation] = []
    for text in written {
      if RegistryKeyText.isRegistry(text) {
        let (path, portable, registry) = try registryLocation(
          text, of: entry, game: game, paths: paths, roots: roots)
        registries.append(SaveLocation(name: "", path: path, portable: portable, shape: .registry(registry)))
        continue
      }
      guard text.contains("<") else {
        let path = absolute(text, in: configFolder, home: paths.home)
        let portable = PortableLocation.forAbsolute(path, in: roots())
        if let (folder, pattern) = FilePattern.split(path) {
          // The pattern as written: only the folder's names are taken literally.
          let inFolder = PortableLocation.forAbsolute(folder, in: roots())
          let portable = PortableLocation(
            template: inFolder.template + "/" + pattern, store: inFolder.store,
            storeGameID: inFolder.storeGameID)
          found.append(.unnamed(folder, portable, .files(Self.pattern(pattern, in: folder))))
        } else if Platform.isRegularFile(path) {
          found.append(Self.fileLocation(path, portable: portable))
        } else {
          found.append(.unnamed(path, portable))
        }
        continue
      }
      let portable = PortableLocation(template: text, store: entry.storeName, storeGameID: entry.storeID)
      // A glob names files: the folder before it is the location's, the rest its pattern.
      if let (folderTemplate, pattern) = FilePattern.split(text) {
        let folder = PortableLocation(
          template: folderTemplate, store: portable.store, storeGameID: portable.storeGameID)
        switch folder.resolve(on: roots()) {
        case .existing(let paths):
          found += paths.filter(Platform.isFolder).map { path in
            .unnamed(path, portable, .files(Self.pattern(pattern, in: path)))
          }
        case .wouldBe(let path):
          found.append(.unnamed(path, portable, .files(Self.pattern(pattern, in: path))))
        case .unresolvable(let why):
          throw .invalid("game '\(game)': the location '\(text)' has no place on this machine: \(why)")
        }
        continue
      }
      switch portable.resolve(on: roots()) {
      case .existing(let paths):
        // A file it names is a location of that one file, in the folder that holds it.
        found += paths.map { path in
          Platform.isFolder(path) ? .unnamed(path, portable) : Self.fileLocation(path, portable: portable)
        }
      case .wouldBe(let path): found.append(.unnamed(path, portable))
      case .unresolvable(let why):
        throw .invalid("game '\(game)': the location '\(text)' has no place on this machine: \(why)")
      }
    }
    // One inside another of the game's locations is part of it already (a manifest's folder
    // and a file or folder in it, an entry inside the Steam Cloud folder, a folder a glob
    // matches): merged.
    var result: [SaveLocation] = []
    for location in SaveLocation.outermost(found) {
      var named = location
      named.name = SaveLocation.name(index: result.count, path: location.path)
      result.append(named)
    }
    for var location in registries where !result.contains(where: { $0.path == location.path }) {
      location.name = SaveLocation.name(index: result.count, path: location.path)
      result.append(location)
    }
    return result
  }

  /// The location of the one file at `path`: its folder, and its name as the pattern.
  static func fileLocation(_ path: String, portable: PortableLocation) -> SaveLocation {
    let folder = (path as NSString).deletingLastPathComponent
    return .unnamed(
      folder, portable,
      .files(FilePattern.file((path as NSString).lastPathComponent, caseSensitive: !isInWinePrefix(folder))))
  }

  /// The pattern `glob` of files in `folder`: matching names whatever their case in a Wine
  /// prefix.
  static func pattern(_ glob: String, in folder: String) -> FilePattern {
    FilePattern(pattern: glob, caseSensitive: !isInWinePrefix(folder))
  }

  /// Whether `path` is inside a Wine or Proton prefix's `drive_c`, where names match whatever
  /// their case.
  static func isInWinePrefix(_ path: String) -> Bool {
    path.contains("/drive_c/") || path.hasSuffix("/drive_c")
  }

  /// The patterns of its locations of files, by location name.
  var filePatterns: [String: FilePattern] {
    Dictionary(locations.compactMap { location in location.pattern.map { (location.name, $0) } }) { a, _ in a
    }
  }

  /// The archive's account of the locations; nil for a one-folder game, whose archives hold
  /// its content at the top.
  var archiveLocations: [ArchiveLocation]? { isOneFolder ? nil : locations.map(ArchiveLocation.init) }
}

extension ConfigFile.GameEntry {
  /// The store whose install and prefix the entry's placeholders are read in.
  var storeName: String? {
    store ?? (steamAppId != nil ? GameStore.steam.rawValue : winePrefix != nil ? "wine" : nil)
  }
  /// The game's id in that store (a Wine prefix's path for `wine`).
  var storeID: String? { storeGameId ?? steamAppId ?? winePrefix }
}

extension GameRoots {
  /// What this machine has installed, with the config file's extra roots and Wine prefixes.
  /// The Steam account `SAVEVAULT_STEAM_USER` (`--steam-user`), else the config's `steamUser`,
  /// is the only one `<storeUserId>` names.
  public static func scan(_ config: ConfigFile, paths: Paths, environment: [String: String]) -> GameRoots {
    scan(
      host: HostFolders(environment: environment, home: paths.home), extraRoots: config.roots ?? [],
      winePrefixes: config.winePrefixes ?? [], readYAML: { try YAMLValue.parse($0) }
    ).choosingSteamAccount(environment["SAVEVAULT_STEAM_USER"] ?? config.steamUser)
  }
}
