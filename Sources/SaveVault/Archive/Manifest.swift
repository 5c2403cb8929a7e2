import Foundation

/// One entry of an archive's manifest: what a restore checks the extracted content against.
public struct ManifestEntry: Codable, Equatable, Sendable {
  public var path: String
  public var kind: EntryKind
  /// Bytes, for files.
  public var size: Int64?
  /// The content's hash, for files (`FileDigest`): the SHA-256 of its bytes, or for a file of
  /// 64 MiB or more in an archive of format 2 or later, its hash by chunks.
  public var sha256: String?
  /// The target, for symlinks.
  public var target: String?
  /// Permission bits as stored in the entry's header.
  public var mode: UInt32?
  /// Modification time in ns as stored in the entry's header.
  public var modifiedNs: Int64?

  public init(
    path: String, kind: EntryKind, size: Int64? = nil, sha256: String? = nil, target: String? = nil
  ) {
    self.path = path
    self.kind = kind
    self.size = size
    self.sha256 = sha256
    self.target = target
  }
}

/// The header SaveVault writes as an archive's first entry, `.savevault/header.json`. Its
/// presence says the manifest must follow as the last entry; an archive that has the header
/// but no manifest is truncated.
public struct ArchiveHeader: Codable, Equatable, Sendable {
  public static let path = ".savevault/header.json"
  /// The format SaveVault writes. Format 1 lists every file in the manifest by its bytes'
  /// SHA-256; format 2 (`chunkedFormat`) lists a file of 64 MiB or more by its hash by chunks
  /// (`FileDigest`), which skips its runs of zeros. It reads these formats and no later one.
  public static let currentFormat = 2
  /// The first format whose manifest lists large files by their hash by chunks.
  static let chunkedFormat = 2
  public var format: Int
  /// The oldest format a reader must read to read this archive, when it is not `format`: a
  /// writer of a newer format whose archives older readers still read right writes the format
  /// they read. Absent in every archive SaveVault wrote so far (the reader needed is `format`).
  public var minReader: Int?
  public var game: String
  public var device: String
  public var createdMs: Int64
  /// For a game of several locations: each location's top-level folder, portable form and
  /// folder where the archive was made. Absent for a one-folder save, whose content is at the top.
  public var locations: [ArchiveLocation]?
  /// The archives this one's save descends from, newest first, at most `ancestryLimit`: the
  /// archive the device that made it had agreed on (and the cloud's newer latest a rollback
  /// chose over it), the cloud's latest the player chose to upload over, and what those
  /// descend from in turn. A device that agreed on an archive this list lacks sees a save made
  /// apart from its own (a conflict), however the two were listed. Absent in archives of other
  /// tools and of versions before it.
  public var ancestry: [String]?
  /// What versions before `ancestry` wrote instead: the archives their device had listed
  /// before the upload (a device that merely listed another's archive named it too). Read
  /// only where `ancestry` is absent; never written.
  public var madeOver: [String]?

  /// The format a reader must read to read this archive: `minReader`, else `format`. A field
  /// of the header that this SaveVault does not know is ignored; one that a reader must
  /// understand comes with a format (or `minReader`) above those it reads.
  public var readerFormat: Int { minReader ?? format }

  /// Why this SaveVault cannot read the archive (it reads formats up to `currentFormat`); nil
  /// when it can.
  public var newerFormatRefusal: String? {
    guard readerFormat > Self.currentFormat else { return nil }
    return "it was made by a newer SaveVault (format \(format)): update SaveVault to read it"
  }

  /// Whether this is an archive of `game` as the container spells the game: byte for byte, as
  /// the game's folder is named (`<root>/<game>/`). `celeste` and `Celeste` are two games,
  /// which a container that ignores letter case (FAT, exFAT, a Samba share, macOS) keeps in
  /// one folder.
  public func isOf(game: String) -> Bool { self.game.utf8.elementsEqual(game.utf8) }

  /// Why this archive is refused as a save of `game`, nil when it is one of `game` (`isOf`).
  public func refusal(asSaveOf game: String) -> String? {
    guard !isOf(game: game) else { return nil }
    return
      "its header says it is a save of the game '\(self.game)', not of '\(game)' (it was copied into this game's folder, or the container ignores letter case and keeps both games in one folder): restore it as '\(self.game)', and give two games names that differ by more than letter case"
  }

  /// What this archive descends from, as far as it says: its `ancestry`, or in an archive of
  /// an earlier version its `madeOver` (what that version took it to descend from).
  public var lineage: [String]? { ancestry ?? madeOver }

  /// How many names `ancestry` holds at most: the newest ones.
  public static let ancestryLimit = 64

  public init(
    format: Int, game: String, device: String, createdMs: Int64, locations: [ArchiveLocation]? = nil,
    ancestry: [String]? = nil
  ) {
    self.format = format
    self.game = game
    self.device = device
    self.createdMs = createdMs
    self.locations = locations
    self.ancestry = ancestry
  }

  /// Whether this archive's save descends from another archive, as far as its header tells.
  public enum Descent: Equatable, Sendable {
    case descends
    case apart
    /// Its `ancestry` is full and names only later archives: whether the oldest of them,
    /// `oldest`, descends from it is the question.
    case beyond(oldest: String)
  }

