/// Ludusavi's merge of a secondary manifest into the primary one
/// (`incorporate_secondary_manifest`), as a pure function over games.
public enum LocationManifestMerge {
  /// Where a secondary manifest was found, which decides what its entries say about install
  /// folders.
  public enum Origin: Sendable, Equatable {
    /// Named in the config file (a path or a URL).
    case listed
    /// A `.ludusavi.yaml` directly in a game's install folder: that folder's name becomes one
    /// of the game's `installDir` keys.
    case installFolder(String)
  }

  /// `primary` with `secondary` merged in, in order: a title already there gets the
  /// secondary's `files`, `registry`, `installDir`, `steamExtra` and `gogExtra` added (no
  /// duplicates) and its `steam.id`, `gog.id` and `id.flatpak` only where it has none; a new
  /// title is appended. Paths starting `./` or `../` (a secondary manifest's own folder) become
  /// `<base>/…` and `<base>/../…`.
  public static func merged(
    _ primary: [LocationManifestGame], with secondary: [LocationManifestGame], origin: Origin
  ) -> [LocationManifestGame] {
    var games = primary
    var positions: [String: Int] = [:]
    for (position, game) in games.enumerated() where positions[game.title] == nil {
      positions[game.title] = position
    }
    for var game in secondary {
      game.files = game.files.map(basePath)
      if case .installFolder(let folder) = origin {
        let name = folderName(folder)
        if !name.isEmpty { game.installDirs = appending(game.installDirs, [name]) }
      }
      guard let position = positions[game.title] else {
        positions[game.title] = games.count
        games.append(game)
        continue
      }
      var standard = games[position]
      standard.files = appending(standard.files, game.files)
      standard.registry = appending(standard.registry, game.registry)
      standard.installDirs = appending(standard.installDirs, game.installDirs)
      standard.steamExtra = appending(standard.steamExtra, game.steamExtra)
      standard.gogExtra = appending(standard.gogExtra, game.gogExtra)
      standard.steamID = standard.steamID ?? game.steamID
      standard.gogID = standard.gogID ?? game.gogID
      standard.flatpakID = standard.flatpakID ?? game.flatpakID
      games[position] = standard
    }
    return games
  }

  /// `./x` → `<base>/x`, `../x` → `<base>/../x`; any other path as it is.
  static func basePath(_ path: String) -> String {
    if path.hasPrefix("./") { return "<base>/" + path.dropFirst(2) }
    if path.hasPrefix("../") { return "<base>/" + path }
    return path
  }

  /// The last component of `folder`, trailing slashes ignored.
  static func folderName(_ folder: String) -> String {
    folder.split(separator: "/").last.map(String.init) ?? ""
  }

  /// `list` followed by the items of `more` it does not have yet.
  static func appending<Item: Hashable>(_ list: [Item], _ more: [Item]) -> [Item] {
    var seen = Set(list)
    return list + more.filter { seen.insert($0).inserted }
  }
}
