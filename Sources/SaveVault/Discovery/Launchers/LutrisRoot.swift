import Foundation

/// Lutris's game files (`games/*.yml`): `name`, `game_slug`, `game.exe`, `game.prefix`,
/// `game.working_dir`; and its game database `pga.db` (`LutrisRoot+Database`). The YAML is parsed by the reader passed in (libyaml's, supplied by the
/// manifest reader) so that this file stays plain reading of values.
enum LutrisRoot {
  static let flatpakID = "net.lutris.Lutris"

  /// The `games` folders: native config and data, and Flatpak Lutris's.
  static func folders(host: HostFolders) -> [(folder: String, sandbox: String?)] {
    let sandbox = host.home + "/.var/app/" + flatpakID
    let native = (host.configHomes + host.dataHomes).map { $0 + "/lutris/games" }
    let flatpak = [sandbox + "/config/lutris/games", sandbox + "/data/lutris/games"]
    return existingFolders(native + flatpak).map { ($0, flatpak.contains($0) ? sandbox : nil) }
  }

  /// The game files of every folder.
  static func gameFiles(host: HostFolders) -> [(file: String, sandbox: String?)] {
    folders(host: host).flatMap { folder, sandbox in
      ((try? Platform.directoryNames(folder)) ?? []).sorted()
        .filter { $0.hasSuffix(".yml") || $0.hasSuffix(".yaml") }
        .map { (folder + "/" + $0, sandbox) }
    }
  }

  /// Every Lutris game install: each game file (read with `readYAML`; without it they are
  /// skipped with a warning), completed by its row in `pga.db` (Lutris's game database), and the
  /// rows that have no game file. A game file's prefix wins over the database's (Lutris changes
  /// the file when the player changes the prefix). A game installed twice (two game files or
  /// rows of one slug, each with its own prefix or folder) is each install; the same install
  /// read twice counts once.
  static func games(
    host: HostFolders, readYAML: (([UInt8]) throws -> YAMLValue)?, warnings: inout [String]
  ) -> [InstalledGame] {
    var rows = databaseGames(host: host, warnings: &warnings)
    var games: [InstalledGame] = []
    let files = gameFiles(host: host)
    if readYAML == nil, !files.isEmpty {
      warnings.append("Lutris game files were not read: no YAML reader is available")
    }
    for (file, sandbox) in readYAML == nil ? [] : files {
      guard let readYAML, let bytes = FileManager.default.contents(atPath: file),
        let spec = try? readYAML(Array(bytes)), var game = game(spec: spec, file: file, sandbox: sandbox)
      else {
        warnings.append("Lutris game file \(file) was not read: it is damaged or has no game")
        continue
      }
      let configPath = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
      if let row = rows.removeValue(forKey: configPath) {
        game.prefix = game.prefix ?? row.prefix
        game.installFolder = game.installFolder ?? row.installFolder
        game.storeGameID = game.storeGameID ?? row.storeGameID
      }
      games.append(game)
    }
    games += rows.sorted { $0.key < $1.key }.map(\.value)
    var seen = Set<[String?]>()
    return games.filter { seen.insert([$0.storeGameID ?? $0.title, $0.prefix, $0.installFolder]).inserted }
  }

  /// The game a parsed `games/<slug>-<n>.yml` describes; nil without a name or slug. The install
  /// folder is `game.working_dir`, else the folder of `game.exe` (a relative one is in the
  /// prefix; without a prefix it names no folder).
  static func game(spec: YAMLValue, file: String, sandbox: String? = nil) -> InstalledGame? {
    let slug = spec["game_slug"]?.string
    guard let title = spec["name"]?.string ?? slug else { return nil }
    let game = spec["game"]
    let written = game?["prefix"]?.string
    let exe = game?["exe"]?.string.flatMap { exe in exe.hasPrefix("/") ? exe : written.map { $0 + "/" + exe }
    }
    let folder = game?["working_dir"]?.string ?? exe.map { ($0 as NSString).deletingLastPathComponent }
    let prefix = written.map { isDirectory($0 + "/pfx/drive_c") ? $0 + "/pfx" : $0 }
    return InstalledGame(
      store: .lutris, storeGameID: slug, title: title,
      installFolder: folder.flatMap { $0.isEmpty ? nil : $0 },
      prefix: prefix, source: (file as NSString).deletingLastPathComponent, sandbox: sandbox)
  }
}
