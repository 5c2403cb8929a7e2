import Foundation

/// A game installed here that the manifest knows, as `scan` shows it.
public struct FoundGame: Codable, Sendable, Equatable {
  /// The game's name in the config and the container: the title, or its safe form.
  public var game: String
  public var title: String
  /// `steam`, `steam-shortcut`, `gog`, `epic`, `amazon`, `sideload`, `lutris`, `wine` or `other`.
  public var store: String
  public var storeGameId: String?
  public var steamAppId: String?
  public var installFolder: String?
  public var locations: [FoundLocation]
  public var files: Int
  public var bytes: Int64
  /// Whether the config file has a game of this name.
  public var configured: Bool
  /// For a configured game, the locations found whose files its locations in the config file
  /// leave out (a backup refuses them, naming them, until they are added or excluded).
  public var leftOut: [FoundLocation]?
  /// Whether it is installed here; false for a game `scan --everywhere` found only by the saves
  /// it left (its store is then `steam` when they are in a Proton prefix Steam kept for it).
  public var installed: Bool
}

/// One save location of a found game: where it is here, and its portable form.
public struct FoundLocation: Codable, Sendable, Equatable {
  public var path: String
  /// The location with placeholders, as it is found on any machine.
  public var portable: String
  /// A folder, backed up whole; or one file.
  public var isFolder: Bool
}

extension Vault {
  /// What this machine has installed (Steam, Heroic, Lutris, the config's roots and Wine
  /// prefixes), read once per run. The games found by a folder's name are named by the copy of
  /// the manifest there is (none is downloaded for it).
  func gameRoots(_ config: ConfigFile) -> GameRoots {
    cache.roots {
      let roots = GameRoots.scan(config, paths: paths, environment: context.environment)
      let folderGames = roots.games.filter(\.isKnownByTitle)
      guard !folderGames.isEmpty,
        let manifest = try? manifest(refresh: .never, installFolders: roots.games.compactMap(\.installFolder))
      else { return roots }
      return roots.identifyingFolderGames(by: manifest)
    }
  }

  /// The installed games that have save data here (all installed games the manifest knows,
  /// with `includingWithoutSaves`), sorted by name; with `everywhere`, also every other game of
  /// the manifest whose save paths that need no install folder have saves here
  /// (`LeftBehindSearch`). The manifest is refreshed as `refresh` says.
  public func findGames(
    configFile: String?, includingWithoutSaves: Bool = false, everywhere: Bool = false,
    refresh: LocationManifestRefresh
  )
    throws -> [FoundGame]
  {
    let config = try cache.config(at: configPath(configFile), isRequired: configFile != nil)
    let (roots, manifest) = try detectionRoots(config, refresh: refresh, configFile: configFile)
    for warning in roots.warnings { context.log.warning(warning) }
    let configured = Set((config.games ?? [:]).keys)
    var found: [FoundGame] = []
    var installedTitles = Set<String>()
    func add(
      _ game: LocationManifestGame, _ installed: InstalledGame, _ locations: [DetectedLocation],
      isInstalled: Bool
    ) {
      let name = Target.gameName(forTitle: game.title)
      guard !found.contains(where: { $0.game == name }) else { return }
      let counts = locations.map { $0.contents() }
      found.append(
        FoundGame(
          game: name, title: game.title, store: installed.store.rawValue, storeGameId: installed.storeGameID,
          steamAppId: installed.store == .steam ? installed.storeGameID : game.steamID.map(String.init),
          installFolder: installed.installFolder,
          locations: locations.map {
            FoundLocation(path: $0.path, portable: $0.portable.template, isFolder: $0.isFolder)
          },
          files: counts.reduce(0) { $0 + $1.files }, bytes: counts.reduce(0) { $0 + $1.bytes },
          configured: configured.contains(name),
          leftOut: configured.contains(name) ? leftOut(ofConfigured: name, configFile: configFile) : nil,
          installed: isInstalled))
    }
    for installed in roots.games {
      guard let game = Detection.manifestGame(for: installed, lookup: manifest) else { continue }
      installedTitles.insert(game.title)
      guard !found.contains(where: { $0.game == Target.gameName(forTitle: game.title) }) else { continue }
      // Every install of the game (two roots, an alias folder) adds its locations.
      let locations = Detection.outermost(
        Self.installs(of: installed, in: roots).flatMap {
          Detection.locations(of: game, installed: $0, host: roots.host)
        })
      guard includingWithoutSaves || !locations.isEmpty else { continue }
      add(game, installed, locations, isInstalled: true)
    }
    if everywhere {
      let search = LeftBehindSearch(roots: roots)
      for game in manifest.allGames where game.alias == nil && !installedTitles.contains(game.title) {
        guard let (place, locations) = search.locations(of: game) else { continue }
        add(game, place, locations, isInstalled: false)
      }
    }
    return found.sorted { $0.game < $1.game }
  }

