import Foundation

/// Legendary used on its own (the Epic launcher Heroic runs): `installed.json` in
/// `$XDG_CONFIG_HOME/legendary` or `~/.config/legendary`, and each game's Wine prefix from
/// its section of `config.ini` (`[<app_name>]` `wine_prefix = …`), else from Heroic's
/// `GamesConfig/<app_name>.json`, else `[default]`'s.
enum LegendaryRoot {
  /// The Epic games of a standalone Legendary that `found` (Heroic's) lacks.
  static func games(
    host: HostFolders, heroics: [HeroicRoot], found: [InstalledGame], warnings: inout [String]
  )
    -> [InstalledGame]
  {
    var games: [InstalledGame] = []
    for folder in existingFolders(host.configHomes.map { $0 + "/legendary" }) {
      let prefixes = winePrefixes(folder + "/config.ini")
      for game in HeroicRoot.legendaryGames(folder + "/installed.json", warnings: &warnings)
      where !(found + games).contains(where: { $0.store == .epic && $0.storeGameID == game.id }) {
        func inPfx(_ prefix: String) -> String { isDirectory(prefix + "/pfx") ? prefix + "/pfx" : prefix }
        // Older Heroic ran this Legendary: the game's own prefix is then in Heroic's
        // `GamesConfig`, which beats Legendary's `[default]`.
        let prefix =
          prefixes[game.id].map(inPfx) ?? heroics.lazy.compactMap { $0.prefix(appName: game.id) }.first
          ?? prefixes["default"].map(inPfx)
        games.append(
          InstalledGame(
            store: .epic, storeGameID: game.id, title: game.title, installFolder: game.path, prefix: prefix,
            source: folder))
      }
    }
    return games
  }

  /// `wine_prefix` of each section of Legendary's `config.ini`, by section name.
  static func winePrefixes(_ file: String) -> [String: String] {
    guard let data = FileManager.default.contents(atPath: file) else { return [:] }
    var section = ""
    var prefixes: [String: String] = [:]
    for raw in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
      let line = raw.trimmingCharacters(in: .whitespaces)
      if line.hasPrefix("["), line.hasSuffix("]") {
        section = String(line.dropFirst().dropLast())
      } else if let equals = line.firstIndex(of: "="),
        line[..<equals].trimmingCharacters(in: .whitespaces) == "wine_prefix"
      {
        let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        if value.hasPrefix("/") { prefixes[section] = value }
      }
    }
    return prefixes
  }
}
