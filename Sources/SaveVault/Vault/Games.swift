import Foundation

extension Vault {
  /// The config file a command works on: `configFile` (`--config`), else `SAVEVAULT_CONFIG`
  /// or the default, made absolute.
  public func configPath(_ configFile: String?) -> String {
    absolute(configFile ?? paths.configFile, context: context, home: paths.home)
  }

  /// Adds `game` to the config file, creating the file if it is missing and keeping every
  /// other game and setting. The name must be a valid game folder; the save directory is
  /// stored absolute (it need not exist yet, but must not be a file); a folder container is
  /// stored as an absolute path, other URLs as given, after parsing; a Steam app id is a
  /// positive whole number that no other game has. A name already present is refused unless
  /// `replacing`, which replaces its entry whole. Throws `ConfigError` (exit 2) for bad input;
  /// nothing is written then.
  public func addGame(_ game: NewGame, configFile: String?, replacing: Bool) throws -> AddGameReport {
    guard Target.isValidGameName(game.name) else { throw ConfigError.invalidGameName(game.name) }
    guard !game.saveDirectory.isEmpty else {
      throw ConfigError.invalid("a game needs a save directory: \(remedy: .nameSaveDirectory)")
    }
    let saveDirectory = absolute(game.saveDirectory, context: context, home: paths.home)
    var isDirectory: ObjCBool = false
    let exists = FileManager.default.fileExists(atPath: saveDirectory, isDirectory: &isDirectory)
    // A regular file is a save of that one file (its folder's other files are no part of it).
    if exists && !isDirectory.boolValue && !Platform.isRegularFile(saveDirectory) {
      throw ConfigError.invalid("save directory '\(saveDirectory)' is neither a folder nor a regular file")
    }
    if exists && Platform.isMountPoint(saveDirectory) {
      throw ConfigError.invalid(
        "save directory '\(saveDirectory)' is a mount point (a drive or a bind mount): a restore replaces the save folder itself, which a mount point cannot be. Point the game at a folder inside it, or mount the drive one level up"
      )
    }
    let container = try game.containerURL.map { url throws(ConfigError) in try storedContainer(url) }
    if let id = game.steamAppId {
      guard !id.isEmpty, id.count <= 10, id.allSatisfy(\.isASCII), id.allSatisfy(\.isNumber),
        (UInt64(id) ?? 0) > 0
      else {
        throw ConfigError.invalid(
          "a Steam app id is a number (the N of store.steampowered.com/app/N), not '\(id)'")
      }
    }

    return try editGames(configFile) { games, path in
      let isPresent = games[game.name] != nil
      if isPresent && !replacing {
        throw ConfigError.invalid(
          "game '\(game.name)' is already in config file '\(path)': \(remedy: .replaceGameEntry) to change it, or \(remedy: .removeGameFirst(game.name))"
        )
      }
      let config = try ConfigFile.load(path: path, isRequired: false)
      if let id = game.steamAppId {
        if let other = config.games?.first(where: { $0.key != game.name && $0.value.steamAppId == id })?.key {
          throw ConfigError.invalid(
            "Steam app id \(id) already belongs to game '\(other)' in '\(path)': one id names one game")
        }
      }
      let (_, location) = try Target.container(
        flag: container, game: nil, config: config,
        configFolder: Target.folder(ofConfig: path, paths: paths, context: context), paths: paths,
        context: context)
      let records = agreements.allRecords()
      let placement = Placement(
        saveDirectory: saveDirectory, game: game.name, container: location,
        known: KnownGames(
          config: config, configPath: path, agreed: records.map(\.place), paths: paths, context: context))
      if let problem = placement.problem() { throw problem }
      // Backups of this name made from another folder: a different game, or this one moved.
      if !replacing,
        let other = records.first(where: {
          $0.game == game.name && $0.saveDir != nil
            && !$0.isAbout(saveDir: saveDirectory, realSaveDir: Platform.realPath(saveDirectory))
        })?.saveDir
      {
        throw ConfigError.invalid(
          "game '\(game.name)' already has backups on this device from another folder, '\(other)': \(remedy: .renameOrReplaceGame(saveDirectory)) if the game's saves moved there"
        )
      }
      var entry: [String: Any] = ["saveDir": saveDirectory]
      entry["container"] = container
      entry["steamAppId"] = game.steamAppId
      games[game.name] = entry
      verbose("\(isPresent ? "replacing" : "adding") game '\(game.name)' in '\(path)'")
      return AddGameReport(
        game: game.name, saveDir: saveDirectory, container: container, steamAppId: game.steamAppId,
        configFile: path, replaced: isPresent, saveDirExists: exists)
    }
  }