  /// What the configured game `name` leaves out of what discovery finds (nil when it cannot be
  /// resolved here: its own commands say why).
  private func leftOut(ofConfigured name: String, configFile: String?) -> [FoundLocation]? {
    guard let target = try? resolve(TargetRequest(game: name, configFile: configFile)) else { return nil }
    return leftOutLocations(target).map {
      FoundLocation(path: $0.path, portable: $0.portable.template, isFolder: $0.isFolder)
    }
  }

  /// The installed game `name` stands for (its game name, its title, or its title compared
  /// loosely), or the one with Steam app id `steamAppID`: the config entry that keeps it.
  /// Nil when no installed game the manifest knows matches.
  func detectedEntry(
    named name: String? = nil, steamAppID: String? = nil, configFile: String?,
    refresh: LocationManifestRefresh
  )
    throws -> (name: String, entry: ConfigFile.GameEntry, unplaced: [Advised])?
  {
    let config = try cache.config(at: configPath(configFile), isRequired: configFile != nil)
    // A name may stand for a game that is not installed but left saves here.
    guard name != nil || !gameRoots(config).games.isEmpty else { return nil }
    let (roots, manifest) = try detectionRoots(config, refresh: refresh, configFile: configFile)
    let wanted = name.map(LocationManifestTitle.normalized)
    for installed in roots.games {
      if let steamAppID, installed.store != .steam || installed.storeGameID != steamAppID { continue }
      guard let game = Detection.manifestGame(for: installed, lookup: manifest) else { continue }
      let gameName = Target.gameName(forTitle: game.title)
      if let name, name != gameName, name != game.title,
        wanted != LocationManifestTitle.normalized(game.title)
      {
        continue
      }
      let (entry, unplaced) = Self.entry(for: installed, game: game, roots: roots)
      return (gameName, entry, unplaced)
    }
    // Not installed: the saves it left (`scan --everywhere`), where they are.
    guard let name, steamAppID == nil, let game = manifest.game(title: name), game.alias == nil,
      let (place, _) = LeftBehindSearch(roots: roots).locations(of: game)
    else { return nil }
    let (entry, unplaced) = Self.entry(for: place, game: game, roots: roots)
    return (Target.gameName(forTitle: game.title), entry, unplaced)
  }

  /// This machine's installed games and the manifest, refreshed as `refresh` says; the games
  /// found by a folder's name are named by that manifest.
  func detectionRoots(_ config: ConfigFile, refresh: LocationManifestRefresh, configFile: String?) throws
    -> (GameRoots, LocationManifestIndex)
  {
    let roots = gameRoots(config)
    let manifest = try manifest(
      refresh: refresh, installFolders: roots.games.compactMap(\.installFolder), configFile: configFile)
    return (roots.identifyingFolderGames(by: manifest), manifest)
  }

  /// Every install of the game `installed` is one of: itself, and those with its store and id.
  static func installs(of installed: InstalledGame, in roots: GameRoots) -> [InstalledGame] {
    guard let id = installed.storeGameID else { return [installed] }
    return roots.installs(store: installed.store, id: id)
  }

  /// The config entry of a detected game: the manifest's save paths (in the manifest's order,
  /// placeholders kept) that exist here (folders, files, globs over files) or that the game
  /// would write to in its own prefix or XDG folders, then the other locations found (Steam
  /// Cloud's folder, Proton's registry files): so that a location not made yet on this device
  /// is part of the game from the start, and the order does not change as locations appear.
  /// Its store and id and its title come with it; `unplaced` says which of the manifest's save
  /// paths have no place here, and why.
  static func entry(for installed: InstalledGame, game: LocationManifestGame, roots: GameRoots)
    -> (entry: ConfigFile.GameEntry, unplaced: [Advised])
  {
    let store = installed.store.rawValue
    var templates: [String] = []
    var unplaced: [Advised] = []
    // The folders the templates already name here: a found folder among them is not added twice.
    var covered = Set<String>()
    for template in game.files {
      let portable = PortableLocation(template: template, store: store, storeGameID: installed.storeGameID)
      // A glob over files not made yet: whether its folder would be written to is the question.
      let folder = FilePattern.split(template).map {
        PortableLocation(template: $0.folder, store: store, storeGameID: installed.storeGameID)
      }
      switch portable.resolve(on: roots) {
      case .existing(let paths) where !paths.isEmpty:
        // Folders, files and globs over files alike: a location of files is one too.
        templates.append(template)
        covered.formUnion(paths.compactMap(Platform.realPath))
      default:
        let wouldWrite: Bool
        switch (folder ?? portable).resolve(on: roots) {
        case .wouldBe, .existing: wouldWrite = true
        case .unresolvable(let why):
          wouldWrite = false
          unplaced.append(why)
        }
        // The game's own folders: its prefix, its home (in its prefix, or this user's for a
        // native game), its XDG folders, its install folder, its Steam Cloud folder in the one
        // Steam user's folder.
        let own = ["<win", "<home>", "<xdgData>", "<xdgConfig>", "<base>", "<root>/userdata/<storeUserId>/"]
        if wouldWrite, own.contains(where: template.contains) {
          templates.append(template)
        }
      }
    }
    let found = installs(of: installed, in: roots).flatMap {
      Detection.locations(of: game, installed: $0, host: roots.host)
    }
    for location in found
    where !templates.contains(location.portable.template) && !covered.contains(location.path) {
      templates.append(location.portable.template)
    }
    // The game's registry keys when it has a prefix here, those the prefix lacks too: a
    // restore then has a place for the keys another machine archived.
    if let prefix = installed.prefix, Platform.isFolder(prefix) {
      for key in game.registry where WineRegistryKey(manifestKey: key) != nil {
        let template = RegistryKeyText.scheme + key
        if !templates.contains(template) { templates.append(template) }
      }
    }
    var entry = ConfigFile.GameEntry()
    entry.locations = templates
    entry.title = Target.gameName(forTitle: game.title) == game.title ? nil : game.title
    switch installed.store {
    case .steam: entry.steamAppId = installed.storeGameID
    case .wine where installed.storeGameID == nil: entry.winePrefix = installed.prefix
    default:
      entry.store = installed.store.rawValue
      entry.storeGameId = installed.storeGameID
    }
    return (entry, unplaced)
  }
}

