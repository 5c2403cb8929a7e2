/// The bytes of a manifest index, little-endian: a magic, a checksum of the rest of the
/// header, the count of blocks and one checksum per `blockSize` bytes of the body; then the body:
/// the stamp of the manifest it was made from, the game count, the games' records, then sorted
/// key tables (Steam ids, GOG ids; Lutris slugs, titles, normalized titles, normalized install
/// folders over one string blob) that a lookup binary-searches.
enum LocationManifestIndexFormat {
  static let magic: [UInt8] = Array("SVMIDX4\n".utf8)
  /// The body is checked in blocks of this many bytes, each when a lookup first needs it.
  static let blockSize = 4096
  /// The string tables, in file order.
  static let stringTables = 4
  static let lutrisTable = 0
  static let titleTable = 1
  static let normalizedTitleTable = 2
  static let installDirTable = 3

  /// A 64-bit checksum of `raw[start...]`: cheap enough to check at each use, so a damaged
  /// file is never trusted.
  static func checksum(_ raw: UnsafeRawBufferPointer, from start: Int) -> UInt64 {
    // Four independent lanes, so that the multiplications overlap instead of waiting on
    // each other; then the tail byte by byte.
    var lanes: (UInt64, UInt64, UInt64, UInt64) = (0xcbf2_9ce4_8422_2325, 0x8422_2325_cbf2_9ce4, 1, 2)
    let prime: UInt64 = 0x100_0000_01b3
    var offset = start
    while offset + 32 <= raw.count {
      lanes.0 = (lanes.0 ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* prime
      lanes.1 = (lanes.1 ^ raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)) &* prime
      lanes.2 = (lanes.2 ^ raw.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self)) &* prime
      lanes.3 = (lanes.3 ^ raw.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self)) &* prime
      lanes.0 ^= lanes.0 >> 29
      lanes.1 ^= lanes.1 >> 29
      lanes.2 ^= lanes.2 >> 29
      lanes.3 ^= lanes.3 >> 29
      offset += 32
    }
    var hash = (lanes.0 &* 31 ^ lanes.1) &* prime ^ (lanes.2 &* 17 ^ lanes.3)
    while offset < raw.count {
      hash = (hash ^ UInt64(raw[offset])) &* prime
      offset += 1
    }
    return hash ^ UInt64(raw.count)
  }

  /// Appends little-endian values and strings.
  struct Writer {
    var bytes: [UInt8] = []

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    mutating func count(_ value: Int) { u32(UInt32(truncatingIfNeeded: value)) }
    mutating func string(_ value: String) {
      count(value.utf8.count)
      bytes += value.utf8
    }
    mutating func strings(_ values: [String]) {
      count(values.count)
      for value in values { string(value) }
    }
  }

  /// Reads what `Writer` wrote, every read bounds-checked: nil past the end.
  struct Reader {
    let bytes: UnsafeRawBufferPointer
    var offset: Int

    mutating func u8() -> UInt8? {
      guard offset < bytes.count else { return nil }
      defer { offset += 1 }
      return bytes[offset]
    }
    mutating func u32() -> UInt32? {
      guard offset >= 0, offset <= bytes.count - 4 else { return nil }
      defer { offset += 4 }
      return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
    mutating func u64() -> UInt64? {
      guard offset >= 0, offset <= bytes.count - 8 else { return nil }
      defer { offset += 8 }
      return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
    /// A count of items at least `itemSize` bytes each that fit in what is left.
    mutating func count(itemSize: Int) -> Int? {
      guard let value = u32().map(Int.init), value <= (bytes.count - offset) / max(1, itemSize) else {
        return nil
      }
      return value
    }
    mutating func string() -> String? {
      guard let length = count(itemSize: 1) else { return nil }
      defer { offset += length }
      return String(
        decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]), as: UTF8.self)
    }
    mutating func strings() -> [String]? {
      guard let count = count(itemSize: 4) else { return nil }
      var values: [String] = []
      values.reserveCapacity(count)
      for _ in 0..<count {
        guard let value = string() else { return nil }
        values.append(value)
      }
      return values
    }
    mutating func list<Value>(itemSize: Int, _ item: (inout Reader) -> Value?) -> [Value]? {
      guard let count = count(itemSize: itemSize) else { return nil }
      var values: [Value] = []
      for _ in 0..<count {
        guard let value = item(&self) else { return nil }
        values.append(value)
      }
      return values
    }
  }

  private enum Flag {
    static let registry: UInt8 = 1
    static let steam: UInt8 = 2
    static let gog: UInt8 = 4
    static let lutris: UInt8 = 8
    static let flatpak: UInt8 = 16
    static let alias: UInt8 = 32
  }

  static func writeRecord(_ game: LocationManifestGame, to writer: inout Writer) {
    var flags: UInt8 = game.hasRegistry ? Flag.registry : 0
    if game.steamID != nil { flags |= Flag.steam }
    if game.gogID != nil { flags |= Flag.gog }
    if game.lutrisID != nil { flags |= Flag.lutris }
    if game.flatpakID != nil { flags |= Flag.flatpak }
    if game.alias != nil { flags |= Flag.alias }
    writer.string(game.title)
    writer.u8(flags)
    writer.strings(game.files)
    writer.strings(game.installDirs)
    if let steamID = game.steamID { writer.u32(steamID) }
    writer.count(game.steamExtra.count)
    for id in game.steamExtra { writer.u32(id) }
    if let gogID = game.gogID { writer.u64(gogID) }
    writer.count(game.gogExtra.count)
    for id in game.gogExtra { writer.u64(id) }
    for text in [game.lutrisID, game.flatpakID, game.alias] { if let text { writer.string(text) } }
    // Last, so that a record without registry keys is as it was.
    if game.hasRegistry { writer.strings(game.registry) }
  }

  static func readRecord(_ reader: inout Reader) -> LocationManifestGame? {
    guard let title = reader.string(), let flags = reader.u8(), let files = reader.strings(),
      let installDirs = reader.strings()
    else { return nil }
    var game = LocationManifestGame(title: title, files: files, installDirs: installDirs)
    if flags & Flag.steam != 0 {
      guard let id = reader.u32() else { return nil }
      game.steamID = id
    }
    guard let steamExtra = reader.list(itemSize: 4, { $0.u32() }) else { return nil }
    game.steamExtra = steamExtra
    if flags & Flag.gog != 0 {
      guard let id = reader.u64() else { return nil }
      game.gogID = id
    }
    guard let gogExtra = reader.list(itemSize: 8, { $0.u64() }) else { return nil }
    game.gogExtra = gogExtra
    for (flag, field) in [
      (Flag.lutris, \LocationManifestGame.lutrisID), (Flag.flatpak, \.flatpakID), (Flag.alias, \.alias),
    ]
    where flags & flag != 0 {
      guard let text = reader.string() else { return nil }
      game[keyPath: field] = text
    }
    if flags & Flag.registry != 0 {
      guard let registry = reader.strings(), !registry.isEmpty else { return nil }
      game.registry = registry
    }
    return game
  }
}
