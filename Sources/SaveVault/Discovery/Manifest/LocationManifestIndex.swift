#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The manifest as a compact file of records and sorted key tables, so that a later process
/// finds a game by binary search in a few milliseconds instead of parsing 17 MB of YAML, and
/// reads only the pages a lookup touches.
///
/// It is read from disk and so never trusted: the magic, the header's checksum and the layout
/// are checked when it is opened (`open` returns nil for a file that fails, and the caller
/// rebuilds it), and each 4 KiB block has its own checksum, checked before a lookup uses any
/// byte of it. A lookup that meets a damaged block answers nothing, never another game, and
/// removes a mapped file so that the next run rebuilds it. The stamp says which manifest it
/// was made from; an index with another stamp is stale.
public final class LocationManifestIndex: LocationManifestLookup, Sendable {
  /// How many games (entries, aliases included) it holds.
  public let gameCount: Int
  /// What the index was made from (the caller's description of the manifest's copy).
  public let stamp: String
  private let storage: Storage
  private var bytes: UnsafeRawBufferPointer { storage.bytes }
  /// Where the checked blocks start (after the header and its block checksums).
  private let bodyStart: Int
  private let blockSums: Int
  private let recordsStart: Int
  private let recordsLength: Int
  private let recordOffsets: Int
  private let numberTables: [(start: Int, count: Int)]
  private let blobStart: Int
  private let blobLength: Int
  private let stringTables: [(start: Int, count: Int)]

  /// Aliases are followed at most this many times (Ludusavi's bound); a loop stops there too.
  static let aliasHops = 100
  private static let entrySize = 12

  /// The index in `bytes`; nil when they are not a whole index.
  public convenience init?(bytes: [UInt8]) {
    self.init(storage: Storage(copying: bytes))
  }

  /// The index in the file at `path`, mapped rather than read (a lookup touches only the
  /// pages it needs); nil when it is missing, or not a whole index.
  public convenience init?(mapping path: String) {
    guard let storage = Storage(mapping: path) else { return nil }
    self.init(storage: storage)
  }

  private init?(storage: Storage) {
    typealias Format = LocationManifestIndexFormat
    let bytes = storage.bytes
    guard bytes.count >= 20, Array(bytes[0..<8]) == Format.magic else { return nil }
    var reader = Format.Reader(bytes: bytes, offset: 8)
    guard let headerSum = reader.u64(), let blocks = reader.count(itemSize: 8) else { return nil }
    let blockSums = reader.offset
    let bodyStart = blockSums + blocks * 8
    self.blockSums = blockSums
    self.bodyStart = bodyStart
    guard (bytes.count - bodyStart + Format.blockSize - 1) / Format.blockSize == blocks,
      headerSum == Format.checksum(UnsafeRawBufferPointer(rebasing: bytes[16..<bodyStart]), from: 0)
    else { return nil }
    self.storage = storage
    // The layout, read from blocks checked as they are read.
    reader.offset = bodyStart
    var numberTables: [(start: Int, count: Int)] = []
    var stringTables: [(start: Int, count: Int)] = []
    func count(itemSize: Int) -> Int? {
      guard LocationManifestIndex.isWhole(bytes, blockSums, bodyStart, reader.offset, 4) else { return nil }
      return reader.count(itemSize: itemSize)
    }
    guard let stampLength = count(itemSize: 1),
      LocationManifestIndex.isWhole(bytes, blockSums, bodyStart, reader.offset, stampLength)
    else { return nil }
    reader.offset -= 4
    guard let stamp = reader.string(), let gameCount = count(itemSize: 4),
      let recordsLength = count(itemSize: 1)
    else { return nil }
    recordsStart = reader.offset
    reader.offset += recordsLength
    guard count(itemSize: 4) == gameCount else { return nil }
    recordOffsets = reader.offset
    reader.offset += gameCount * 4
    for _ in 0..<2 {
      guard let count = count(itemSize: Self.entrySize) else { return nil }
      numberTables.append((reader.offset, count))
      reader.offset += count * Self.entrySize
    }
    guard let blobLength = count(itemSize: 1) else { return nil }
    blobStart = reader.offset
    reader.offset += blobLength
    for _ in 0..<Format.stringTables {
      guard let count = count(itemSize: Self.entrySize) else { return nil }
      stringTables.append((reader.offset, count))
      reader.offset += count * Self.entrySize
    }
    guard reader.offset == bytes.count else { return nil }
    self.gameCount = gameCount
    self.stamp = stamp
    self.recordsLength = recordsLength
    self.blobLength = blobLength
    self.numberTables = numberTables
    self.stringTables = stringTables
  }

