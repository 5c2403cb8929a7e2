import Foundation

extension ManifestIndex {
  /// The index of `games` as bytes, stamped `stamp`.
  public static func encode(_ games: [ManifestGame], stamp: String) -> [UInt8] {
    typealias Format = ManifestIndexFormat
    var records = Format.Writer()
    var offsets: [UInt32] = []
    offsets.reserveCapacity(games.count)
    var numbers: [[(key: UInt64, rank: Int, record: Int)]] = [[], []]
    var strings: [[(key: [UInt8], record: Int)]] = Array(repeating: [], count: Format.stringTables)
    for (index, game) in games.enumerated() {
      offsets.append(UInt32(truncatingIfNeeded: records.bytes.count))
      Format.writeRecord(game, to: &records)
      if let id = game.steamID { numbers[0].append((UInt64(id), 0, index)) }
      numbers[0] += game.steamExtra.map { (UInt64($0), 1, index) }
      if let id = game.gogID { numbers[1].append((id, 0, index)) }
      numbers[1] += game.gogExtra.map { ($0, 1, index) }
      if let slug = game.lutrisID { strings[Format.lutrisTable].append((Array(slug.utf8), index)) }
      strings[Format.titleTable].append((Array(game.title.utf8), index))
      let normalized = ManifestTitle.normalized(game.title)
      if !normalized.isEmpty { strings[Format.normalizedTitleTable].append((Array(normalized.utf8), index)) }
      for folder in Set(game.installDirs.map(ManifestTitle.normalized)) where !folder.isEmpty {
        strings[Format.installDirTable].append((Array(folder.utf8), index))
      }
    }
    var writer = Format.Writer()
    writer.bytes = Format.magic + Array(repeating: 0, count: 8)
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
    var blob: [UInt8] = []
    var tables: [[(offset: Int, length: Int, record: Int)]] = []
    for var table in strings {
      table.sort { $0.key == $1.key ? $0.record < $1.record : $0.key.lexicographicallyPrecedes($1.key) }
      tables.append(
        table.map { entry in
          defer { blob += entry.key }
          return (blob.count, entry.key.count, entry.record)
        })
    }
    writer.count(blob.count)
    writer.bytes += blob
    for table in tables {
      writer.count(table.count)
      for entry in table {
        writer.count(entry.offset)
        writer.count(entry.length)
        writer.count(entry.record)
      }
    }
    let checksum = Format.checksum(writer.bytes, from: 16)
    withUnsafeBytes(of: checksum.littleEndian) { writer.bytes.replaceSubrange(8..<16, with: $0) }
    return writer.bytes
  }

  /// The index at `path` when it is whole, undamaged and stamped `stamp`; nil otherwise.
  public static func open(path: String, stamp: String) -> ManifestIndex? {
    guard let data = FileManager.default.contents(atPath: path),
      let index = ManifestIndex(bytes: [UInt8](data)), index.stamp == stamp
    else { return nil }
    return index
  }

  /// The index at `path` if it is good and stamped `stamp`; otherwise one made from `games()`
  /// and written there atomically (a failure to write it is not an error: the index is still
  /// returned, and made again next time).
  public static func load(
    path: String, stamp: String, games: () throws -> [ManifestGame]
  ) rethrows -> ManifestIndex {
    if let index = open(path: path, stamp: stamp) { return index }
    let bytes = encode(try games(), stamp: stamp)
    try? AtomicFile.write(Data(bytes), to: path)
    guard let index = ManifestIndex(bytes: bytes) else {
      preconditionFailure("an index just encoded does not read back")
    }
    return index
  }
}
