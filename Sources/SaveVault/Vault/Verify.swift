/// Which archives `verify` reads.
public enum VerifySelection: Sendable, Equatable {
  case latest
  case named(String)
  case all
}

/// One archive's verification.
public struct ArchiveCheck: Codable, Sendable, Equatable {
  public var name: String
  /// Whether every structural check passed and, with a manifest, every byte matched it.
  public var ok: Bool
  /// Whether a manifest vouched for the content (false for a plain tar from another tool).
  public var verified: Bool
  public var files: Int
  public var bytes: Int64
  /// Why it failed.
  public var error: String?
}

/// `verify`'s answer.
public struct VerifyReport: Codable, Sendable, Equatable {
  public var game: String
  public var container: String
  public var archives: [ArchiveCheck]

  /// The archives that failed.
  public var failures: [ArchiveCheck] { archives.filter { !$0.ok } }
}

extension Vault {
  /// Reads archives from the container and runs every check a restore runs (structure, entry
  /// rules, limits, manifest hashes) without writing anything anywhere, like
  /// `restic check --read-data`. A refused archive is reported, not thrown; the container's
  /// own failures throw.
  public func verify(_ target: Target, selection: VerifySelection) throws -> VerifyReport {
    let container = try makeContainer(target, paths)
    let (archives, unrecognized) = try container.listSorted(game: target.game)
    let chosen: [StoredArchive]
    switch selection {
    case .latest:
      guard let latest = archives.first else {
        throw VaultError.noBackups(game: target.game, container: target.containerURL)
      }
      chosen = [latest]
    case .named(let name):
      guard let named = (archives + unrecognized).first(where: { $0.name == name }) else {
        throw ContainerError.notFound(container: target.containerURL, name: name)
      }
      chosen = [named]
    case .all:
      chosen = archives + unrecognized
    }
    var checks: [ArchiveCheck] = []
    for archive in chosen {
      do {
        let extraction = try container.read(game: target.game, name: archive.name) { fd in
          try Extractor(limits: target.limits, game: target.game).extract(
            fd: fd, archiveName: archive.name, into: nil)
        }
        let files = extraction.entries.filter { $0.kind == .file }
        checks.append(
          ArchiveCheck(
            name: archive.name, ok: true, verified: extraction.isVerified, files: files.count,
            bytes: files.reduce(0) { $0 + ($1.size ?? 0) }))
      } catch let error as ArchiveError {
        checks.append(
          ArchiveCheck(name: archive.name, ok: false, verified: false, files: 0, bytes: 0, error: "\(error)"))
      }
      verbose("checked '\(archive.name)': \(checks.last?.ok == true ? "ok" : "FAILED")")
    }
    return VerifyReport(game: target.game, container: target.containerURL, archives: checks)
  }

  /// The content digest of an archive of `game`, after every check a restore runs.
  func contentDigest(fd: Int32, archiveName: String, game: String, limits: ExtractionLimits) throws -> String
  {
    ContentDigest.of(
      try Extractor(limits: limits, game: game).extract(fd: fd, archiveName: archiveName, into: nil).entries)
  }
}
