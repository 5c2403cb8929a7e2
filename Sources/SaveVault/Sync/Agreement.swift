import Foundation

/// What this device last agreed with one container about one game: the archive it last
/// uploaded or restored and the fingerprint of the save directory at that moment.
public struct Agreement: Codable, Equatable, Sendable {
  public var game: String
  public var container: String
  /// The archive both sides held at the agreement.
  public var archive: String
  /// The scan's metadata digest then (the fast path).
  public var metadataDigest: String
  /// The content digest then (the fallback when metadata differs).
  public var contentDigest: String
  public var files: Int
  public var bytes: Int64
  public var agreedAtMs: Int64
  /// When the scan the index was made from began (this device's clock): a file whose time is
  /// not clearly before it is hashed, never trusted by its metadata (`Fingerprint`). Nil in
  /// records of earlier versions, which `agreedAtMs` stands in for.
  public var scannedAtMs: Int64?
  /// The save directory this agreement is about, as the target named it (absolute); nil in
  /// records written before it was kept.
  public var saveDir: String?
  /// The same folder with every symlink resolved, when it existed.
  public var realSaveDir: String?
  /// The mount point of the filesystem the save folder was on: another one at the same path
  /// later is a drive not mounted, with a folder left where it mounts (or the save missing).
  public var saveMount: String?
  /// The cloud's latest archive at the agreement when it was not `archive`: the player
  /// restored an older archive on purpose (a rollback), so the local save is this device's
  /// choice over that newer archive, and the next sync uploads it. Nil otherwise.
  public var rolledBackFrom: String?
  /// A conflict or a deletion that was seen and left unanswered (nobody to ask, `skip`,
  /// `fail`): it stays one, whatever happens to the local save meanwhile, until the player
  /// settles it. Nil when there is none.
  public var unanswered: UnansweredConflict?
  /// What `archive` descends from (its header's `ancestry`): what this device's next upload
  /// names after it. Nil when unknown (an agreement of an earlier version, or on an archive
  /// whose content was found identical to the save); then the upload reads it from the
  /// archive's header.
  public var ancestry: [String]?
  /// The folders that held the save's locations at the agreement (each location's parent up
  /// to its filesystem's root), as they were: one of them made anew since (the game
  /// uninstalled and installed again, its Proton prefix or Steam user folder deleted) means
  /// the save there is a new one, not the agreed save changed. Nil in agreements of earlier
  /// versions.
  public var enclosingFolders: [FolderIdentity]?
  /// The agreed archive's locations, as this device keeps them (nil for a one-folder game, and
  /// in records written before they were kept).
  public var archiveLocations: [AgreedLocation]?

  /// The record's keys on disk: a question left unanswered is kept under `unresolved`, as
  /// earlier versions wrote it.
  private enum CodingKeys: String, CodingKey {
    case game, container, archive, metadataDigest, contentDigest, files, bytes, agreedAtMs, scannedAtMs,
      saveDir,
      realSaveDir, saveMount, rolledBackFrom, ancestry, enclosingFolders, archiveLocations
    case unanswered = "unresolved"
  }

  public init(
    game: String, container: String, archive: String, metadataDigest: String, contentDigest: String,
    files: Int, bytes: Int64, agreedAtMs: Int64, scannedAtMs: Int64? = nil, saveDir: String? = nil,
    realSaveDir: String? = nil,
    saveMount: String? = nil, rolledBackFrom: String? = nil, unanswered: UnansweredConflict? = nil,
    ancestry: [String]? = nil, enclosingFolders: [FolderIdentity]? = nil,
    archiveLocations: [AgreedLocation]? = nil
  ) {
    self.game = game
    self.container = container
    self.archive = archive
    self.metadataDigest = metadataDigest
    self.contentDigest = contentDigest
    self.files = files
    self.bytes = bytes
    self.agreedAtMs = agreedAtMs
    self.scannedAtMs = scannedAtMs
    self.saveDir = saveDir
    self.realSaveDir = realSaveDir
    self.saveMount = saveMount
    self.rolledBackFrom = rolledBackFrom
    self.unanswered = unanswered
    self.ancestry = ancestry
    self.enclosingFolders = enclosingFolders
    self.archiveLocations = archiveLocations
  }

  /// The moment the index's metadata was read, or at the latest recorded.
  var indexedAtMs: Int64 { scannedAtMs ?? agreedAtMs }

  /// The archive the cloud's latest must be for the cloud to count as unchanged since the
  /// agreement: the newer one a rollback chose over, else the agreed archive.
  var cloudLatestWhenAgreed: String { rolledBackFrom ?? archive }

  /// The time of the newest archive this agreement knows of (the agreed one, or the newer one a
  /// rollback chose over): what this device's later archives are named after.
  var newestKnownMs: Int64? {
    [archive, rolledBackFrom].compactMap { $0.flatMap(ArchiveName.init(parsing:))?.createdMs }.max()
  }

