import Foundation

/// A save location found on this machine.
public struct DetectedLocation: Sendable, Equatable {
  /// The absolute real path (symlinks resolved; a symlink to a file keeps its own name in its
  /// folder's real path, as a save scan sees it).
  public var path: String
  /// The same location for any machine: the template's placeholders kept where they differ
  /// between machines (`<home>`, `<winDocuments>`, `<root>`, `<storeUserId>`…), the rest made
  /// concrete as it matched here.
  public var portable: PortableLocation
  /// A folder (backed up whole) or a single file.
  public var isFolder: Bool

  public init(path: String, portable: PortableLocation, isFolder: Bool) {
    self.path = path
    self.portable = portable
    self.isFolder = isFolder
  }

  /// How many regular files the location holds and their bytes: each file once, whatever the
  /// bytes of its name, no symlink followed (one to a file is not counted, one to a folder is
  /// not gone through).
  public func contents() -> (files: Int, bytes: Int64) {
    func size(_ path: String) -> Int64? {
      guard let info = Platform.linkStatus(path), info.st_mode & S_IFMT == S_IFREG else { return nil }
      return Int64(info.st_size)
    }
    guard isFolder else { return size(path).map { (1, $0) } ?? (0, 0) }
    var files = 0
    var bytes: Int64 = 0
    let everything = Glob.expand(
      anchor: path, components: ["**", "*"], caseSensitive: true, maximumDepth: .max, limit: .max,
      followsLinks: false)
    for match in everything {
      if let fileSize = size(match.path) {
        files += 1
        bytes += fileSize
      }
    }
    return (files, bytes)
  }
}

/// An installed game the manifest knows, with the save locations that exist.
public struct DetectedGame: Sendable, Equatable {
  public var installed: InstalledGame
  public var manifest: LocationManifestGame
  /// Existing locations, none inside another.
  public var locations: [DetectedLocation]

  public init(installed: InstalledGame, manifest: LocationManifestGame, locations: [DetectedLocation]) {
    self.installed = installed
    self.manifest = manifest
    self.locations = locations
  }
}

/// Matches installed games to the manifest and finds their saves: the decision of which game
/// an install is, and which of the manifest's paths exist here.
public enum Detection {
  /// The installed games that the manifest knows and that have at least one save location
  /// here, in the order of `games`.
  public static func detect(
    _ games: [InstalledGame], host: HostFolders, lookup: some LocationManifestLookup
  ) -> [DetectedGame] {
    games.compactMap { installed in
      guard let manifest = manifestGame(for: installed, lookup: lookup) else { return nil }
      let locations = self.locations(of: manifest, installed: installed, host: host)
      return locations.isEmpty
        ? nil : DetectedGame(installed: installed, manifest: manifest, locations: locations)
    }
  }

  /// The manifest's entry for an install: by store id first (a Steam app id beats a title that
  /// differs between Steam and PCGamingWiki), then by the launcher's title, then by the
  /// install folder's name.
  public static func manifestGame(for installed: InstalledGame, lookup: some LocationManifestLookup)
    -> LocationManifestGame?
  {
    let id = installed.storeGameID
    let byID: LocationManifestGame? =
      switch installed.store {
      case .steam: id.flatMap(UInt32.init).flatMap { lookup.game(steamAppID: $0) }
      case .gog: id.flatMap(UInt64.init).flatMap { lookup.game(gogID: $0) }
      case .lutris: id.flatMap { lookup.game(lutrisSlug: $0) }
      case .wine, .other, .steamShortcut, .sideload: id.flatMap { lookup.game(title: $0) }
      case .epic, .amazon: nil
      }
    if let byID { return byID }
    if let byTitle = lookup.game(title: installed.title) { return byTitle }
    // A shortcut's "start in" folder is often an emulator's or a launcher's, not the game's.
    guard installed.store != .steamShortcut else { return nil }
    // A game found by a folder's name (a prefix named after it) is also known by that name.
    let folderName =
      installed.installFolder.map { ($0 as NSString).lastPathComponent }
      ?? (installed.isFoundByFolder ? installed.title : nil)
    guard let folder = folderName else { return nil }
    let byFolder = lookup.games(installDir: folder)
    return byFolder.count == 1 ? byFolder.first : nil
  }