  /// `url` as a game's entry keeps it, once it parses: a folder as its absolute path (a
  /// relative one taken from `folder`, else the current folder), any other URL as given.
  /// Throws `ConfigError` for a URL that does not parse.
  func storedContainer(_ url: String, relativeTo folder: String? = nil) throws(ConfigError) -> String {
    let location = try ContainerLocation.parse(
      url, currentDirectory: folder ?? context.currentDirectory, home: paths.home)
    if case .folder(let path) = location { return path }
    return url
  }

  /// Removes `name` from the config file. Deletes nothing else: not the save directory, not
  /// an archive, not a pre-restore copy, not the agreements. An unknown name throws `ConfigError`.
  /// Forgets this device's agreements about the game too (so that its folder and name are free
  /// for another game), which loses no save: the next sync of a game added back compares the
  /// save with the cloud by content. A game known only from agreements (used with `--save-dir`
  /// alone) is forgotten the same way.
  public func removeGame(_ name: String, configFile: String?) throws -> RemoveGameReport {
    let records = agreements.records(game: name)
    var report = try editGames(configFile) { games, path in
      guard let removed = games.removeValue(forKey: name) as? [String: Any] else {
        guard !records.isEmpty else {
          let known = games.keys.sorted()
          throw ConfigError.invalid(
            Advised(
              "no game '\(name)' in config file '\(path)' or in this device's agreements; nothing removed"
                + (known.isEmpty ? " (it has no games)" : " (its games: \(known.joined(separator: ", ")))")))
        }
        return RemoveGameReport(game: name, configFile: path, isInConfig: false)
      }
      return RemoveGameReport(
        game: name, configFile: path, saveDir: removed["saveDir"] as? String,
        container: removed["container"] as? String)
    }
    if !records.isEmpty {
      let held = try GameLock(
        game: name, directory: paths.lockDirectory, waitSeconds: lockWaitSeconds,
        holder: "pid \(getpid()), savevault remove")
      withExtendedLifetime(held) {
        for record in records { agreements.remove(game: name, container: record.container) }
      }
      report.forgotten = records.compactMap(\.saveDir)
    }
    return report
  }

  /// Changes the `games` object of the config file with the config lock held: `change` gets
  /// it and the file's path; what it leaves is written (atomically), unless it throws.
  func editGames<Result>(
    _ configFile: String?, _ change: (inout [String: Any], String) throws -> Result
  ) throws -> Result {
    let path = configPath(configFile)
    let held = try configLock()
    defer { withExtendedLifetime(held) {} }
    let editor = ConfigEditor(path: path)
    var config = try editor.load()
    var games = ConfigEditor.games(of: config)
    let result = try change(&games, path)
    config["games"] = games
    try editor.save(config)
    // The rest of this run reads the file as it now is (wrap syncs the game it just added).
    cache.forgetConfigs()
    return result
  }

  /// The games of the config file with their entries, sorted by name (none when the default
  /// file does not exist).
  public func configuredGameEntries(configFile: String?) throws(ConfigError) -> [(
    name: String, entry: ConfigFile.GameEntry
  )] {
    let config = try cache.config(at: configPath(configFile), isRequired: configFile != nil)
    return (config.games ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
  }

  /// The keys of the config file outside the game entries (top level, `limits`) that SaveVault
  /// does not know; they are ignored. None when the file is missing or unusable (the command
  /// reports that itself). A game entry's unknown key is that game's error instead.
  public func unknownConfigKeys(configFile: String?, inGames: Bool = false) -> [UnknownConfigKey] {
    let config = try? cache.config(at: configPath(configFile), isRequired: false)
    return config?.unknownKeys.filter { ($0.game != nil) == inGames } ?? []
  }

  /// The configured games whose `steamAppId` is `id` (what Steam puts in `SteamAppId` or
  /// `STEAM_COMPAT_APP_ID` for the game it launches).
  public func games(steamAppId id: String, configFile: String?) throws(ConfigError) -> [String] {
    try configuredGameEntries(configFile: configFile).filter { $0.entry.steamAppId == id }.map(\.name)
  }

  /// Serializes changes to the config file between savevaults (`.config` is no game's name).
  private func configLock() throws -> GameLock {
    try GameLock(
      game: ".config", directory: paths.lockDirectory, waitSeconds: lockWaitSeconds,
      holder: "pid \(getpid()), savevault editing the config file")
  }
}
