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
  /// For a location of some files of `path` (one file, or a glob): which; nil for the whole
  /// folder.
  public var files: FilePattern?
  /// For a location of registry keys: the key and the prefix it is read from (`path` is then
  /// SaveVault's export of the key); nil for files and folders.
  public var registry: RegistrySource?

  public init(
    name: String, path: String, portable: PortableLocation, files: FilePattern? = nil,
    registry: RegistrySource? = nil
  ) {
    self.name = name
    self.path = path
    self.portable = portable
    self.files = files
    self.registry = registry
  }

  /// The location as written, `path` and the pattern: what it names to a person.
  public var shown: String { files.map { path + "/" + $0.pattern } ?? path }

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
    guard registry == nil, outer.registry == nil else { return false }
    let path = Platform.resolvedPath(self.path)
    let outerPath = Platform.resolvedPath(outer.path)
    guard !(path == outerPath && files == outer.files) else { return false }
    let folder = outerPath == "/" ? "/" : outerPath + "/"
    guard let pattern = outer.files else {
      return path.hasPrefix(folder) || (path == outerPath && files != nil)
    }
    if path.hasPrefix(folder) { return pattern.matchedPath(String(path.dropFirst(folder.count))) != nil }
    // The same folder: a file the pattern names.
    guard path == outerPath, let name = files.flatMap({ Glob.literal($0.pattern) }) else { return false }
    return pattern.matches(name)
  }

  /// `locations` without repeats (the same folder and files) and without any that lies in
  /// another (`isInside`), in their order: one place is never two locations of a game,
  /// whether its list came from the config, from scanning or from an agreement.
  public static func outermost(_ locations: [SaveLocation]) -> [SaveLocation] {
    var kept: [SaveLocation] = []
    for location in locations
    where !kept.contains(where: {
      $0.path == location.path && $0.files == location.files && $0.registry == location.registry
    })
      && !locations.contains(where: location.isInside)
    {
      kept.append(location)
    }
    return kept
  }
}

extension ArchiveLocation {
  public init(_ location: SaveLocation) {
    self.init(name: location.name, portable: location.portable, path: location.shown, files: location.files)
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
    var found: [(path: String, portable: PortableLocation, files: FilePattern?)] = []
    var registries: [(path: String, portable: PortableLocation, registry: RegistrySource)] = []
    for text in written {
      if RegistryKeyText.isRegistry(text) {
        registries.append(try registryLocation(text, of: entry, game: game, paths: paths, roots: roots))
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
          found.append(
            (folder, portable, FilePattern(pattern: pattern, caseSensitive: !Self.isInWinePrefix(folder))))
        } else if Platform.isRegularFile(path) {
          found.append(Self.fileLocation(path, portable: portable))
        } else {
          found.append((path, portable, nil))
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
            (path, portable, FilePattern(pattern: pattern, caseSensitive: !Self.isInWinePrefix(path)))
          }
        case .wouldBe(let path):
          found.append(
            (path, portable, FilePattern(pattern: pattern, caseSensitive: !Self.isInWinePrefix(path))))
        case .unresolvable(let why):
          throw .invalid("game '\(game)': the location '\(text)' has no place on this machine: \(why)")
        }
        continue
      }
      switch portable.resolve(on: roots()) {
      case .existing(let paths):
        // A file it names is a location of that one file, in the folder that holds it.
        found += paths.map { path in
          Platform.isFolder(path) ? (path, portable, nil) : Self.fileLocation(path, portable: portable)
        }
      case .wouldBe(let path): found.append((path, portable, nil))
      case .unresolvable(let why):
        throw .invalid("game '\(game)': the location '\(text)' has no place on this machine: \(why)")
      }
    }
    // One inside another of the game's locations is part of it already (a manifest's folder
    // and a file or folder in it, an entry inside the Steam Cloud folder, a folder a glob
    // matches): merged.
    let unnamed = found.map { SaveLocation(name: "", path: $0.path, portable: $0.portable, files: $0.files) }
    var result: [SaveLocation] = []
    for location in SaveLocation.outermost(unnamed) {
      var named = location
      named.name = SaveLocation.name(index: result.count, path: location.path)
      result.append(named)
    }
    for (path, portable, registry) in registries where !result.contains(where: { $0.path == path }) {
      result.append(
        SaveLocation(
          name: SaveLocation.name(index: result.count, path: path), path: path, portable: portable,
          registry: registry))
    }
    return result
  }

  /// The location of the one file at `path`: its folder, and its name as the pattern.
  static func fileLocation(_ path: String, portable: PortableLocation) -> (
    String, PortableLocation, FilePattern?
  ) {
    let folder = (path as NSString).deletingLastPathComponent
    return (
      folder, portable,
      FilePattern.file((path as NSString).lastPathComponent, caseSensitive: !isInWinePrefix(folder))
    )
  }

  /// Whether `path` is inside a Wine or Proton prefix's `drive_c`, where names match whatever
  /// their case.
  static func isInWinePrefix(_ path: String) -> Bool {
    path.contains("/drive_c/") || path.hasSuffix("/drive_c")
  }

  /// The patterns of its locations of files, by location name.
  var filePatterns: [String: FilePattern] {
    Dictionary(locations.compactMap { location in location.files.map { (location.name, $0) } }) { a, _ in a }
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
