import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension LocationManifestIndex {
  /// The index of `games` as bytes, stamped `stamp`.
  public static func encode(_ games: [LocationManifestGame], stamp: String) -> [UInt8] {
    typealias Format = LocationManifestIndexFormat
    var records = Format.Writer()
    var offsets: [UInt32] = []
    offsets.reserveCapacity(games.count)
    var numbers: [[(key: UInt64, rank: Int, record: Int)]] = [[], []]
    var strings = Array(repeating: KeyTable(), count: Format.stringTables)
    for (index, game) in games.enumerated() {
      offsets.append(UInt32(truncatingIfNeeded: records.bytes.count))
      Format.writeRecord(game, to: &records)
      if let id = game.steamID { numbers[0].append((UInt64(id), 0, index)) }
      numbers[0] += game.steamExtra.map { (UInt64($0), 1, index) }
      if let id = game.gogID { numbers[1].append((id, 0, index)) }
      numbers[1] += game.gogExtra.map { ($0, 1, index) }
      if let slug = game.lutrisID { strings[Format.lutrisTable].add(slug, record: index) }
      strings[Format.titleTable].add(game.title, record: index)
      let normalized = LocationManifestTitle.normalized(game.title)
      if !normalized.isEmpty { strings[Format.normalizedTitleTable].add(normalized, record: index) }
      var folders: Set<String> = []
      for folder in game.installDirs.map(LocationManifestTitle.normalized) where !folder.isEmpty {
        if folders.insert(folder).inserted { strings[Format.installDirTable].add(folder, record: index) }
      }
    }
    var writer = Format.Writer()
    writer.bytes.reserveCapacity(records.bytes.count * 2)
    writer.string(stamp)
    writer.count(games.count)
    writer.count(records.bytes.count)
    writer.bytes += records.bytes
    writer.count(offsets.count)
    for offset in offsets { writer.u32(offset) }
    for var table in numbers {
      table.sort { ($0.key, $0.rank, $0.record) < ($1.key, $1.rank, $1.record) }
      writer.count(table.count)
      for entry in table {
        writer.u64(entry.key)
        writer.count(entry.record)
      }
    }
    // One blob of every table's keys; each table's entries point into its own part of it.
    var bases: [Int] = []
    var blobLength = 0
    for table in strings {
      bases.append(blobLength)
      blobLength += table.blob.count
    }
    writer.count(blobLength)
    for table in strings { writer.bytes += table.blob }
    for (table, base) in zip(strings, bases) {
      let sorted = table.sorted()
      writer.count(sorted.count)
      for entry in sorted {
        writer.count(base + Int(entry.offset))
        writer.u32(entry.length)
        writer.u32(entry.record)
      }
    }
    // The header: the magic, its own checksum, and one checksum per block of the body.
    var header = Format.Writer()
    let blocks = (writer.bytes.count + Format.blockSize - 1) / Format.blockSize
    header.bytes = Format.magic + Array(repeating: 0, count: 8)
    header.count(blocks)
    writer.bytes.withUnsafeBytes { body in
      for block in 0..<blocks {
        let end = min(body.count, (block + 1) * Format.blockSize)
        header.u64(
          Format.checksum(UnsafeRawBufferPointer(rebasing: body[(block * Format.blockSize)..<end]), from: 0))
      }
    }
    let sum = header.bytes.withUnsafeBytes {
      Format.checksum(UnsafeRawBufferPointer(rebasing: $0[16...]), from: 0)
    }
    withUnsafeBytes(of: sum.littleEndian) { header.bytes.replaceSubrange(8..<16, with: $0) }
    return header.bytes + writer.bytes
  }

  /// The index at `path` when it is whole, undamaged and stamped `stamp`; nil otherwise.
  public static func open(path: String, stamp: String) -> LocationManifestIndex? {
    guard let index = LocationManifestIndex(mapping: path), index.stamp == stamp else { return nil }
    return index
  }

  /// The index at `path` if it is good and stamped `stamp`; otherwise one made from `games()`
  /// and written there atomically (a failure to write it is not an error: the index is still
  /// returned, and made again next time). It is a cache, so it is not flushed to the disk: a
  /// file a crash left torn fails its checksum and is made again.
  public static func load(
    path: String, stamp: String, games: () throws -> [LocationManifestGame]
  ) rethrows -> LocationManifestIndex {
    if let index = open(path: path, stamp: stamp) { return index }
    let bytes = encode(try games(), stamp: stamp)
    let folder = (path as NSString).deletingLastPathComponent
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    bytes.withUnsafeBytes { raw in
      guard let base = raw.baseAddress else { return }
      let data = Data(
        bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: raw.count, deallocator: .none)
      try? data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
    guard let index = LocationManifestIndex(bytes: bytes) else {
      preconditionFailure("an index just encoded does not read back")
    }
    return index
  }
}

/// The keys of one string table in one blob, sorted as offsets into it: no array per key.
struct KeyTable {
  var blob: [UInt8] = []
  var entries: [(offset: UInt32, length: UInt32, record: UInt32)] = []

  mutating func add(_ key: String, record: Int) {
    let offset = blob.count
    blob += key.utf8
    entries.append(
      (
        UInt32(truncatingIfNeeded: offset), UInt32(truncatingIfNeeded: blob.count - offset),
        UInt32(truncatingIfNeeded: record)
      ))
  }

  /// The entries in byte order of their keys, then in record order.
  func sorted() -> [(offset: UInt32, length: UInt32, record: UInt32)] {
    blob.withUnsafeBytes { raw in
      guard let base = raw.baseAddress else { return entries }
      return entries.sorted { a, b in
        let order = memcmp(base + Int(a.offset), base + Int(b.offset), Int(min(a.length, b.length)))
        if order != 0 { return order < 0 }
        return a.length != b.length ? a.length < b.length : a.record < b.record
      }
    }
  }
}
