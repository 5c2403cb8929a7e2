/// Valve's binary KeyValues, the format of Steam's `userdata/<user>/config/shortcuts.vdf` (the
/// player's non-Steam games): each entry is a type byte, a NUL-terminated key, and its value;
/// `0x00` opens a map (ended by `0x08`), `0x01` is a NUL-terminated string, `0x02` a
/// little-endian 32-bit integer. The whole file is one map's entries and its `0x08`.
///
/// The file is read from disks we do not control, so reading is bounded and refuses anything
/// else whole (`BinaryKeyValuesError`, with the byte offset); it never traps.
public struct BinaryKeyValues: Sendable, Equatable, KeyValueEntries {
  /// One key and its value, in file order.
  public typealias Entry = KeyValueEntry<Value>

  /// A value: a map of entries, a string, or a signed 32-bit integer.
  public indirect enum Value: Sendable, Equatable {
    case map(BinaryKeyValues)
    case string(String)
    case int32(Int32)
  }

  /// The entries, in file order, duplicates included.
  public var entries: [Entry]

  public init(_ entries: [Entry] = []) {
    self.entries = entries
  }

  /// The first string under `key`, compared without case (Steam has written `AppName` and
  /// `appname`, `Exe` and `exe`).
  public func string(_ key: String) -> String? {
    for case .string(let text) in values(key) { return text }
    return nil
  }

  /// The first integer under `key`.
  public func int32(_ key: String) -> Int32? {
    for case .int32(let number) in values(key) { return number }
    return nil
  }

  /// The first map under `key`.
  public func map(_ key: String) -> BinaryKeyValues? {
    for case .map(let map) in values(key) { return map }
    return nil
  }

  /// The most a file may hold: a player's shortcuts are a few kilobytes.
  public static let maximumBytes = 16 << 20
  /// The deepest nesting of maps: shortcuts.vdf nests three levels.
  public static let maximumDepth = 64

  /// Reads a whole file. Invalid UTF-8 in a key or string becomes U+FFFD.
  public static func parse(_ bytes: some Collection<UInt8>) throws(BinaryKeyValuesError) -> BinaryKeyValues {
    guard bytes.count <= maximumBytes else { throw .tooLarge(bytes: bytes.count, limit: maximumBytes) }
    var reader = BinaryKeyValuesReader(bytes: Array(bytes))
    let root = try reader.map(depth: 0)
    guard reader.position == reader.bytes.count else {
      throw .malformed(offset: reader.position, reason: "bytes after the end of the file's map")
    }
    return root
  }

  /// The bytes `parse` reads back as the same entries.
  public var written: [UInt8] {
    var output: [UInt8] = []
    Self.write(self, into: &output)
    return output
  }

  private static func write(_ map: BinaryKeyValues, into output: inout [UInt8]) {
    for entry in map.entries {
      switch entry.value {
      case .map(let inner):
        output.append(0x00)
        output += Array(entry.key.utf8) + [0]
        write(inner, into: &output)
      case .string(let text):
        output.append(0x01)
        output += Array(entry.key.utf8) + [0] + Array(text.utf8) + [0]
      case .int32(let number):
        output.append(0x02)
        output += Array(entry.key.utf8) + [0]
        let bits = UInt32(bitPattern: number)
        output += [UInt8(bits & 0xff), UInt8(bits >> 8 & 0xff), UInt8(bits >> 16 & 0xff), UInt8(bits >> 24)]
      }
    }
    output.append(0x08)
  }
}

/// Why a binary KeyValues file was refused.
public enum BinaryKeyValuesError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Not the format at `offset`.
  case malformed(offset: Int, reason: String)
  /// Maps nested deeper than `limit`.
  case tooDeep(offset: Int, limit: Int)
  /// Larger than `limit` bytes.
  case tooLarge(bytes: Int, limit: Int)

  public var description: String {
    switch self {
    case .malformed(let offset, let reason): "byte \(offset): \(reason)"
    case .tooDeep(let offset, let limit): "byte \(offset): maps nested deeper than \(limit)"
    case .tooLarge(let bytes, let limit):
      "\(bytes) bytes, more than the \(limit) a binary KeyValues file may have"
    }
  }
}

/// The reader behind `BinaryKeyValues.parse`.
private struct BinaryKeyValuesReader {
  let bytes: [UInt8]
  var position = 0

  /// Entries until the map's `0x08`.
  mutating func map(depth: Int) throws(BinaryKeyValuesError) -> BinaryKeyValues {
    guard depth <= BinaryKeyValues.maximumDepth else {
      throw .tooDeep(offset: position, limit: BinaryKeyValues.maximumDepth)
    }
    var entries: [BinaryKeyValues.Entry] = []
    while true {
      guard position < bytes.count else {
        throw .malformed(offset: position, reason: "the file ends inside a map")
      }
      let type = bytes[position]
      let typeOffset = position
      position += 1
      if type == 0x08 { return BinaryKeyValues(entries) }
      let key = try string()
      switch type {
      case 0x00: entries.append(.init(key: key, value: .map(try map(depth: depth + 1))))
      case 0x01: entries.append(.init(key: key, value: .string(try string())))
      case 0x02: entries.append(.init(key: key, value: .int32(try int32())))
      default:
        throw .malformed(offset: typeOffset, reason: "unknown value type 0x\(String(type, radix: 16))")
      }
    }
  }

  /// A NUL-terminated string.
  mutating func string() throws(BinaryKeyValuesError) -> String {
    guard let end = bytes[position...].firstIndex(of: 0) else {
      throw .malformed(offset: position, reason: "a string without its closing NUL")
    }
    let text = String(decoding: bytes[position..<end], as: UTF8.self)
    position = end + 1
    return text
  }

  /// A little-endian 32-bit integer.
  mutating func int32() throws(BinaryKeyValuesError) -> Int32 {
    guard bytes.count - position >= 4 else {
      throw .malformed(offset: position, reason: "the file ends inside an integer")
    }
    let bits = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[position + $1]) << (8 * $1) }
    position += 4
    return Int32(bitPattern: bits)
  }
}
