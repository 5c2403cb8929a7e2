/// One place a game keeps its saves: a folder on this machine, the name its content has at the
/// top of an archive of several locations, and its portable form (what says where it is on
/// another machine).
public struct SaveLocation: Sendable, Equatable {
  /// The folder's top-level name in an archive: its position and last component, `1-Hades`.
  public var name: String
  /// The folder on this machine (absolute, `~` expanded, symlinks not resolved).
  public var path: String
  /// The location as the config or the manifest writes it, resolved on any machine.
  public var portable: PortableLocation

  public init(name: String, path: String, portable: PortableLocation) {
    self.name = name
    self.path = path
    self.portable = portable
  }

  /// The archive name of the location at `index` (from 0) whose folder is `path`: `1-Hades`.
  /// Characters that are not safe in a folder name become `_`.
  public static func name(index: Int, path: String) -> String {
    let last = path.split(separator: "/").last.map(String.init) ?? "location"
    let safe = String(
      last.unicodeScalars.map { $0.value < 0x20 || $0 == "\\" || $0.value == 0x7f ? "_" : Character($0) })
    return "\(index + 1)-" + (safe.hasPrefix(".") ? "_" + safe.dropFirst() : safe)
  }
}

extension ArchiveLocation {
  public init(_ location: SaveLocation) {
    self.init(name: location.name, portable: location.portable, path: location.path)
  }
}

extension Target {
  /// The locations of a config entry with `locations`: its `saveDir` first (when it has one),
  /// then each location, plain paths taken from the config file's folder and placeholders
  /// resolved on this machine. Throws when one cannot be resolved here.
  static func locations(
    of entry: ConfigFile.GameEntry, game: String, configFolder: String, paths: Paths
  ) throws(ConfigError) -> [SaveLocation] {
    let written = (entry.saveDir.map { [$0] } ?? []) + (entry.locations ?? [])
    var result: [SaveLocation] = []
    for text in written {
      let path: String
      let portable: PortableLocation
      if text.contains("<") {
        throw .invalid("game '\(game)': the location '\(text)' has placeholders, which are not resolved yet")
      } else {
        path = absolute(text, in: configFolder, home: paths.home)
        portable = PortableLocation(template: path)
      }
      if result.contains(where: { $0.path == path }) { continue }
      result.append(
        SaveLocation(name: SaveLocation.name(index: result.count, path: path), path: path, portable: portable)
      )
    }
    return result
  }

  /// The archive's account of the locations; nil for a one-folder game.
  var archiveLocations: [ArchiveLocation]? { locations.isEmpty ? nil : locations.map(ArchiveLocation.init) }

  /// Each location's archive name and folder, as a scan of several locations takes them.
  var scanLocations: [(name: String, path: String)] { locations.map { ($0.name, $0.path) } }
}
