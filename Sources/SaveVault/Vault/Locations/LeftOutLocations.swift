import Foundation

extension Vault {
  /// What discovery finds of the save of the game `name` (the config file's `entry` for it,
  /// nil for a game found by discovery alone): the save locations `scan` lists for each install
  /// of it here. An install is the game's when its store and id are the entry's (`steamAppId`,
  /// or `store` and `storeGameId`), else when the manifest's title for it is the game's name or
  /// the entry's `title` (in the entry's `winePrefix`, when it names one). Nil when no manifest
  /// can be read without a download, or no install here is the game's.
  func discoveredSave(
    game name: String, entry: ConfigFile.GameEntry?, config: ConfigFile, configFile: String?
  )
    -> DiscoveredSave?
  {
    guard !gameRoots(config).games.isEmpty else { return nil }
    let roots: GameRoots
    let manifest: LocationManifestIndex
    do {
      (roots, manifest) = try cache.manifest {
        try detectionRoots(config, refresh: .never, configFile: configFile)
      }
    } catch {
      verbose(
        "the save-location manifest cannot be read, so what '\(name)' may leave out is not known: \(error)")
      return nil
    }
    var title: String?
    var found: [DetectedLocation] = []
    for installed in roots.games {
      guard let game = Detection.manifestGame(for: installed, lookup: manifest),
        Self.isInstall(installed, of: name, entry: entry, title: game.title)
      else { continue }
      title = title ?? game.title
      found += Detection.locations(of: game, installed: installed, host: roots.host)
    }
    return title.map { DiscoveredSave(title: $0, locations: Detection.outermost(found)) }
  }

  /// Whether `installed`, which the manifest calls `title`, is an install of the game `name`.
  static func isInstall(
    _ installed: InstalledGame, of name: String, entry: ConfigFile.GameEntry?, title: String
  )
    -> Bool
  {
    if let id = entry?.steamAppId { return installed.store == .steam && installed.storeGameID == id }
    if let store = entry?.store, let id = entry?.storeGameId {
      return installed.store.rawValue == store && installed.storeGameID == id
    }
    if let prefix = entry?.winePrefix {
      guard let own = installed.prefix, Platform.realPath(own) == Platform.realPath(prefix) else {
        return false
      }
    }
    return Target.gameName(forTitle: title) == name || entry?.title == title
  }

  /// The save locations discovery finds for the game that hold a regular file none of the
  /// target's locations takes (a file outside its folders, or one its patterns do not match),
  /// except those the game's `exclude` names as a location (by the portable form `scan` shows,
  /// or by path). Empty when discovery found nothing of the game.
  func leftOutLocations(_ target: Target) -> [DetectedLocation] {
    guard let discovered = target.discovered else { return [] }
    let taken = target.locations.map { location in
      (folder: Platform.realPath(location.path) ?? location.path, pattern: location.pattern)
    }
    func isTaken(_ file: String) -> Bool {
      taken.contains { folder, pattern in
        let base = folder == "/" ? "/" : folder + "/"
        guard file.hasPrefix(base) else { return false }
        return pattern?.matches(String(file.dropFirst(base.count))) ?? true
      }
    }
    return discovered.locations.filter { location in
      guard !Self.isExcludedLocation(location, exclude: target.excludedLocations) else { return false }
      // One of the game's own locations by its portable form (a registry key's, whose file
      // here is the prefix's `.reg`, not where the location keeps its export).
      if target.locations.contains(where: { $0.portable.template == location.portable.template }) {
        return false
      }
      // A folder inside one of the target's whole folders is taken without a look inside it.
      if isTaken(location.path + (location.isFolder ? "/" : "")) { return false }
      guard location.isFolder else { return true }
      return Self.regularFiles(under: location.path).contains { !isTaken($0) }
    }
  }

  /// Whether one of `exclude` names `location`: its portable form as `scan` shows it, or its
  /// path (`~` for the home folder).
  static func isExcludedLocation(_ location: DetectedLocation, exclude: [String]) -> Bool {
    exclude.contains {
      $0 == location.portable.template || $0 == location.path || Platform.realPath($0) == location.path
    }
  }

  /// The regular files below `folder` (symlinks not followed), as paths.
  static func regularFiles(under folder: String) -> [String] {
    var files: [String] = []
    for case let relative as String in FileManager.default.enumerator(atPath: folder) ?? .init() {
      let path = folder + "/" + relative
      if Platform.isRegularFile(path) { files.append(path) }
    }
    return files
  }

  /// Refuses an upload of `target` that would leave out a location discovery finds
  /// (`leftOutLocations`), naming each; with `force`, says so and lets it go.
  func refuseLeftOutLocations(_ target: Target, force: Bool) throws {
    let leftOut = leftOutLocations(target)
    guard !leftOut.isEmpty, let title = target.discovered?.title else { return }
    guard force else {
      throw VaultError.locationsLeftOut(game: target.game, title: title, locations: leftOut)
    }
    for location in leftOut {
      context.log.warning(
        "left out '\(location.portable.template)' (at '\(location.path)'): the game's locations do not take it (forced)"
      )
    }
  }
}
