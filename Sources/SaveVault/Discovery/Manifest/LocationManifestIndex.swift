#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The manifest as a compact file of records and sorted key tables, so that a later process
/// finds a game by binary search in a few milliseconds instead of parsing 17 MB of YAML.
///
/// It is read from disk and so never trusted: the magic, a checksum of the whole file and
/// every table's bounds are checked when it is opened, and a file that fails is not used
/// (`open` returns nil and the caller rebuilds it). The stamp says which manifest it was made
/// from; an index with another stamp is stale.
public final class LocationManifestIndex: LocationManifestLookup, Sendable {
  /// How many games (entries, aliases included) it holds.
  public let gameCount: Int
  /// What the index was made from (the caller's description of the manifest's copy).
  public let stamp: String
  private let storage: Storage
  private var bytes: UnsafeRawBufferPointer { storage.bytes }
  private let recordsStart: Int
  private let recordOffsets: Int
  private let numberTables: [(start: Int, count: Int)]
  private let blobStart: Int
  private let blobLength: Int
  private let stringTables: [(start: Int, count: Int)]

  /// Aliases are followed at most this many times (Ludusavi's bound); a loop stops there too.
  static let aliasHops = 100
  private static let entrySize = 12

  /// The index in `bytes`; nil when they are not a whole, undamaged index.
  public convenience init?(bytes: [UInt8]) {
    self.init(storage: Storage(copying: bytes))
  }

  /// The index in the file at `path`, mapped rather than read (a later lookup touches only
  /// the pages it needs beyond the checksum's pass); nil when it is missing, or not a whole,
  /// undamaged index.
  public convenience init?(mapping path: String) {
    guard let storage = Storage(mapping: path) else { return nil }
    self.init(storage: storage)
  }

  private init?(storage: Storage) {
    typealias Format = LocationManifestIndexFormat
    let bytes = storage.bytes
    guard bytes.count >= 16, Array(bytes[0..<8]) == Format.magic else { return nil }
    var reader = Format.Reader(bytes: bytes, offset: 8)
    guard let checksum = reader.u64(), checksum == Format.checksum(bytes, from: 16),
      let stamp = reader.string(), let gameCount = reader.count(itemSize: 4),
      let recordsLength = reader.count(itemSize: 1)
    else { return nil }
    recordsStart = reader.offset
    reader.offset += recordsLength
    guard reader.count(itemSize: 4) == gameCount else { return nil }
    recordOffsets = reader.offset
    reader.offset += gameCount * 4
    var numberTables: [(start: Int, count: Int)] = []
    for _ in 0..<2 {
      guard let count = reader.count(itemSize: Self.entrySize) else { return nil }
      numberTables.append((reader.offset, count))
      reader.offset += count * Self.entrySize
    }
    guard let blobLength = reader.count(itemSize: 1) else { return nil }
    blobStart = reader.offset
    reader.offset += blobLength
    var stringTables: [(start: Int, count: Int)] = []
    for _ in 0..<Format.stringTables {
      guard let count = reader.count(itemSize: Self.entrySize) else { return nil }
      stringTables.append((reader.offset, count))
      reader.offset += count * Self.entrySize
    }
    guard reader.offset == bytes.count else { return nil }
    self.gameCount = gameCount
    self.stamp = stamp
    self.storage = storage
    self.blobLength = blobLength
    self.numberTables = numberTables
    self.stringTables = stringTables
    // Every record and string reference in bounds, so lookups need not check them again.
    for index in 0..<gameCount where Int(u32(at: recordOffsets + index * 4)) >= recordsLength { return nil }
    for table in numberTables + stringTables {
      for entry in 0..<table.count where Int(u32(at: table.start + entry * Self.entrySize + 8)) >= gameCount {
        return nil
      }
    }
    for table in stringTables {
      for entry in 0..<table.count {
        let offset = Int(u32(at: table.start + entry * Self.entrySize))
        let length = Int(u32(at: table.start + entry * Self.entrySize + 4))
        guard offset <= blobLength, length <= blobLength - offset else { return nil }
      }
    }
  }

