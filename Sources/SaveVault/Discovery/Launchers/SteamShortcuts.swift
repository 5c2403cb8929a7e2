import Foundation

extension SteamInstallation {
  /// The player's non-Steam games (Heroic, itch, emulators added to Steam, as a Deck runs
  /// them), from each user's `userdata/<user>/config/shortcuts.vdf`: the shortcut's name
  /// (`AppName`) is the title the manifest knows it by, its "start in" folder (`StartDir`) its
  /// install folder, and its Proton prefix `compatdata/<app id>/pfx` in any of the
  /// installation's libraries, the app id read as Steam writes it (a signed 32-bit integer)
  /// and named as the folder names it (unsigned). A damaged file is skipped with a warning.
  func shortcuts(warnings: inout [String]) -> [InstalledGame] {
    var games: [InstalledGame] = []
    for user in userIDs {
      let file = root + "/userdata/" + user + "/config/shortcuts.vdf"
      guard let bytes = FileManager.default.contents(atPath: file) else { continue }
      let list: BinaryKeyValues
      do {
        list = try BinaryKeyValues.parse(bytes).map("shortcuts") ?? BinaryKeyValues()
      } catch {
        warnings.append("Steam's non-Steam games \(file) were not read (\(error))")
        continue
      }
      for case .map(let shortcut) in list.entries.map(\.value) {
        guard let name = shortcut.string("AppName"), !name.isEmpty else { continue }
        let appID = shortcut.int32("appid").map { String(UInt32(bitPattern: $0)) }
        games.append(
          InstalledGame(
            store: .steamShortcut, storeGameID: nil, title: name,
            installFolder: shortcut.string("StartDir").flatMap(Self.startFolder),
            prefix: appID.flatMap { Self.prefix(appID: $0, preferring: root, in: libraries) }, source: root,
            steamRoot: root, sandbox: sandbox, shortcutID: appID))
      }
    }
    return games
  }

  /// The folder a shortcut starts in, as Steam writes it (in quotes, or not), when it exists.
  static func startFolder(_ written: String) -> String? {
    var folder = written.trimmingCharacters(in: .whitespaces)
    if folder.count >= 2, folder.hasPrefix("\""), folder.hasSuffix("\"") {
      folder = String(folder.dropFirst().dropLast())
    }
    while folder.count > 1, folder.hasSuffix("/") { folder.removeLast() }
    return folder.hasPrefix("/") && isDirectory(folder) ? folder : nil
  }
}
