import Foundation

/// Heroic Games Launcher's config folder: its GOG games (`gog_store/installed.json`, titles
/// from `store_cache/gog_library.json`), its Epic games (Legendary's `installed.json`), its
/// Amazon games (Nile's), the games added by hand (sideloaded), and each game's Wine or Proton
/// prefix (`GamesConfig/<appName>.json`). Heroic writes these as
/// JSON; a file that does not read skips that store with a warning.
struct HeroicRoot {
  /// The config folder (`~/.config/heroic`).
  var folder: String
  /// `~/.var/app/com.heroicgameslauncher.hgl` for Flatpak Heroic.
  var sandbox: String?

  static let flatpakID = "com.heroicgameslauncher.hgl"

  /// Native (`$XDG_CONFIG_HOME/heroic`, `~/.config/heroic`) and Flatpak Heroic, each once.
  static func locate(host: HostFolders) -> [HeroicRoot] {
    let sandbox = host.home + "/.var/app/" + flatpakID
    let flatpak = sandbox + "/config/heroic"
    return existingFolders(host.configHomes.map { $0 + "/heroic" } + [flatpak]).map {
      HeroicRoot(folder: $0, sandbox: $0 == flatpak ? sandbox : nil)
    }
  }

  /// GOG games: `{"installed": [{appName, platform, install_path}]}`.
  func gogGames(warnings: inout [String]) -> [InstalledGame] {
    let file = folder + "/gog_store/installed.json"
    guard FileManager.default.fileExists(atPath: file) else { return [] }
    guard let installed = Self.json(file)?["installed"] as? [[String: Any]] else {
      warnings.append("Heroic's GOG list \(file) was not read: it is not the JSON Heroic writes")
      return []
    }
    let titles = gogTitles()
    return installed.compactMap { entry in
      guard let appName = Self.text(entry["appName"]), let path = entry["install_path"] as? String else {
        return nil
      }
      return game(.gog, id: appName, title: titles[appName] ?? (path as NSString).lastPathComponent, at: path)
    }
  }

  /// GOG titles by product id, from `store_cache/gog_library.json` (`{"games": [{app_name, title}]}`)
  /// or the older `gog_store/library.json`.
  func gogTitles() -> [String: String] {
    var titles: [String: String] = [:]
    for file in [folder + "/gog_store/library.json", folder + "/store_cache/gog_library.json"] {
      for entry in Self.json(file)?["games"] as? [[String: Any]] ?? [] {
        if let id = Self.text(entry["app_name"]), let title = entry["title"] as? String { titles[id] = title }
      }
    }
    return titles
  }

  /// Epic games from Legendary's `installed.json` (`{<app_name>: {app_name, title, install_path}}`)
  /// in Heroic's own folder.
  func epicGames(warnings: inout [String]) -> [InstalledGame] {
    // Flatpak Heroic's older Legendary folder is its own; a native one's is a standalone
    // Legendary's (`LegendaryRoot`).
    let files =
      [folder + "/legendaryConfig/legendary/installed.json"]
      + (sandbox != nil ? [folder + "/../legendary/installed.json"] : [])
    var games: [InstalledGame] = []
    for file in files {
      for found in Self.legendaryGames(file, warnings: &warnings)
      where !games.contains(where: { $0.storeGameID == found.id }) {
        games.append(game(.epic, id: found.id, title: found.title, at: found.path))
      }
    }
    return games
  }

  /// The games of a Legendary `installed.json` (`{<app_name>: {app_name, title,
  /// install_path}}`), by app name; none when the file is missing, and a warning when it does
  /// not read.
  static func legendaryGames(_ file: String, warnings: inout [String]) -> [(
    id: String, title: String, path: String
  )] {
    guard FileManager.default.fileExists(atPath: file) else { return [] }
    guard let installed = json(file) else {
      warnings.append("Legendary's list \(file) was not read: it is not the JSON Legendary writes")
      return []
    }
    return installed.sorted(by: { $0.key < $1.key }).compactMap { key, value in
      guard let entry = value as? [String: Any], let path = entry["install_path"] as? String else {
        return nil
      }
      let title = entry["title"] as? String ?? (path as NSString).lastPathComponent
      return (text(entry["app_name"]) ?? key, title, path)
    }
  }

  func game(_ store: GameStore, id: String, title: String, at path: String) -> InstalledGame {
    InstalledGame(
      store: store, storeGameID: id, title: title, installFolder: path, prefix: prefix(appName: id),
      source: folder, sandbox: sandbox)
  }

  /// `GamesConfig/<appName>.json` → `{<appName>: {winePrefix, wineVersion: {type}}}`; a Proton
  /// prefix keeps its `drive_c` in `pfx`.
  func prefix(appName: String) -> String? {
    guard let config = Self.json(folder + "/GamesConfig/" + appName + ".json")?[appName] as? [String: Any],
      let prefix = config["winePrefix"] as? String, !prefix.isEmpty
    else { return nil }
    let type = (config["wineVersion"] as? [String: Any])?["type"] as? String
    if type == "proton" || !isDirectory(prefix + "/drive_c"), isDirectory(prefix + "/pfx") {
      return prefix + "/pfx"
    }
    return prefix
  }

  static func json(_ file: String) -> [String: Any]? {
    guard let data = FileManager.default.contents(atPath: file) else { return nil }
    return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
  }

  /// A JSON id that may be written as a number or a string.
  static func text(_ value: Any?) -> String? {
    if let string = value as? String { return string }
    if let number = value as? NSNumber { return number.stringValue }
    return nil
  }
}