  // MARK: Lookups

  public func game(steamAppID: UInt32) -> LocationManifestGame? {
    numberMatch(table: 0, key: UInt64(steamAppID)).flatMap(resolved)
  }

  public func game(gogID: UInt64) -> LocationManifestGame? {
    numberMatch(table: 1, key: gogID).flatMap(resolved)
  }

  public func game(lutrisSlug: String) -> LocationManifestGame? {
    stringMatches(table: LocationManifestIndexFormat.lutrisTable, key: lutrisSlug).first.flatMap(resolved)
  }

  public func game(title: String) -> LocationManifestGame? {
    let record =
      stringMatches(table: LocationManifestIndexFormat.titleTable, key: title).first
      ?? stringMatches(
        table: LocationManifestIndexFormat.normalizedTitleTable, key: LocationManifestTitle.normalized(title)
      )
      .first
    return record.flatMap(resolved)
  }

  public func games(installDir folder: String) -> [LocationManifestGame] {
    stringMatches(
      table: LocationManifestIndexFormat.installDirTable, key: LocationManifestTitle.normalized(folder)
    )
    .compactMap(record)
  }

  /// Every game, in the manifest's order (aliases as they are).
  public var allGames: [LocationManifestGame] { (0..<gameCount).compactMap(record) }

  /// The game a record holds, its aliases followed: the entry named last, or where a loop or
  /// `aliasHops` stopped.
  private func resolved(_ index: Int) -> LocationManifestGame? {
    guard var game = record(index) else { return nil }
    var seen: Set<String> = [game.title]
    for _ in 0..<Self.aliasHops {
      guard let alias = game.alias,
        let next = stringMatches(table: LocationManifestIndexFormat.titleTable, key: alias).first.flatMap(
          record),
        seen.insert(next.title).inserted
      else { break }
      game = next
    }
    return game
  }

  private func record(_ index: Int) -> LocationManifestGame? {
    guard index >= 0, index < gameCount else { return nil }
    var reader = LocationManifestIndexFormat.Reader(
      bytes: bytes, offset: recordsStart + Int(u32(at: recordOffsets + index * 4)))
    return LocationManifestIndexFormat.readRecord(&reader)
  }

  private func u32(at offset: Int) -> UInt32 {
    UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
  }

  private func u64(at offset: Int) -> UInt64 {
    UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
  }

  /// The first record whose key is `key` in a number table (the tables put `steam.id` before
  /// `steamExtra`).
  private func numberMatch(table: Int, key: UInt64) -> Int? {
    let (start, count) = numberTables[table]
    var low = 0
    var high = count
    while low < high {
      let middle = (low + high) / 2
      if u64(at: start + middle * Self.entrySize) < key { low = middle + 1 } else { high = middle }
    }
    guard low < count, u64(at: start + low * Self.entrySize) == key else { return nil }
    return Int(u32(at: start + low * Self.entrySize + 8))
  }

  /// The records whose key is `key` in a string table, in the manifest's order.
  private func stringMatches(table: Int, key: String) -> [Int] {
    let (start, count) = stringTables[table]
    let key = Array(key.utf8)
    func compare(_ entry: Int) -> Int32 {
      let offset = Int(u32(at: start + entry * Self.entrySize))
      let length = Int(u32(at: start + entry * Self.entrySize + 4))
      let raw = bytes
      return key.withUnsafeBytes { wanted in
        let common = min(length, wanted.count)
        var order: Int32 = 0
        if common > 0, let base = raw.baseAddress, let wantedBase = wanted.baseAddress {
          order = memcmp(base + blobStart + offset, wantedBase, common)
        }
        return order != 0 ? order : length < wanted.count ? -1 : length > wanted.count ? 1 : 0
      }
    }
    var low = 0
    var high = count
    while low < high {
      let middle = (low + high) / 2
      if compare(middle) < 0 { low = middle + 1 } else { high = middle }
    }
    var matches: [Int] = []
    while low < count, compare(low) == 0 {
      matches.append(Int(u32(at: start + low * Self.entrySize + 8)))
      low += 1
    }
    return matches
  }
}
