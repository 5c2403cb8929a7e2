import Foundation

/// Where a save directory may be, pure apart from resolving symlinks: never holding a
/// container or SaveVault's own files, never inside them, never overlapping another game's
/// save directory, and never under a game name another folder already has on this device.
/// Each of these has lost a save: a container inside the save is packed into every backup and
/// moved away by every restore; a save folder holding `$XDG_DATA_HOME` moves the pre-restore
/// copies with it; the restore of an outer game reverts an inner one; two folders named
/// `Saves` become one game.
struct Placement {
  /// The save directory, absolute.
  var saveDirectory: String
  var game: String
  /// The container's folder, for a folder container.
  var containerFolder: String?
  /// SaveVault's own folders on this device: the save may neither hold them nor be in them.
  var ownFolders: [KnownFolder]
  /// SaveVault's own files (the config file): the save may not hold them.
  var ownFiles: [KnownFolder] = []
  /// Other games this device knows (the config file's, and those it agreed about) and their
  /// save directories.
  var otherGames: [KnownFolder]
  /// The folder containers of other games this device knows.
  var otherContainers: [KnownFolder] = []
  /// Save directories this game's name is bound to already on this device (the config file's
  /// entry, and every agreement's), when the name came from the folder's last component.
  var boundFolders: [String] = []

  /// The first problem, as a usage error naming both paths; nil when there is none.
  func problem() -> ConfigError? {
    let save = Platform.resolvedPath(saveDirectory)
    if let containerFolder {
      let container = Platform.resolvedPath(containerFolder)
      if Self.isWithin(container, save) {
        return .invalid(
          "the container '\(containerFolder)' is inside the save directory '\(saveDirectory)': every backup would hold the backups before it, and a restore would move them away. Put the container outside the save directory"
        )
      }
      if Self.isWithin(save, container) {
        return .invalid(
          "the save directory '\(saveDirectory)' is inside the container '\(containerFolder)': backups would land in the save they back up. Keep the two folders apart"
        )
      }
    }
    for own in ownFolders where Self.isWithin(own.resolved, save) || Self.isWithin(save, own.resolved) {
      return .invalid(
        "the save directory '\(saveDirectory)' and SaveVault's own folder '\(own.path)' overlap: a backup would pack SaveVault's files (its backups and pre-restore copies among them) and a restore would move them. Name the game's own save folder, not a parent of it"
      )
    }
    if let own = ownFiles.first(where: { Self.isWithin($0.resolved, save) }) {
      return .invalid(
        "the save directory '\(saveDirectory)' holds SaveVault's config file '\(own.path)': a restore would put back an old one. Name the game's own save folder, not a parent of it"
      )
    }
    let container = containerFolder.map(Platform.resolvedPath)
    for other in otherGames where other.name != game {
      if Self.isWithin(other.resolved, save) || Self.isWithin(save, other.resolved)
        || Self.namesSameFiles(save, other.resolved)
      {
        return .invalid(
          "the save directory '\(saveDirectory)' overlaps game '\(other.name)''s save directory '\(other.path)': restoring one would change the other's save. Give each game a folder of its own (\(remedy: .removeGame(other.name)) forgets a game no longer played)"
        )
      }
      if let container, let containerFolder, Self.isWithin(container, other.resolved) {
        return .invalid(
          "the container '\(containerFolder)' is inside game '\(other.name)''s save directory '\(other.path)': a restore of that game would move these backups away. Keep containers outside save directories"
        )
      }
    }
    for other in otherContainers where other.name != game && Self.isWithin(other.resolved, save) {
      return .invalid(
        "the save directory '\(saveDirectory)' holds game '\(other.name)''s container '\(other.path)': a restore would move that game's backups away. Keep containers outside save directories"
      )
    }
    if let bound = boundFolders.first(where: { Platform.resolvedPath($0) != save && $0 != saveDirectory }) {
      return .invalid(
        "the game name '\(game)' (the save directory's last component) already belongs to '\(bound)' on this device: two folders under one name would exchange saves. \(remedy: .nameGameForFolder(saveDirectory))"
      )
    }
    return nil
  }

