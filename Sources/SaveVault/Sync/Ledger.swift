import Foundation

/// What this device last agreed with one container about one game: the archive it last
/// uploaded or restored and the fingerprint of the save directory at that moment.
public struct LedgerRecord: Codable, Equatable, Sendable {
  public var game: String
  public var container: String
  /// The archive both sides held at the agreement.
  public var archive: String
  /// The snapshot's metadata digest then (the fast path).
  public var metadataDigest: String
  /// The content digest then (the fallback when metadata differs).
  public var contentDigest: String
  public var files: Int
  public var bytes: Int64
  public var agreedAtMs: Int64
}

/// One file of the agreed snapshot, with its content hash, so that a metadata change can be
/// checked against content without re-hashing unchanged files.
struct LedgerIndexEntry: Equatable {
  var path: String
  var kind: EntryKind
  var size: Int64
  var modifiedNs: Int64
  var mode: UInt32
  /// SHA-256 for files, the target for symlinks, empty for folders.
  var detail: String

  func matches(_ entry: SnapshotEntry) -> Bool {
    entry.kind == kind && entry.size == size && entry.modifiedNs == modifiedNs && entry.mode == mode
  }
}

/// The ledger's files under `$XDG_STATE_HOME/savevault/ledger/`: per game and container, a
/// small JSON record and a line-per-file index. A missing or unreadable ledger is "no
/// ledger", never agreement.
struct LedgerStore {
  var directory: String

  func base(game: String, container: String) -> String {
    directory + "/" + game + "-" + String(SHA256.hex(of: container).prefix(12))
  }

  /// The record for `target`'s game and container (by its canonical location).
  func load(_ target: Target) -> LedgerRecord? { load(game: target.game, container: target.ledgerKey) }

  /// The record for `game` and the container whose ledger key is `container`.
  func load(game: String, container: String) -> LedgerRecord? {
    guard let data = FileManager.default.contents(atPath: base(game: game, container: container) + ".json"),
      let record = try? JSONDecoder().decode(LedgerRecord.self, from: data),
      record.game == game, record.container == container
    else { return nil }
    return record
  }

  /// The agreed snapshot's files by path, or nil if the index is missing or damaged.
  func loadIndex(_ target: Target) -> [String: LedgerIndexEntry]? {
    loadIndex(game: target.game, container: target.ledgerKey)
  }

  /// The index of `game`'s agreement with the container whose ledger key is `container`.
  func loadIndex(game: String, container: String) -> [String: LedgerIndexEntry]? {
    let path = base(game: game, container: container) + ".index"
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    var index: [String: LedgerIndexEntry] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
      guard fields.count == 6, let kind = EntryKind(rawValue: String(fields[0])),
        let size = Int64(fields[1]), let modified = Int64(fields[2]), let mode = UInt32(fields[3])
      else { return nil }
      let path = unescape(fields[5])
      index[path] = LedgerIndexEntry(
        path: path, kind: kind, size: size, modifiedNs: modified, mode: mode, detail: unescape(fields[4]))
    }
    return index
  }

  /// Writes the index, then the record, each atomically (the record names the agreement, so it
  /// goes last).
  func save(_ record: LedgerRecord, index: [LedgerIndexEntry]) throws {
    var text = ""
    for entry in index {
      text +=
        "\(entry.kind.rawValue)\t\(entry.size)\t\(entry.modifiedNs)\t\(entry.mode)\t\(escape(entry.detail))\t\(escape(entry.path))\n"
    }
    let base = base(game: record.game, container: record.container)
    try AtomicFile.write(Data(text.utf8), to: base + ".index")
    try AtomicFile.write(JSONEncoder.stable.encode(record), to: base + ".json")
  }

  private func escape(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 == 0x25 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else {
      return text
    }
    return text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\t", with: "%09")
      .replacingOccurrences(of: "\n", with: "%0A").replacingOccurrences(of: "\r", with: "%0D")
  }

  private func unescape(_ text: Substring) -> String {
    guard text.contains("%") else { return String(text) }
    return text.replacingOccurrences(of: "%09", with: "\t").replacingOccurrences(of: "%0A", with: "\n")
      .replacingOccurrences(of: "%0D", with: "\r").replacingOccurrences(of: "%25", with: "%")
  }
}

extension LedgerIndexEntry {
  /// The index for a snapshot whose content is described by `content` (from a manifest).
  static func entries(snapshot: Snapshot, content: [ManifestEntry]) -> [LedgerIndexEntry] {
    var details: [String: String] = [:]
    for entry in content { details[entry.path] = entry.sha256 ?? entry.target ?? "" }
    return snapshot.entries.map {
      LedgerIndexEntry(
        path: $0.path, kind: $0.kind, size: $0.size, modifiedNs: $0.modifiedNs, mode: $0.mode,
        detail: details[$0.path] ?? "")
    }
  }
}
