import Foundation

extension PortableLocation {
  /// The portable form of a path the player typed: inside a Proton or Wine prefix it is the
  /// Windows folder's placeholder (`<winDocuments>/…` with the Steam app id of
  /// `compatdata/<id>`), inside an install folder `<base>/…`, under the home's XDG folders
  /// `<xdgData>/…` or `<xdgConfig>/…`, under the home `<home>/…`; anything else stays the path.
  /// The part after the placeholder is glob-escaped (it names one folder, not a pattern).
  public static func forAbsolute(_ path: String, in roots: GameRoots) -> PortableLocation {
    let path = Platform.resolvedPath(path)
    for library in roots.steamLibraries {
      let compatdata = real(library) + "/steamapps/compatdata/"
      guard path.hasPrefix(compatdata) else { continue }
      let parts = path.dropFirst(compatdata.count).split(separator: "/").map(String.init)
      if parts.count > 1, parts[1] == "pfx", parts[0].allSatisfy(\.isASCIIDigit),
        let template = windowsTemplate(Array(parts.dropFirst(2)))
      {
        // A non-Steam game's prefix is named by its shortcut's id, which differs between machines.
        if let shortcut = roots.games.first(where: {
          $0.store == .steamShortcut && $0.shortcutID == parts[0] && $0.storeGameID != nil
        }) {
          return PortableLocation(
            template: template, store: shortcut.store.rawValue, storeGameID: shortcut.storeGameID)
        }
        return PortableLocation(template: template, store: GameStore.steam.rawValue, storeGameID: parts[0])
      }
    }
    // A game without a store id (a folder under an extra root) cannot be found again elsewhere.
    let stored = roots.games.filter { $0.storeGameID != nil }
    for game in stored {
      if let prefix = game.prefix, let inside = relative(path, to: prefix),
        let template = windowsTemplate(inside)
      {
        return PortableLocation(template: template, store: game.store.rawValue, storeGameID: game.storeGameID)
      }
    }
    for game in stored {
      if let folder = game.installFolder, let inside = relative(path, to: folder) {
        return PortableLocation(
          template: joined("<base>", inside), store: game.store.rawValue, storeGameID: game.storeGameID)
      }
    }
    let host = roots.host
    for (placeholder, folder) in [
      ("<xdgData>", host.dataHome), ("<xdgConfig>", host.configHome), ("<home>", host.home),
    ] {
      if let inside = relative(path, to: folder) {
        return PortableLocation(template: joined(placeholder, inside))
      }
    }
    return PortableLocation(template: path)
  }

  /// The template of a path inside a prefix, given its components below the prefix; nil when
  /// it is not under a Windows folder a placeholder names.
  static func windowsTemplate(_ parts: [String]) -> String? {
    guard parts.count >= 2, parts[0].lowercased() == "drive_c" else { return nil }
    for (placeholder, folder) in Placeholders.machineFolders
    where starts(Array(parts.dropFirst()), with: folder) {
      return joined(placeholder, Array(parts.dropFirst(1 + folder.count)))
    }
    guard parts.count >= 3, parts[1].lowercased() == "users" else { return nil }
    let inHome = Array(parts.dropFirst(3))
    let known = Placeholders.windowsFolders.flatMap { placeholder, folders in
      folders.map { (placeholder, $0) }
    }
    .sorted { $0.1.count > $1.1.count }
    for (placeholder, folder) in known where !folder.isEmpty && starts(inHome, with: folder) {
      return joined(placeholder, Array(inHome.dropFirst(folder.count)))
    }
    return joined("<home>", inHome)
  }

  private static func starts(_ parts: [String], with folder: [String]) -> Bool {
    parts.count >= folder.count && zip(parts, folder).allSatisfy { $0.lowercased() == $1.lowercased() }
  }

  private static func joined(_ placeholder: String, _ parts: [String]) -> String {
    ([placeholder] + parts.map(Glob.escape)).joined(separator: "/")
  }

  /// The components of `path` below `folder` (compared by real path); nil when not inside.
  private static func relative(_ path: String, to folder: String) -> [String]? {
    let folder = real(folder)
    if path == folder { return [] }
    guard path.hasPrefix(folder == "/" ? folder : folder + "/") else { return nil }
    return path.dropFirst(folder.count).split(separator: "/").map(String.init)
  }

  private static func real(_ path: String) -> String { Platform.resolvedPath(path) }
}