  /// Whether two locations, at least one of them a glob over files (`folder/*.sav`), may name
  /// the same files: one's glob matches the other's path (or its first name below the glob's
  /// folder, or it spans folders with `**`), or both are globs over one folder.
  static func namesSameFiles(_ a: String, _ b: String) -> Bool {
    func covers(_ glob: (folder: String, pattern: String), _ path: String) -> Bool {
      guard isWithin(path, glob.folder), path != glob.folder else { return false }
      let relative = String(path.dropFirst(glob.folder == "/" ? 1 : glob.folder.count + 1))
      let pattern = FilePattern(pattern: glob.pattern, caseSensitive: false)
      let first = FilePattern(pattern: String(glob.pattern.split(separator: "/")[0]), caseSensitive: false)
      // Under `**`: a folder may hold matches; a file is named when its name matches the last.
      let last = FilePattern(
        pattern: String(glob.pattern.split(separator: "/").last ?? ""), caseSensitive: false)
      let spans =
        glob.pattern.contains("**")
        && (Platform.isFolder(path) || last.matches(String(relative.split(separator: "/").last ?? "")))
      let underFirst = first.pattern != "**" && first.matches(String(relative.split(separator: "/")[0]))
      return pattern.matches(relative) || spans || underFirst
    }
    switch (FilePattern.split(a), FilePattern.split(b)) {
    case (let x?, let y?): return x.folder == y.folder || covers(x, y.folder) || covers(y, x.folder)
    case (let x?, nil): return covers(x, b)
    case (nil, let y?): return covers(y, a)
    case (nil, nil): return false
    }
  }

  /// Whether `inner` is `outer` or lies inside it (both absolute, resolved).
  static func isWithin(_ inner: String, _ outer: String) -> Bool {
    inner == outer || outer == "/" || inner.hasPrefix(outer + "/")
  }
}

/// A game's folder (its save directory, or its container), as written and where it really is.
struct KnownFolder {
  var name: String
  var path: String
  var resolved: String

  init(_ name: String, _ path: String) {
    self.name = name
    self.path = path
    resolved = Platform.resolvedPath(path)
  }
}

/// The games this device knows, with their save directories and folder containers: those of
/// the config file and those of every agreement in the agreement (a `--save-dir` used without
/// the config file is a game too).
struct KnownGames {
  var saveDirectories: [KnownFolder] = []
  var containers: [KnownFolder] = []
  /// SaveVault's own folders and files (the config file).
  var ownFolders: [KnownFolder]
  var ownFiles: [KnownFolder]

  init(
    config: ConfigFile, configPath: String, agreed: [AgreedPlace], paths: Paths, context: Context,
    roots: (() -> GameRoots)? = nil
  ) {
    ownFolders = [KnownFolder("", paths.dataDirectory), KnownFolder("", paths.stateDirectory)]
    ownFiles = [KnownFolder("", configPath)]
    let folder = Target.folder(ofConfig: configPath, paths: paths, context: context)
    for (name, entry) in (config.games ?? [:]).sorted(by: { $0.key < $1.key }) {
      if let locations = entry.locations, !locations.isEmpty, let roots {
        // A game of several locations: each folder it has here (those that resolve).
        let found = try? Target.locations(
          of: entry, game: name, configFolder: folder, paths: paths, roots: roots)
        saveDirectories += (found ?? []).map { KnownFolder(name, $0.shown) }
      } else if let saveDir = entry.saveDir, !saveDir.isEmpty {
        saveDirectories.append(KnownFolder(name, absolute(saveDir, in: folder, home: paths.home)))
      }
      let container = try? Target.container(
        flag: nil, game: entry, config: config, configFolder: folder, paths: paths, context: context)
      if case .folder(let path)? = container?.location { containers.append(KnownFolder(name, path)) }
    }
    for place in agreed {
      if let saveDir = place.saveDir { saveDirectories.append(KnownFolder(place.game, saveDir)) }
      if place.container.hasPrefix("file://") {
        containers.append(KnownFolder(place.game, String(place.container.dropFirst("file://".count))))
      }
    }
  }
}

extension Placement {
  /// The placement of a save directory for `game` with its `container`, among the games this
  /// device knows and its own folders; `bound` as for `boundFolders`.
  init(
    saveDirectory: String, game: String, container: ContainerLocation, known: KnownGames, bound: [String] = []
  ) {
    let folder: String? = if case .folder(let path) = container { path } else { nil }
    self.init(
      saveDirectory: saveDirectory, game: game, containerFolder: folder,
      ownFolders: known.ownFolders, ownFiles: known.ownFiles,
      otherGames: known.saveDirectories, otherContainers: known.containers, boundFolders: bound)
  }
}

/// Where a game this device has agreed on with a container keeps its save and its archives:
/// a game known from its agreements alone (one used with a save directory and no config entry).
struct AgreedPlace {
  var game: String
  var saveDir: String?
  /// The container's key (`file://PATH` for a folder).
  var container: String
}
