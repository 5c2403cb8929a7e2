import Foundation

/// The player's own folders, passed in as plain values so that discovery reads no environment
/// and a test can describe any machine (a Deck's `/home/deck`, a desktop's `alice`).
public struct HostFolders: Sendable, Equatable {
  /// `$HOME`.
  public var home: String
  /// `$XDG_DATA_HOME`, else `~/.local/share`.
  public var dataHome: String
  /// `$XDG_CONFIG_HOME`, else `~/.config`.
  public var configHome: String
  /// The login name (`<osUserName>`).
  public var userName: String

  public init(home: String, dataHome: String? = nil, configHome: String? = nil, userName: String) {
    self.home = home
    self.dataHome = dataHome ?? home + "/.local/share"
    self.configHome = configHome ?? home + "/.config"
    self.userName = userName
  }

  /// The folders an environment names: `HOME`, `XDG_DATA_HOME`, `XDG_CONFIG_HOME` (ignored
  /// unless absolute, as the XDG spec says), `USER` or `LOGNAME`.
  public init(environment: [String: String], home fallbackHome: String) {
    let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? fallbackHome
    func absolute(_ name: String) -> String? { environment[name].flatMap { $0.hasPrefix("/") ? $0 : nil } }
    self.init(
      home: home, dataHome: absolute("XDG_DATA_HOME"), configHome: absolute("XDG_CONFIG_HOME"),
      userName: environment["USER"] ?? environment["LOGNAME"] ?? (home as NSString).lastPathComponent)
  }

  /// The host's `~/.local/share` and `~/.config` too when the XDG variables point elsewhere:
  /// a game ignores them as often as it honours them.
  var dataHomes: [String] { unique([dataHome, home + "/.local/share"]) }
  var configHomes: [String] { unique([configHome, home + "/.config"]) }
}

/// Where a game was installed from: the store whose ids `storeGameID` is in.
public enum GameStore: String, Sendable, Equatable, Codable, CaseIterable {
  case steam, gog, epic, lutris, wine, other
  /// A non-Steam game added to Steam (`shortcuts.vdf`), run in its own Proton prefix.
  case steamShortcut = "steam-shortcut"
  /// An Amazon game (Heroic's, through Nile).
  case amazon
  /// A game added to Heroic by hand.
  case sideload
}

/// One game installed on this machine, as its launcher records it.
public struct InstalledGame: Sendable, Equatable {
  public var store: GameStore
  /// The Steam app id, the GOG product id, Epic's app name, the Lutris slug; for a folder found
  /// under an extra root or in a Wine prefix, the manifest's title once the manifest knows it
  /// (`identifyingFolderGames`), else nil.
  public var storeGameID: String?
  /// The launcher's title (or the folder's name).
  public var title: String
  /// The install folder (`<base>`), when known.
  public var installFolder: String?
  /// The Wine or Proton prefix (the folder holding `drive_c`), if the game runs in one.
  public var prefix: String?
  /// The Steam library, launcher folder, extra root or prefix the game was found in (`<root>`).
  public var source: String
  /// Steam: the Steam installation whose `userdata` holds the game's cloud files.
  public var steamRoot: String?
  /// The `~/.var/app/<id>` folder of a Flatpak launcher: its games see their XDG folders there.
  public var sandbox: String?
  /// A non-Steam shortcut's app id (unsigned, as its `compatdata` folder is named).
  public var shortcutID: String?

  public init(
    store: GameStore, storeGameID: String?, title: String, installFolder: String?, prefix: String?,
    source: String, steamRoot: String? = nil, sandbox: String? = nil, shortcutID: String? = nil
  ) {
    self.shortcutID = shortcutID
    self.store = store
    self.storeGameID = storeGameID
    self.title = title
    self.installFolder = installFolder
    self.prefix = prefix
    self.source = source
    self.steamRoot = steamRoot
    self.sandbox = sandbox
  }
}