  /// Whether this archive's save descends from `archive`: its `ancestry` names it (or, full,
  /// may reach it beyond its oldest name). For an archive of an earlier version, its
  /// `madeOver` names it or a later archive; one that says neither is taken to.
  public func descent(from archive: String) -> Descent {
    let ms = ArchiveName(parsing: archive)?.createdMs
    let isLater = { (name: String) in
      guard let ms, let listed = ArchiveName(parsing: name)?.createdMs else { return false }
      return listed > ms
    }
    if let ancestry {
      if ancestry.contains(archive) { return .descends }
      guard ancestry.count >= Self.ancestryLimit, ancestry.allSatisfy(isLater), let oldest = ancestry.last
      else {
        return .apart
      }
      return .beyond(oldest: oldest)
    }
    guard let madeOver else { return .descends }
    return madeOver.contains(archive) || madeOver.contains(where: isLater) ? .descends : .apart
  }
}

extension ArchiveHeader {
  /// The ancestry of an archive whose parents are `parents` (each with its own ancestry, nil
  /// when unknown): every name once, newest first, at most `ancestryLimit`.
  public static func ancestry(parents: [(name: String, ancestry: [String]?)]) -> [String] {
    var seen = Set<String>()
    let names = parents.flatMap { [$0.name] + ($0.ancestry ?? []) }.filter { seen.insert($0).inserted }
    let ordered = names.enumerated().sorted { a, b in
      let (x, y) = (ArchiveName(parsing: a.element)?.createdMs, ArchiveName(parsing: b.element)?.createdMs)
      guard let x, let y, x != y else { return a.offset < b.offset }
      return x > y
    }
    return Array(ordered.map(\.element).prefix(ancestryLimit))
  }
}

/// What an archive of several locations says about each: its top-level folder, its portable
/// form (where it is on any machine), and the folder it was on the device that made it.
public struct ArchiveLocation: Codable, Sendable, Equatable {
  public var name: String
  public var portable: PortableLocation
  /// The folder, with the pattern after it for a location of files.
  public var path: String
  /// For a location of some files of its folder: which (its folder is `path` without them).
  public var files: FilePattern?

  public init(name: String, portable: PortableLocation, path: String, files: FilePattern? = nil) {
    self.name = name
    self.portable = portable
    self.path = path
    self.files = files
  }

  /// Where the folder is on any machine: the portable form without the files' pattern.
  public var folderPortable: PortableLocation {
    guard let files else { return portable }
    var parts = portable.template.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(min(files.pattern.split(separator: "/").count, max(parts.count - 1, 0)))
    return PortableLocation(
      template: parts.joined(separator: "/"), store: portable.store, storeGameID: portable.storeGameID)
  }
}

/// The manifest SaveVault writes as an archive's last entry, `.savevault/manifest.json`:
/// every entry with its size and content hash, so that a restore can verify every byte.
/// Plain `tar -xf` simply extracts it as a file under `.savevault/`.
public struct Manifest: Codable, Equatable, Sendable {
  public static let path = ".savevault/manifest.json"
  public var format: Int
  public var game: String
  public var device: String
  public var createdMs: Int64
  /// The digest of the content (paths, kinds, sizes, hashes, link targets; not times).
  public var contentDigest: String
  public var files: Int
  public var bytes: Int64
  public var entries: [ManifestEntry]

  init(header: ArchiveHeader, entries: [ManifestEntry]) {
    format = header.format
    game = header.game
    device = header.device
    createdMs = header.createdMs
    self.entries = entries
    contentDigest = ContentDigest.of(entries)
    // Wrapping sums: a hostile manifest's sizes must give a refusal, never a trap.
    files = entries.reduce(0) { $0 &+ ($1.kind == .file ? 1 : 0) }
    bytes = entries.reduce(0) { $0 &+ ($1.size ?? 0) }
  }
}

/// The digest of a save's content: equal digests mean the same paths, kinds, bytes and link
/// targets, whatever the modification times and modes.
enum ContentDigest {
  /// One line per entry in path-byte order: `kind NUL path NUL detail LF`, where the detail is
  /// `size NUL sha256` for files, the target for symlinks, empty for folders.
  static func of(_ entries: [ManifestEntry]) -> String {
    // Entries usually come in path-byte order already (a scan's order).
    let sorted =
      zip(entries, entries.dropFirst()).allSatisfy { pathPrecedes($0.path, $1.path) }
      ? entries : entries.sorted { pathPrecedes($0.path, $1.path) }
    let hash = SHA256()
    var line: [UInt8] = []
    line.reserveCapacity(4096)
    for entry in sorted {
      line.append(contentsOf: entry.kind.rawValue.utf8)
      line.append(0)
      line.append(contentsOf: entry.path.utf8)
      line.append(0)
      switch entry.kind {
      case .file:
        appendDecimal(entry.size ?? 0, to: &line)
        line.append(0)
        line.append(contentsOf: (entry.sha256 ?? "").utf8)
      case .directory: break
      case .symlink: line.append(contentsOf: (entry.target ?? "").utf8)
      }
      line.append(0x0A)
      if line.count >= 4096 {
        hash.update(line)
        line.removeAll(keepingCapacity: true)
      }
    }
    hash.update(line)
    return hash.finalize()
  }
}

extension JSONEncoder {
  /// The encoder for everything SaveVault writes: sorted keys, so output is stable.
  static var stable: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }
}