  /// What the placeholders mean for this install of `game`.
  static func context(for installed: InstalledGame, game: LocationManifestGame, host: HostFolders)
    -> PlaceholderContext
  {
    var context = PlaceholderContext(host: host, store: installed.store, storeGameID: installed.storeGameID)
    context.gameNames = unique(
      [game.title] + game.installDirs
        + (installed.installFolder.map { [($0 as NSString).lastPathComponent] } ?? []))
    switch installed.store {
    case .steam:
      context.storeGameIDs = unique((game.steamID.map { [$0] } ?? []) + game.steamExtra).map(String.init)
      context.prefixUser = "steamuser"
    case .gog: context.storeGameIDs = unique((game.gogID.map { [$0] } ?? []) + game.gogExtra).map(String.init)
    case .lutris: context.storeGameIDs = game.lutrisID.map { [$0] } ?? []
    case .steamShortcut:
      context.storeGameIDs = installed.shortcutID.map { [$0] } ?? []
      context.prefixUser = "steamuser"
    case .epic, .amazon, .sideload, .wine, .other: break
    }
    if context.storeGameIDs.isEmpty, let id = installed.storeGameID { context.storeGameIDs = [id] }
    context.roots = unique([installed.source] + (installed.steamRoot.map { [$0] } ?? []))
    context.installFolders = installed.installFolder.map { [$0] } ?? []
    context.prefixes = installed.prefix.map { [$0] } ?? []
    context.sandbox = installed.sandbox
    context.flatpakID = game.flatpakID
    return context
  }

  /// The existing locations of `game` installed as `installed`, nested ones dropped.
  static func locations(of game: LocationManifestGame, installed: InstalledGame, host: HostFolders)
    -> [DetectedLocation]
  {
    let context = context(for: installed, game: game, host: host)
    var templates = game.files
    if installed.store == .steam {
      // Steam Cloud's copy.
      templates.append("<root>/userdata/<storeUserId>/<storeGameId>/remote")
    }
    var found: [DetectedLocation] = []
    for template in templates {
      for candidate in Placeholders.candidates(template, in: context) {
        found += matches(of: candidate, store: installed.store, id: installed.storeGameID)
      }
    }
    if let prefix = installed.prefix {
      found += registryLocations(of: game, prefix: prefix, store: installed.store, id: installed.storeGameID)
    }
    return outermost(found)
  }

  /// The manifest's registry keys that the prefix's files hold (a key and its subkeys, read as
  /// Wine writes them): each a location `registry:<key>` at the file that holds it.
  static func registryLocations(of game: LocationManifestGame, prefix: String, store: GameStore, id: String?)
    -> [DetectedLocation]
  {
    var files: [WineRegistryKey.File: WineRegistry] = [:]
    var found: [DetectedLocation] = []
    for manifestKey in game.registry {
      guard let key = WineRegistryKey(manifestKey: manifestKey) else { continue }
      let path = prefix + "/" + key.file.rawValue
      if files[key.file] == nil {
        files[key.file] = FileManager.default.contents(atPath: path).flatMap { try? WineRegistry.parse($0) }
      }
      guard let file = files[key.file], key.paths.contains(where: { !file.sections(under: $0).isEmpty })
      else {
        continue
      }
      let portable = PortableLocation(
        template: RegistryKeyText.scheme + manifestKey, store: store.rawValue, storeGameID: id)
      found.append(DetectedLocation(path: path, portable: portable, isFolder: false))
    }
    return found
  }

  /// The existing paths a candidate matches, each with its portable form.
  static func matches(of candidate: SaveCandidate, store: GameStore?, id: String?) -> [DetectedLocation] {
    Glob.expand(
      anchor: candidate.anchor, components: candidate.components, caseSensitive: candidate.caseSensitive
    )
    .compactMap { match in
      guard candidate.accepts(match) else { return nil }
      // A link to a file stays a name in its folder; any other path is made real.
      guard let real = match.realPath else { return nil }
      return DetectedLocation(
        path: real, portable: candidate.portable(of: match, store: store, id: id), isFolder: isDirectory(real)
      )
    }
  }

  /// `locations` without repeats and without any inside a folder location, first kept.
  static func outermost(_ locations: [DetectedLocation]) -> [DetectedLocation] {
    let folders = locations.filter(\.isFolder).map(\.path)
    var seen = Set<String>()
    return locations.filter { location in
      // Registry keys of one prefix file share its path: one each.
      if RegistryKeyText.isRegistry(location.portable.template) {
        return seen.insert(location.portable.template).inserted
      }
      let isInside = folders.contains { location.path.hasPrefix($0 == "/" ? $0 : $0 + "/") }
      return !isInside && seen.insert(location.path).inserted
    }
  }
}

extension SaveCandidate {
  /// The portable form of a match: the leading placeholder for the folders it stood for, the
  /// matched names for the rest, `<storeUserId>` kept.
  func portable(of match: Glob.Match, store: GameStore?, id: String?) -> PortableLocation {
    guard let leading else { return PortableLocation(template: match.path) }
    var parts = [leading]
    for (index, name) in match.names.enumerated().dropFirst(keptCount) where !name.isEmpty {
      parts.append(userIDIndices.contains(index) ? userIDTemplate(of: name, at: index) : name)
    }
    let isBound = isStoreBound && store != nil
    return PortableLocation(
      template: parts.joined(separator: "/"), store: isBound ? store?.rawValue : nil,
      storeGameID: isBound ? id : nil)
  }
}