/// What is installed on this machine: Steam, Heroic and Lutris as their files say, extra roots
/// and Wine prefixes as the player named them. One damaged file skips its launcher with a
/// warning in `warnings`; it never stops the rest.
public struct GameRoots: Sendable, Equatable {
  public var host: HostFolders
  /// The Steam installations, deduplicated by real path.
  public var steam: [SteamInstallation]
  /// The Wine prefixes the player named (each folder a `<game>` in one stands for).
  public var winePrefixes: [String]
  /// Every installed game found.
  public var games: [InstalledGame]
  /// What could not be read, in words; detection went on without it.
  public var warnings: [String]
  /// The warnings of each store's launcher files (`warnings` has them too): a game of a store
  /// here may be installed although it was not found, or found without its prefix.
  public var launcherWarnings: [GameStore: [String]] = [:]

  public init(
    host: HostFolders, steam: [SteamInstallation] = [], winePrefixes: [String] = [],
    games: [InstalledGame] = [],
    warnings: [String] = []
  ) {
    self.host = host
    self.steam = steam
    self.winePrefixes = winePrefixes
    self.games = games
    self.warnings = warnings
  }

  /// Every Steam library of every installation.
  public var steamLibraries: [String] { steam.flatMap(\.libraries) }

  /// These roots with `account` (an account id or a 64-bit SteamID) the one Steam account of
  /// every installation: the player's answer when a machine has several. Nil or empty: as
  /// they are.
  public func choosingSteamAccount(_ account: String?) -> GameRoots {
    guard let account = account?.trimmingCharacters(in: .whitespaces), !account.isEmpty else { return self }
    let id = SteamInstallation.account(steamID64: account) ?? account
    var roots = self
    for index in roots.steam.indices { roots.steam[index].chosenAccount = id }
    return roots
  }

  /// Reads every launcher this machine has. `readYAML` parses a Lutris game file (libyaml's
  /// `YAMLValue.parse`); without it Lutris's game files are skipped with a warning (its
  /// database is still read).
  public static func scan(
    host: HostFolders, extraRoots: [String] = [], winePrefixes: [String] = [],
    readYAML: (@Sendable ([UInt8]) throws -> YAMLValue)? = nil
  ) -> GameRoots {
    var roots = GameRoots(host: host)
    var installations: [SteamInstallation] = []
    roots.read(of: [.steam, .steamShortcut]) {
      installations = SteamInstallation.locate(host: host, warnings: &$0)
      return []
    }
    roots.steam = installations
    let libraries = roots.steamLibraries
    for installation in roots.steam {
      roots.read(of: [.steam]) { installation.games(allLibraries: libraries, warnings: &$0) }
      roots.read(of: [.steamShortcut]) { installation.shortcuts(warnings: &$0) }
    }
    let heroics = HeroicRoot.locate(host: host)
    for heroic in heroics {
      roots.read(of: [.gog]) { heroic.gogGames(warnings: &$0) }
      roots.read(of: [.epic]) { heroic.epicGames(warnings: &$0) }
      roots.read(of: [.amazon]) { heroic.amazonGames(warnings: &$0) }
      roots.read(of: [.sideload]) { heroic.sideloadedGames(warnings: &$0) }
    }
    let found = roots.games
    roots.read(of: [.epic]) { LegendaryRoot.games(host: host, heroics: heroics, found: found, warnings: &$0) }
    roots.read(of: [.lutris]) { LutrisRoot.games(host: host, readYAML: readYAML, warnings: &$0) }
    for root in extraRoots {
      for (folder, name) in expanded(root) {
        if let name {
          // `<game>` named the game's own folder: it is the install, its parent the root.
          roots.games.append(
            InstalledGame(
              store: .other, storeGameID: nil, title: name, installFolder: folder,
              prefix: nil, source: (folder as NSString).deletingLastPathComponent))
        } else {
          roots.games += folderGames(in: folder, store: .other, prefix: nil)
        }
      }
    }
    for written in winePrefixes {
      for (prefix, name) in expanded(written) {
        roots.winePrefixes.append(prefix)
        if let name {
          // A prefix of its own, named after the game: the game is found by that name.
          roots.games.append(
            InstalledGame(
              store: .wine, storeGameID: nil, title: name, installFolder: nil, prefix: prefix, source: prefix)
          )
        }
        for programs in ["drive_c/Program Files", "drive_c/Program Files (x86)", "drive_c/GOG Games"] {
          roots.games += folderGames(in: prefix + "/" + programs, store: .wine, prefix: prefix)
        }
      }
    }
    return roots
  }

