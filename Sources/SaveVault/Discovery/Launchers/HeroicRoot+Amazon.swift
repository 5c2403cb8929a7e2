import Foundation

extension HeroicRoot {
  /// Amazon games (Heroic runs Nile for them): Heroic's `store_cache/nile_library.json`
  /// (`{"library": [{app_name, title, install: {install_path}}]}`), and Nile's own
  /// `nile_config/nile/installed.json` (`[{id, version, path}]`) with titles from its
  /// `library.json` (`[{product: {id, title}}]`). A game is named by its Amazon product id.
  func amazonGames(warnings: inout [String]) -> [InstalledGame] {
    var games: [InstalledGame] = []
    var titles: [String: String] = [:]
    let cache = folder + "/store_cache/nile_library.json"
    if FileManager.default.fileExists(atPath: cache) {
      if let library = Self.json(cache)?["library"] as? [[String: Any]] {
        for entry in library {
          guard let id = Self.text(entry["app_name"]) else { continue }
          let title = entry["title"] as? String
          titles[id] = title
          guard let path = (entry["install"] as? [String: Any])?["install_path"] as? String, !path.isEmpty
          else { continue }
          games.append(game(.amazon, id: id, title: title ?? (path as NSString).lastPathComponent, at: path))
        }
      } else {
        warnings.append("Heroic's Amazon library \(cache) was not read: it is not the JSON Heroic writes")
      }
    }
    let nile = folder + "/nile_config/nile"
    for entry in Self.jsonList(nile + "/library.json") ?? [] {
      if let product = entry["product"] as? [String: Any], let id = Self.text(product["id"]),
        let title = product["title"] as? String, titles[id] == nil
      {
        titles[id] = title
      }
    }
    let installed = nile + "/installed.json"
    guard FileManager.default.fileExists(atPath: installed) else { return games }
    guard let list = Self.jsonList(installed) else {
      warnings.append("Nile's list \(installed) was not read: it is not the JSON Nile writes")
      return games
    }
    for entry in list {
      guard let id = Self.text(entry["id"]), let path = entry["path"] as? String, !path.isEmpty,
        !games.contains(where: { $0.storeGameID == id })
      else { continue }
      games.append(game(.amazon, id: id, title: titles[id] ?? (path as NSString).lastPathComponent, at: path))
    }
    return games
  }

  /// Games the player added to Heroic by hand: `sideload_apps/library.json` (`{"games":
  /// [{app_name, title, folder_name, install: {executable}}]}`). Heroic makes up their app name
  /// on each machine, so a game is known by its title (as the manifest spells it).
  func sideloadedGames(warnings: inout [String]) -> [InstalledGame] {
    let file = folder + "/sideload_apps/library.json"
    guard FileManager.default.fileExists(atPath: file) else { return [] }
    guard let library = Self.json(file)?["games"] as? [[String: Any]] else {
      warnings.append("Heroic's sideloaded games \(file) were not read: it is not the JSON Heroic writes")
      return []
    }
    return library.compactMap { entry in
      guard let appName = Self.text(entry["app_name"]), let title = entry["title"] as? String else {
        return nil
      }
      let executable = (entry["install"] as? [String: Any])?["executable"] as? String
      let folder =
        (entry["folder_name"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        ?? executable.map { ($0 as NSString).deletingLastPathComponent }
      return InstalledGame(
        store: .sideload, storeGameID: nil, title: title, installFolder: folder,
        prefix: prefix(appName: appName),
        source: self.folder, sandbox: sandbox)
    }
  }

  /// A JSON file holding a list of objects.
  static func jsonList(_ file: String) -> [[String: Any]]? {
    guard let data = FileManager.default.contents(atPath: file) else { return nil }
    return (try? JSONSerialization.jsonObject(with: data)) as? [[String: Any]]
  }
}
