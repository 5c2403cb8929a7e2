import Foundation

extension LutrisRoot {
  /// Lutris's game databases: `pga.db` in its data folder (native, Flatpak) and, for older
  /// Lutris, its config folder; each once.
  static func databases(host: HostFolders) -> [(file: String, sandbox: String?)] {
    let sandbox = host.home + "/.var/app/" + flatpakID
    let native = (host.dataHomes + host.configHomes).map { $0 + "/lutris" }
    let flatpak = [sandbox + "/data/lutris", sandbox + "/config/lutris"]
    return existingFolders(native + flatpak).filter { Platform.isRegularFile($0 + "/pga.db") }.map {
      ($0 + "/pga.db", flatpak.contains($0) ? sandbox : nil)
    }
  }

  /// The games of every database, by the name of their game file (`configpath`, the file
  /// `games/<configpath>.yml`). A row's `directory` is the game's Wine prefix for the `wine`
  /// runner on Windows, its install folder for the `linux` runner. A database that does not
  /// read is skipped with a warning.
  static func databaseGames(host: HostFolders, warnings: inout [String]) -> [String: InstalledGame] {
    var games: [String: InstalledGame] = [:]
    for (file, sandbox) in databases(host: host) {
      let rows: [[String?]]
      do {
        rows = try SQLiteTable.rows(
          path: file, table: "games",
          columns: ["name", "slug", "platform", "runner", "directory", "configpath"])
      } catch {
        warnings.append("Lutris's game database was not read (\(error))")
        continue
      }
      for row in rows {
        let (name, slug, platform, runner, directory, configPath) = (
          row[0], row[1], row[2], row[3], row[4], row[5]
        )
        guard let configPath, !configPath.isEmpty, games[configPath] == nil,
          let title = name.flatMap({ $0.isEmpty ? nil : $0 }) ?? slug
        else { continue }
        let folder = directory.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        let isWine = runner == "wine" && platform?.lowercased() == "windows"
        let prefix = isWine ? folder.map { isDirectory($0 + "/pfx/drive_c") ? $0 + "/pfx" : $0 } : nil
        games[configPath] = InstalledGame(
          store: .lutris, storeGameID: slug.flatMap { $0.isEmpty ? nil : $0 }, title: title,
          installFolder: runner == "linux" ? folder : nil, prefix: prefix,
          source: (file as NSString).deletingLastPathComponent, sandbox: sandbox)
      }
    }
    return games
  }
}