  /// Adds the games one launcher's part reads, and its warnings, as the warnings of `stores`.
  private mutating func read(of stores: [GameStore], _ part: (inout [String]) -> [InstalledGame]) {
    var found: [String] = []
    games += part(&found)
    warnings += found
    for store in stores where !found.isEmpty { launcherWarnings[store, default: []] += found }
  }

  /// The folders a configured root or prefix stands for: itself (no name), or, when it holds
  /// `<game>` (`~/prefixes/<game>`, `~/Games/<game>/pfx`), each existing folder it names with
  /// `<game>` read as a folder's name, and that name.
  static func expanded(_ written: String) -> [(folder: String, gameName: String?)] {
    guard let range = written.range(of: "<game>") else { return [(written, nil)] }
    let parent = String(written[..<range.lowerBound])
    let rest = String(written[range.upperBound...])
    guard parent.hasSuffix("/"), rest.isEmpty || rest.hasPrefix("/"), !rest.contains("<game>") else {
      return []
    }
    let names = (try? Platform.directoryNames(parent)) ?? []
    return names.sorted().compactMap { name in
      let folder = parent + name + rest
      return isDirectory(folder) ? (folder, name) : nil
    }
  }

  /// Each folder in `root` as a game named by the folder.
  static func folderGames(in root: String, store: GameStore, prefix: String?) -> [InstalledGame] {
    let names = (try? Platform.directoryNames(root)) ?? []
    return names.sorted().filter { isDirectory(root + "/" + $0) }.map { name in
      InstalledGame(
        store: store, storeGameID: nil, title: name, installFolder: root + "/" + name, prefix: prefix,
        source: prefix ?? root)
    }
  }

  /// The same, the games found by a name (a folder's under an extra root or in a Wine prefix,
  /// a non-Steam shortcut's) named by the manifest's title as their store id: the id that says which game a
  /// location belongs to, on any machine, whatever its folder is called there. A folder the
  /// manifest does not know keeps no id.
  public func identifyingFolderGames(by lookup: some LocationManifestLookup) -> GameRoots {
    var roots = self
    for index in roots.games.indices
    where roots.games[index].isKnownByTitle && roots.games[index].storeGameID == nil {
      roots.games[index].storeGameID = Detection.manifestGame(for: roots.games[index], lookup: lookup)?.title
    }
    return roots
  }

  /// Every install of the game `store` and `id` name (one game may be in two roots).
  public func installs(store: GameStore, id: String) -> [InstalledGame] {
    games.filter { $0.store == store && $0.storeGameID == id }
  }
}

extension InstalledGame {
  /// Whether the game was found by a name (a folder's in an extra root or a Wine prefix, a
  /// non-Steam shortcut's) rather than by a store's id: its store id is then the manifest's
  /// title.
  public var isKnownByTitle: Bool {
    store == .other || store == .wine || store == .steamShortcut || store == .sideload
  }

  /// Whether the game's folder's name says which game it is (a root's, a prefix's).
  var isFoundByFolder: Bool { store == .other || store == .wine }
}

/// Whether `path` is a folder (following symlinks).
func isDirectory(_ path: String) -> Bool {
  var flag: ObjCBool = false
  return FileManager.default.fileExists(atPath: path, isDirectory: &flag) && flag.boolValue
}

/// The elements of `items` without repeats, first kept.
func unique<T: Hashable>(_ items: [T]) -> [T] {
  var seen = Set<T>()
  return items.filter { seen.insert($0).inserted }
}

/// The folders of `candidates` that exist, one per real path, first kept.
func existingFolders(_ candidates: [String]) -> [String] {
  var seen = Set<String>()
  return candidates.filter { candidate in
    guard isDirectory(candidate), let real = Platform.realPath(candidate) else { return false }
    return seen.insert(real).inserted
  }
}
