/// One archive as `list` shows it.
public struct ArchiveListing: Codable, Sendable, Equatable {
  public var name: String
  public var size: Int64
  public var modifiedMs: Int64
  public var device: String?
}

/// `list`'s answer: a game's archives, newest first.
public struct ListReport: Codable, Sendable, Equatable {
  public var game: String
  public var container: String
  public var archives: [ArchiveListing]
}

/// What `prune` kept and deleted.
public struct PruneReport: Codable, Sendable, Equatable {
  public var game: String
  public var container: String
  public var kept: [String]
  public var deleted: [String]
}

/// The prune rule, pure: keep the newest `keep` archives and the newest archive of every
/// device; everything else may go.
public enum PrunePlan {
  /// The names to delete from `archives` (in any order).
  public static func deletions(_ archives: [StoredArchive], keep: Int) -> [StoredArchive] {
    let newestFirst = archives.sorted {
      $0.modifiedMs != $1.modifiedMs ? $0.modifiedMs > $1.modifiedMs : $0.name > $1.name
    }
    var devicesSeen: Set<String> = []
    var doomed: [StoredArchive] = []
    for (position, archive) in newestFirst.enumerated() {
      let device = archive.device ?? "(\(archive.name))"
      let isNewestOfDevice = devicesSeen.insert(device).inserted
      if position < keep || isNewestOfDevice { continue }
      doomed.append(archive)
    }
    return doomed
  }
}

extension Vault {
  /// A game's archives, newest first.
  public func list(_ target: Target) throws -> ListReport {
    let container = try makeContainer(target, paths)
    let archives = try container.archivesNewestFirst(game: target.game)
    return ListReport(
      game: target.game, container: target.containerURL,
      archives: archives.map {
        ArchiveListing(name: $0.name, size: $0.size, modifiedMs: $0.modifiedMs, device: $0.device)
      })
  }

  /// Deletes archives older than the newest `keep`, but never the newest archive of any
  /// device. `keep` must be at least 1.
  public func prune(_ target: Target, keep: Int) throws -> PruneReport {
    guard keep >= 1 else { throw ConfigError.invalid("--keep must be at least 1") }
    let container = try makeContainer(target, paths)
    let held = try lock(target, purpose: "prune")
    defer { withExtendedLifetime(held) {} }
    let archives = try container.archivesNewestFirst(game: target.game)
    let doomed = PrunePlan.deletions(archives, keep: keep)
    var deleted: [String] = []
    for archive in doomed {
      try container.delete(game: target.game, name: archive.name)
      verbose("deleted '\(archive.name)'")
      deleted.append(archive.name)
    }
    let gone = Set(deleted)
    return PruneReport(
      game: target.game, container: target.containerURL,
      kept: archives.map(\.name).filter { !gone.contains($0) }, deleted: deleted)
  }
}
