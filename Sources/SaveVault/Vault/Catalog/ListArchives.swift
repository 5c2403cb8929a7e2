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
  /// `packsave-*` files whose names SaveVault did not make (no time or device in them): never
  /// the latest, never pruned; `restore --archive NAME` and `verify` still read them.
  public var unrecognized: [ArchiveListing]
}

/// What `prune` kept and deleted.
public struct PruneReport: Codable, Sendable, Equatable {
  public var game: String
  public var container: String
  public var kept: [String]
  public var deleted: [String]
  /// With `--keep-pre-restore`: the pre-restore copies kept and deleted on this device.
  public var preRestoreKept: [String]?
  public var preRestoreDeleted: [String]?
}

/// The prune rule, pure but for `holdsSave`: keep the newest `keep` archives and the newest
/// archive of every device; everything else may go. But never leave only archives of an empty
/// save (a deleted save uploaded with `--force`) while one that holds a save is deleted: the
/// newest such archive is kept too.
public enum PrunePlan {
  /// The archives to delete from `archives`, newest first. `holdsSave` is asked about kept
  /// archives, newest first, until one holds a save, and only then about doomed ones.
  public static func deletions(
    _ archives: [StoredArchive], keep: Int, holdsSave: (StoredArchive) throws -> Bool
  ) rethrows -> [StoredArchive] {
    let newestFirst = archives.sorted {
      $0.modifiedMs != $1.modifiedMs ? $0.modifiedMs > $1.modifiedMs : $0.name > $1.name
    }
    var devicesSeen: Set<String> = []
    var doomed: [StoredArchive] = []
    var kept: [StoredArchive] = []
    for (position, archive) in newestFirst.enumerated() {
      let device = archive.device ?? "(\(archive.name))"
      let isNewestOfDevice = devicesSeen.insert(device).inserted
      if position < keep || isNewestOfDevice {
        kept.append(archive)
      } else {
        doomed.append(archive)
      }
    }
    guard !doomed.isEmpty, try !kept.contains(where: holdsSave),
      let rescued = try doomed.firstIndex(where: holdsSave)
    else { return doomed }
    doomed.remove(at: rescued)
    return doomed
  }

  /// The deletions when every archive holds a save.
  public static func deletions(_ archives: [StoredArchive], keep: Int) -> [StoredArchive] {
    deletions(archives, keep: keep) { _ in true }
  }
}

extension Vault {
  /// A game's archives, newest first.
  public func list(_ target: Target) throws -> ListReport {
    let container = try makeContainer(target, paths)
    let (archives, unrecognized) = try container.listSorted(game: target.game)
    func listing(_ archive: StoredArchive) -> ArchiveListing {
      ArchiveListing(
        name: archive.name, size: archive.size, modifiedMs: archive.modifiedMs, device: archive.device)
    }
    return ListReport(
      game: target.game, container: target.containerURL, archives: archives.map(listing),
      unrecognized: unrecognized.map(listing))
  }

  /// Deletes archives older than the newest `keep`, but never the newest archive of any
  /// device (nor the last that holds a save: `PrunePlan`); `keep` must be at least 1. With
  /// `keepPreRestore`, also this device's pre-restore copies but the newest that many
  /// (`prunePreRestore`). Nil for either leaves its side alone.
  public func prune(_ target: Target, keep: Int?, keepPreRestore: Int? = nil) throws -> PruneReport {
    var report = PruneReport(game: target.game, container: target.containerURL, kept: [], deleted: [])
    if let keepPreRestore {
      (report.preRestoreDeleted, report.preRestoreKept) = try prunePreRestore(target, keep: keepPreRestore)
    }
    guard let keep else { return report }
    guard keep >= 1 else { throw ConfigError.invalid("the number of archives to keep must be at least 1") }
    let container = try makeContainer(target, paths)
    let held = try lock(target, purpose: "prune")
    defer { withExtendedLifetime(held) {} }
    let archives = try container.archivesNewestFirst(game: target.game)
    let doomed = try PrunePlan.deletions(archives, keep: keep) { archive in
      try container.read(game: target.game, name: archive.name) { fd in
        ArchiveContents.holdsSave(fd: fd, archiveName: archive.name)
      }
    }
    var deleted: [String] = []
    for archive in doomed {
      try container.delete(game: target.game, name: archive.name)
      verbose("deleted '\(archive.name)'")
      deleted.append(archive.name)
    }
    let gone = Set(deleted)
    report.kept = archives.map(\.name).filter { !gone.contains($0) }
    report.deleted = deleted
    return report
  }
}