extension Vault {
  /// `add NAME --detect`: writes the installed game NAME stands for into the config file,
  /// with its locations (placeholders kept) and its store id. Throws `ConfigError` when no
  /// installed game matches, or the name is taken (unless `replacing`).
  public func addDetectedGame(_ game: NewGame, configFile: String?, replacing: Bool) throws -> AddGameReport {
    guard let (name, entry, _) = try detectedEntry(named: game.name, configFile: configFile, refresh: .launch)
    else {
      throw ConfigError.invalid(
        "no installed game called '\(game.name)' was found (see what scanning finds); \(remedy: .nameSaveDirectory) to add it by hand"
      )
    }
    guard let locations = entry.locations, !locations.isEmpty else {
      throw ConfigError.invalid(
        "'\(game.name)' is installed, but it has no save here yet and no save folder could be worked out: start it once, or \(remedy: .nameSaveDirectory)"
      )
    }
    var written =
      try JSONSerialization.jsonObject(with: JSONEncoder.stable.encode(entry)) as? [String: Any] ?? [:]
    let container = try game.containerURL.map { url throws(ConfigError) in try storedContainer(url) }
    written["container"] = container
    let target = try resolve(TargetRequest(game: name, configFile: configFile))
    return try editGames(configFile) { games, path in
      let isPresent = games[name] != nil
      if isPresent && !replacing {
        throw ConfigError.invalid(
          "game '\(name)' is already in config file '\(path)': \(remedy: .replaceGameEntry) to change it, or \(remedy: .removeGameFirst(name))"
        )
      }
      games[name] = written
      return AddGameReport(
        game: name, saveDir: target.saveDirectory, container: container, steamAppId: entry.steamAppId,
        configFile: path, replaced: isPresent, saveDirExists: Self.exists(target.saveDirectory),
        locations: locations, title: entry.title)
    }
  }
}

/// What `wrap` under Steam made of an installed game the config file lacks.
public enum SteamAdoption: Sendable, Equatable {
  /// Added to the config file; its backups go to `container` (as the player chose it).
  case adopted(AddGameReport, container: String)
  /// Found, but not added, since the player chose no container for it: `game` is its name,
  /// `title` its title when the name is the title's safe form.
  case containerUnchosen(game: String, title: String?, AdoptionContainer.Unchosen)
}

extension Vault {
  /// For `wrap` under Steam: the installed game with Steam app id `id` that the config file
  /// does not have, found with the manifest and added to the config file (so that `status`
  /// and `games` show it), with the container the player chose (`AdoptionContainer`: this
  /// run's `containerURL`, the file's, the one every game names, or `SAVEVAULT_CONTAINER`),
  /// written into its entry unless it is the file's own. Nothing is added when the player chose
  /// none. Nil when no installed game the manifest knows has that id, or it has no save
  /// location here yet.
  public func adoptSteamGame(id: String, configFile: String?, containerURL: String?) throws -> SteamAdoption?
  {
    guard let (name, entry, _) = try detectedEntry(steamAppID: id, configFile: configFile, refresh: .launch),
      entry.locations?.isEmpty == false
    else { return nil }
    let path = configPath(configFile)
    let configFolder = Target.folder(ofConfig: path, paths: paths, context: context)
    let choice = AdoptionContainer.choose(
      flag: containerURL, config: try cache.config(at: path, isRequired: configFile != nil),
      environment: context.environment["SAVEVAULT_CONTAINER"], configFolder: configFolder,
      currentDirectory: context.currentDirectory, home: paths.home)
    switch choice {
    case .unchosen(let why):
      return .containerUnchosen(game: name, title: entry.title, why)
    case .chosen(let url, let choice):
      // The game stays where it went: its entry names the container unless the file's is it.
      let written: String? =
        switch choice {
        case .configFile: nil
        case .everyGame: try storedContainer(url, relativeTo: configFolder)
        case .flag, .environment: try storedContainer(url)
        }
      let report = try addDetectedGame(
        NewGame(name: name, saveDirectory: "", containerURL: written), configFile: configFile,
        replacing: false)
      return .adopted(report, container: written ?? url)
    }
  }
}
