import Foundation

/// A game's backups as a container lists them, each name parsed once: SaveVault's names
/// (newest first, by SaveVault's time, then by name) and the rest (a stray `packsave-old.tar`
/// put there by hand or by another tool), which can be listed, verified and restored by name
/// but are never latest. Pure.
public struct ArchiveCatalog: Sendable, Equatable {
  /// The archives whose names SaveVault made, newest first. Only these are ever a game's
  /// latest, a device's, or weighed by a sync or prune.
  public var recognized: [StoredArchive]
  /// The other `packsave-*` files, newest first.
  public var unrecognized: [StoredArchive]

  /// The catalog of the backups among `files` (`packsave-*` with an ending of
  /// `ArchiveEncoding`; containers list every file, this is where the others are left out).
  public init(_ files: [ContainerFile]) {
    var recognized: [StoredArchive] = []
    var unrecognized: [StoredArchive] = []
    for file in files where ArchiveName.isBackupName(file.name) {
      if let parsed = ArchiveName(parsing: file.name) {
        recognized.append(StoredArchive(file, parsed: parsed))
      } else {
        unrecognized.append(StoredArchive(file, parsed: nil))
      }
    }
    func newestFirst(_ a: StoredArchive, _ b: StoredArchive) -> Bool {
      a.modifiedMs != b.modifiedMs ? a.modifiedMs > b.modifiedMs : a.name > b.name
    }
    self.recognized = recognized.sorted(by: newestFirst)
    self.unrecognized = unrecognized.sorted(by: newestFirst)
  }

  /// Every archive, SaveVault's first.
  public var all: [StoredArchive] { recognized + unrecognized }
}

extension Container {
  /// The catalog of `game`'s backups.
  public func catalog(game: String) throws -> ArchiveCatalog {
    ArchiveCatalog(try list(game: game))
  }

  /// The backups of `game` whose names SaveVault made, newest first (`ArchiveCatalog`).
  public func archivesNewestFirst(game: String) throws -> [StoredArchive] {
    try catalog(game: game).recognized
  }

  /// Every `packsave-*` file of `game`, split as `ArchiveCatalog` does.
  public func listSorted(game: String) throws -> (recognized: [StoredArchive], unrecognized: [StoredArchive])
  {
    let catalog = try catalog(game: game)
    return (catalog.recognized, catalog.unrecognized)
  }

  /// The archive `upload` stored, as the catalog would list it.
  func archive(_ file: ContainerFile) -> StoredArchive {
    StoredArchive(file, parsed: ArchiveName(parsing: file.name))
  }
}
