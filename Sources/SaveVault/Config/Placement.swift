import Foundation

/// Where a save directory may be, pure apart from resolving symlinks: never holding the
/// container or SaveVault's own folders, never inside them, never overlapping another game's
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
  /// SaveVault's own folders on this device.
  var ownFolders: [String]
  /// Other configured games and their save directories.
  var otherGames: [(name: String, saveDirectory: String)]
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
    for own in ownFolders {
      let folder = Platform.resolvedPath(own)
      if Self.isWithin(folder, save) || Self.isWithin(save, folder) {
        return .invalid(
          "the save directory '\(saveDirectory)' and SaveVault's own folder '\(own)' overlap: a backup would pack SaveVault's files (its backups and pre-restore copies among them) and a restore would move them. Name the game's own save folder, not a parent of it"
        )
      }
    }
    for other in otherGames {
      let folder = Platform.resolvedPath(other.saveDirectory)
      if Self.isWithin(folder, save) || Self.isWithin(save, folder) {
        return .invalid(
          "the save directory '\(saveDirectory)' overlaps game '\(other.name)''s save directory '\(other.saveDirectory)': restoring one would change the other's save. Give each game a folder of its own"
        )
      }
    }
    if let bound = boundFolders.first(where: { Platform.resolvedPath($0) != save && $0 != saveDirectory }) {
      return .invalid(
        "the game name '\(game)' (the save directory's last component) already belongs to '\(bound)' on this device: two folders under one name would exchange saves. Pass --game NAME to give '\(saveDirectory)' a name of its own"
      )
    }
    return nil
  }

  /// Whether `inner` is `outer` or lies inside it (both absolute, resolved).
  static func isWithin(_ inner: String, _ outer: String) -> Bool {
    inner == outer || outer == "/" || inner.hasPrefix(outer + "/")
  }
}

extension Placement {
  /// The placement of a save directory for `game` with its `container`, among `games` (every
  /// configured game's save directory; the game's own entry is left out) and this device's
  /// folders; `bound` as for `boundFolders`.
  init(
    saveDirectory: String, game: String, container: ContainerLocation, games: [String: String], paths: Paths,
    bound: [String] = []
  ) {
    let folder: String? = if case .folder(let path) = container { path } else { nil }
    self.init(
      saveDirectory: saveDirectory, game: game, containerFolder: folder,
      ownFolders: [paths.dataDirectory, paths.stateDirectory],
      otherGames: games.filter { $0.key != game }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
      boundFolders: bound)
  }
}
