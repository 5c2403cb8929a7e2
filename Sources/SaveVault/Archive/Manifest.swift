import Foundation

/// One entry of an archive's manifest: what a restore checks the extracted content against.
public struct ManifestEntry: Codable, Equatable, Sendable {
  public var path: String
  public var kind: EntryKind
  /// Bytes, for files.
  public var size: Int64?
  /// SHA-256 of the content, for files.
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
  public var format: Int
  public var game: String
  public var device: String
  public var createdMs: Int64
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
    files = entries.reduce(0) { $0 + ($1.kind == .file ? 1 : 0) }
    bytes = entries.reduce(0) { $0 + ($1.size ?? 0) }
  }
}

/// The digest of a save's content: equal digests mean the same paths, kinds, bytes and link
/// targets, whatever the modification times and modes.
enum ContentDigest {
  static func of(_ entries: [ManifestEntry]) -> String {
    let sorted = entries.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    let hash = SHA256()
    for entry in sorted {
      let detail: String
      switch entry.kind {
      case .file: detail = "\(entry.size ?? 0)\u{0}\(entry.sha256 ?? "")"
      case .directory: detail = ""
      case .symlink: detail = entry.target ?? ""
      }
      hash.update(Array("\(entry.kind.rawValue)\u{0}\(entry.path)\u{0}\(detail)\n".utf8))
    }
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