  /// Whether this agreement is about the save directory `saveDir` (whose real path is
  /// `realSaveDir`, if it exists): the same path as written, or the same real folder. A record
  /// that does not say is taken to be.
  func isAbout(saveDir: String, realSaveDir: String?) -> Bool {
    guard let recorded = self.saveDir else { return true }
    if recorded == saveDir { return true }
    guard let real = realSaveDir, let recordedReal = self.realSaveDir else { return false }
    return real == recordedReal
  }

  /// Whether the save folder at this agreement's path is on another filesystem now than it was
  /// (`mount` is the mount point of the filesystem there now, nil when unknown): its drive is
  /// not mounted, and what is there is a folder left where it mounts.
  func isOnOtherDrive(mount: String?) -> Bool {
    guard let saveMount, let mount else { return false }
    return mount != saveMount
  }
}

/// A conflict or a local deletion that a sync saw and nobody settled.
public struct UnansweredConflict: Codable, Equatable, Sendable {
  public enum Kind: String, Codable, Sendable {
    /// Both the local save and the cloud changed since the agreement.
    case conflict
    /// The local save was missing or empty (deleted, or its drive not mounted) while the cloud
    /// still held the agreed archive.
    case deletion
  }
  public var kind: Kind
  /// The cloud's latest archive when it was seen.
  public var cloudLatest: String
  public var seenAtMs: Int64
}

/// One file of the agreed scan, with its content hash, so that a metadata change can be
/// checked against content without re-hashing unchanged files.
struct AgreedFile: Equatable {
  var path: String
  var kind: EntryKind
  var size: Int64
  var modifiedNs: Int64
  var mode: UInt32
  /// Status change time in ns, and inode; nil in an index written before they were recorded.
  var changedNs: Int64?
  var inode: UInt64?
  /// SHA-256 for files, the target for symlinks, empty for folders.
  var detail: String

  /// Whether `entry` is, by its metadata, the file this entry describes. Never for an entry
  /// without change time and inode: its file is hashed again.
  func matches(_ entry: SaveScanEntry) -> Bool {
    entry.kind == kind && entry.size == size && entry.modifiedNs == modifiedNs && entry.mode == mode
      && entry.changedNs == changedNs && entry.inode == inode
  }
}

/// The agreement's files under `$XDG_STATE_HOME/savevault/ledger/`: per game and container, a
/// small JSON record and a line-per-file index. A missing or unreadable agreement is no
/// agreement, never a match.
struct AgreementStore {
  var directory: String

  func base(game: String, container: String) -> String {
    directory + "/" + game + "-" + String(SHA256.hex(of: container).prefix(12))
  }

  /// The agreement about `game` with the container whose key is `key`; `folder` is the
  /// container's path when it is a folder. A folder's agreement kept under another path to the
  /// same folder (a symlink to it, a bind mount: the same device and inode) is moved to this
  /// key first, so that another way to the container is never a new device, and one agreement
  /// stays one record.
  func load(game: String, container key: String, folder: String?) -> Agreement? {
    if let record = load(game: game, container: key) { return record }
    guard let folder, let identity = Platform.fileIdentity(folder) else { return nil }
    let other = records(game: game).first { record in
      record.container != key && record.container.hasPrefix("file://")
        && Platform.fileIdentity(String(record.container.dropFirst("file://".count))) == identity
    }
    guard var record = other else { return nil }
    let former = record.container
    let text = indexText(game: record.game, container: former) ?? ""
    record.container = key
    do {
      try putBack(record, indexText: text)
    } catch {
      return nil
    }
    remove(game: record.game, container: former)
    return record
  }

  /// Every record of every game but those of `skipping` (known from elsewhere: reading each
  /// record costs, and `status` runs before every game launch).
  func allRecords(skipping: Set<String> = []) -> [Agreement] {
    ((try? Platform.directoryNames(directory)) ?? []).sorted().compactMap { name -> Agreement? in
      // `<game>-<12 hex>.json`: the game is in the name.
      let suffix = 1 + 12 + ".json".utf8.count
      guard name.hasSuffix(".json"), name.utf8.count > suffix,
        !skipping.contains(String(name.utf8.dropLast(suffix)) ?? ""),
        let data = FileManager.default.contents(atPath: directory + "/" + name)
      else { return nil }
      return try? JSONDecoder().decode(Agreement.self, from: data)
    }
  }

  /// Every record of `game`, whatever its container.
  func records(game: String) -> [Agreement] {
    let names = (try? Platform.directoryNames(directory)) ?? []
    let prefix = game + "-"
    return names.compactMap { name -> Agreement? in
      // `<game>-<12 hex>.json`: another game whose name starts with this one's has a longer stem.
      guard name.hasPrefix(prefix), name.hasSuffix(".json"),
        name.utf8.count == prefix.utf8.count + 12 + ".json".utf8.count,
        let data = FileManager.default.contents(atPath: directory + "/" + name),
        let record = try? JSONDecoder().decode(Agreement.self, from: data), record.game == game
      else { return nil }
      return record
    }
  }