  /// Whether the blocks holding `bytes[offset..<offset + length]` match their checksums.
  private static func isWhole(
    _ bytes: UnsafeRawBufferPointer, _ blockSums: Int, _ bodyStart: Int, _ offset: Int, _ length: Int
  ) -> Bool {
    typealias Format = LocationManifestIndexFormat
    guard offset >= bodyStart, length >= 0, offset <= bytes.count - length else { return false }
    let first = (offset - bodyStart) / Format.blockSize
    let last = (offset + max(length, 1) - 1 - bodyStart) / Format.blockSize
    for block in first...last {
      let start = bodyStart + block * Format.blockSize
      let end = min(bytes.count, start + Format.blockSize)
      let sum = UInt64(
        littleEndian: bytes.loadUnaligned(fromByteOffset: blockSums + block * 8, as: UInt64.self))
      guard sum == Format.checksum(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), from: 0) else {
        return false
      }
    }
    return true
  }

  /// `isWhole` for this index; a damaged block also removes a mapped file, so that the next
  /// run makes it again.
  private func isWhole(_ offset: Int, _ length: Int) -> Bool {
    guard Self.isWhole(bytes, blockSums, bodyStart, offset, length) else {
      storage.discard()
      return false
    }
    return true
  }

  /// Whether every block matches its checksum (a pass over the whole file).
  public var isWhole: Bool { isWhole(bodyStart, bytes.count - bodyStart) }

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

  /// Every game, in the manifest's order (aliases as they are); none when the file is damaged.
  public var allGames: [LocationManifestGame] {
    guard isWhole else { return [] }
    return (0..<gameCount).compactMap { record($0, isChecked: true) }
  }

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

  /// The record `index`, its blocks checked (unless `isChecked`: the whole file is).
  private func record(_ index: Int, isChecked: Bool) -> LocationManifestGame? {
    guard index >= 0, index < gameCount, isChecked || isWhole(recordOffsets + index * 4, 8) else {
      return nil
    }
    let start = Int(u32(at: recordOffsets + index * 4))
    let end = index + 1 < gameCount ? Int(u32(at: recordOffsets + index * 4 + 4)) : recordsLength
    guard start <= end, end <= recordsLength, isChecked || isWhole(recordsStart + start, end - start) else {
      return nil
    }
    var reader = LocationManifestIndexFormat.Reader(
      bytes: UnsafeRawBufferPointer(rebasing: bytes[(recordsStart + start)..<(recordsStart + end)]), offset: 0
    )
    return LocationManifestIndexFormat.readRecord(&reader)
  }

  private func record(_ index: Int) -> LocationManifestGame? { record(index, isChecked: false) }

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
      guard isWhole(start + middle * Self.entrySize, Self.entrySize) else { return nil }
      if u64(at: start + middle * Self.entrySize) < key { low = middle + 1 } else { high = middle }
    }
    guard low < count, isWhole(start + low * Self.entrySize, Self.entrySize),
      u64(at: start + low * Self.entrySize) == key
    else { return nil }
    return Int(u32(at: start + low * Self.entrySize + 8))
  }

  /// The records whose key is `key` in a string table, in the manifest's order.
  private func stringMatches(table: Int, key: String) -> [Int] {
    let (start, count) = stringTables[table]
    let key = Array(key.utf8)
    /// The order of entry `entry`'s key against `key`; nil when its bytes are damaged.
    func compare(_ entry: Int) -> Int32? {
      guard isWhole(start + entry * Self.entrySize, Self.entrySize) else { return nil }
      let offset = Int(u32(at: start + entry * Self.entrySize))
      let length = Int(u32(at: start + entry * Self.entrySize + 4))
      guard offset <= blobLength, length <= blobLength - offset, isWhole(blobStart + offset, length) else {
        return nil
      }
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
      guard let order = compare(middle) else { return [] }
      if order < 0 { low = middle + 1 } else { high = middle }
    }
    var matches: [Int] = []
    while low < count, let order = compare(low), order == 0 {
      matches.append(Int(u32(at: start + low * Self.entrySize + 8)))
      low += 1
    }
    return matches
  }
}