  /// The record for `game` and the container whose agreement key is `container`.
  func load(game: String, container: String) -> Agreement? {
    guard let data = FileManager.default.contents(atPath: base(game: game, container: container) + ".json"),
      let record = try? JSONDecoder().decode(Agreement.self, from: data),
      record.game == game, record.container == container
    else { return nil }
    return record
  }

  /// The agreed scan's files by path, or nil if the index is missing or damaged. Each line
  /// is `kind TAB size TAB mtime TAB mode TAB ctime TAB inode TAB detail TAB path`; a line
  /// without ctime and inode (six fields, as written before they were recorded) loads with
  /// them unknown.
  /// The index of `game`'s agreement with the container whose agreement key is `container`.
  func loadIndex(game: String, container: String) -> [String: AgreedFile]? {
    let path = base(game: game, container: container) + ".index"
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    var index: [String: AgreedFile] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
      guard fields.count == 6 || fields.count == 8, let kind = EntryKind(rawValue: String(fields[0])),
        let size = Int64(fields[1]), let modified = Int64(fields[2]), let mode = UInt32(fields[3])
      else { return nil }
      var entry = AgreedFile(
        path: unescape(fields[fields.count - 1]), kind: kind, size: size, modifiedNs: modified, mode: mode,
        detail: unescape(fields[fields.count - 2]))
      if fields.count == 8 {
        guard let changed = Int64(fields[4]), let inode = UInt64(fields[5]) else { return nil }
        (entry.changedNs, entry.inode) = (changed, inode)
      }
      index[entry.path] = entry
    }
    return index
  }

  /// Writes the index, then the record, each atomically (the record names the agreement, so it
  /// is renamed last).
  func save(_ record: Agreement, index: [AgreedFile]) throws {
    var text: [UInt8] = []
    text.reserveCapacity(index.count * 128)
    for entry in index {
      text.append(contentsOf: entry.kind.rawValue.utf8)
      text.append(0x09)
      appendDecimal(entry.size, to: &text)
      text.append(0x09)
      appendDecimal(entry.modifiedNs, to: &text)
      text.append(0x09)
      appendDecimal(Int64(entry.mode), to: &text)
      text.append(0x09)
      if let changedNs = entry.changedNs, let inode = entry.inode {
        appendDecimal(changedNs, to: &text)
        text.append(0x09)
        text.append(contentsOf: String(inode).utf8)
        text.append(0x09)
      }
      Self.appendEscaped(entry.detail, to: &text)
      text.append(0x09)
      Self.appendEscaped(entry.path, to: &text)
      text.append(0x0A)
    }
    let base = base(game: record.game, container: record.container)
    // Both written before either is flushed (one journal commit for the two), the record
    // renamed in last.
    try AtomicFile.write([(Data(text), base + ".index"), (JSONEncoder.stable.encode(record), base + ".json")])
  }

  /// Rewrites the record alone, keeping the index (for notes about the same agreement).
  func saveRecord(_ record: Agreement) throws {
    try AtomicFile.write(
      JSONEncoder.stable.encode(record), to: base(game: record.game, container: record.container) + ".json")
  }

  private static let upperHexDigits = Array("0123456789ABCDEF".utf8)

  /// Appends `text` with `%`, tab, LF and CR as `%25`, `%09`, `%0A`, `%0D`.
  static func appendEscaped(_ text: String, to bytes: inout [UInt8]) {
    var text = text
    text.withUTF8 { utf8 in
      var start = 0
      for index in 0..<utf8.count {
        let byte = utf8[index]
        guard byte == 0x25 || byte == 0x09 || byte == 0x0A || byte == 0x0D else { continue }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
        bytes.append(UInt8(ascii: "%"))
        bytes.append(upperHexDigits[Int(byte >> 4)])
        bytes.append(upperHexDigits[Int(byte & 0x0F)])
        start = index + 1
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
    }
  }

  private func unescape(_ text: Substring) -> String {
    guard text.contains("%") else { return String(text) }
    return text.replacingOccurrences(of: "%09", with: "\t").replacingOccurrences(of: "%0A", with: "\n")
      .replacingOccurrences(of: "%0D", with: "\r").replacingOccurrences(of: "%25", with: "%")
  }
}

extension AgreedFile {
  /// The index for a scan whose content is described by `content` (from a manifest).
  static func entries(scan: SaveScan, content: [ManifestEntry]) -> [AgreedFile] {
    func entry(_ item: SaveScanEntry, _ detail: String?) -> AgreedFile {
      AgreedFile(
        path: item.path, kind: item.kind, size: item.size, modifiedNs: item.modifiedNs, mode: item.mode,
        changedNs: item.changedNs, inode: item.inode, detail: detail ?? "")
    }
    // A manifest packed from this scan lists the same paths in the same order.
    if content.count == scan.entries.count,
      zip(scan.entries, content).allSatisfy({ $0.path == $1.path })
    {
      return zip(scan.entries, content).map { entry($0, $1.sha256 ?? $1.target) }
    }
    var details: [String: String] = [:]
    for entry in content { details[entry.path] = entry.sha256 ?? entry.target ?? "" }
    return scan.entries.map { entry($0, details[$0.path]) }
  }
}
