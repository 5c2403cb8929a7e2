import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
/// Why JSON text was refused, and where.
struct JSONTextError: Error, Equatable, Sendable {
  var offset: Int
  var problem: String
}

/// JSON text built in a byte buffer.
struct JSONWriter {
  var bytes: [UInt8] = []

  mutating func raw(_ text: StaticString) {
    bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  mutating func integer(_ value: Int64) { appendDecimal(value, to: &bytes) }

  mutating func string(_ text: String) {
    bytes.append(UInt8(ascii: "\""))
    var text = text
    text.withUTF8 { utf8 in
      var start = 0
      for index in 0..<utf8.count {
        let byte = utf8[index]
        guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
        escape(byte)
        start = index + 1
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
    }
    bytes.append(UInt8(ascii: "\""))
  }

  mutating func escape(_ byte: UInt8) {
    bytes.append(UInt8(ascii: "\\"))
    switch byte {
    case 0x08: bytes.append(UInt8(ascii: "b"))
    case 0x09: bytes.append(UInt8(ascii: "t"))
    case 0x0A: bytes.append(UInt8(ascii: "n"))
    case 0x0C: bytes.append(UInt8(ascii: "f"))
    case 0x0D: bytes.append(UInt8(ascii: "r"))
    case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
    default:
      let hex = Array("0123456789abcdef".utf8)
      bytes.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
    }
  }
}

/// A strict JSON reader over bytes (RFC 8259, nothing more): a malformed value anywhere, a
/// byte-order mark, invalid UTF-8 or a nesting deeper than `maxDepth` is refused with the
/// offset it was found at (`JSONTextError`). The archive's manifest is read with it.
struct JSONReader {
  let bytes: UnsafeBufferPointer<UInt8>
  var index = 0
  /// How deep values under unknown keys may nest (as `JSONDecoder`'s limit).
  static let maxDepth = 512

  init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  var atEnd: Bool { index >= bytes.count }

  func error(_ problem: String) -> JSONTextError { JSONTextError(offset: index, problem: problem) }

  mutating func skipSpace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  /// The next byte after white space, not consumed; nil at the end.
  mutating func peek() -> UInt8? {
    skipSpace()
    return index < bytes.count ? bytes[index] : nil
  }

  mutating func expect(_ byte: UInt8) throws {
    guard peek() == byte else { throw error("expected '\(Character(Unicode.Scalar(byte)))'") }
    index += 1
  }

  /// An object, calling `member` with each key (its UTF-8 bytes, escapes resolved) to read its
  /// value.
  mutating func object(_ member: (inout JSONReader, UnsafeBufferPointer<UInt8>) throws -> Void) throws {
    try expect(UInt8(ascii: "{"))
    if peek() == UInt8(ascii: "}") {
      index += 1
      return
    }
    while true {
      guard peek() == UInt8(ascii: "\"") else { throw error("expected a key") }
      if let key = try plainKey() {
        try expect(UInt8(ascii: ":"))
        try member(&self, key)
      } else {
        var key = try string()
        try expect(UInt8(ascii: ":"))
        try key.withUTF8 { try member(&self, $0) }
      }
      switch peek() {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"):
        index += 1
        return
      default: throw error("expected ',' or '}'")
      }
    }
  }

  /// A key without escapes, as the bytes between its quotes (consumed); nil, and nothing
  /// consumed, for a key with escapes.
  mutating func plainKey() throws -> UnsafeBufferPointer<UInt8>? {
    var end = index + 1
    while end < bytes.count {
      let byte = bytes[end]
      if byte == UInt8(ascii: "\"") {
        let key = UnsafeBufferPointer(rebasing: bytes[(index + 1)..<end])
        guard isValidUTF8(key) else { throw error("invalid UTF-8") }
        index = end + 1
        return key
      }
      if byte == UInt8(ascii: "\\") { return nil }
      guard byte >= 0x20 else { throw error("a control character in a string") }
      end += 1
    }
    throw error("an unterminated string")
  }

  /// An array, calling `element` to read each element.
  mutating func array(_ element: (inout JSONReader) throws -> Void) throws {
    try expect(UInt8(ascii: "["))
    if peek() == UInt8(ascii: "]") {
      index += 1
      return
    }
    while true {
      try element(&self)
      switch peek() {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"):
        index += 1
        return
      default: throw error("expected ',' or ']'")
      }
    }
  }

  /// Whether the next value is `null` (consumed if so).
  mutating func null() throws -> Bool {
    guard peek() == UInt8(ascii: "n") else { return false }
    try literal("null")
    return true
  }

  mutating func literal(_ word: StaticString) throws {
    let count = word.utf8CodeUnitCount
    guard bytes.count - index >= count, let base = bytes.baseAddress,
      memcmp(base + index, word.utf8Start, count) == 0
    else { throw error("expected \(word)") }
    index += count
  }

  /// A string, its escapes resolved; refuses control characters, bad escapes, lone surrogates
  /// and invalid UTF-8.
  mutating func string() throws -> String {
    try expect(UInt8(ascii: "\""))
    let start = index
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
        guard isValidUTF8(text) else { throw error("invalid UTF-8") }
        index += 1
        return String(decoding: text, as: UTF8.self)
      }
      if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
      guard byte >= 0x20 else { throw error("a control character in a string") }
      index += 1
    }
    throw error("an unterminated string")
  }

  /// The rest of a string that has escapes, begun at `start`.
  mutating func escapedString(from start: Int) throws -> String {
    var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
    while index < bytes.count {
      let byte = bytes[index]
      index += 1
      switch byte {
      case UInt8(ascii: "\""):
        guard isValidUTF8(out) else { throw error("invalid UTF-8") }
        return String(decoding: out, as: UTF8.self)
      case UInt8(ascii: "\\"):
        guard index < bytes.count else { throw error("an unterminated string") }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
          var scalar = try hex4()
          if (0xD800..<0xDC00).contains(scalar) {
            guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"),
              bytes[index + 1] == UInt8(ascii: "u")
            else { throw error("a lone surrogate") }
            index += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw error("a lone surrogate") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          } else if (0xDC00..<0xE000).contains(scalar) {
            throw error("a lone surrogate")
          }
          guard let character = Unicode.Scalar(scalar) else { throw error("an invalid \\u escape") }
          out.append(contentsOf: String(character).utf8)
        default: throw error("an invalid escape")
        }
      default:
        guard byte >= 0x20 else { throw error("a control character in a string") }
        out.append(byte)
      }
    }
    throw error("an unterminated string")
  }

  mutating func hex4() throws -> UInt32 {
    guard bytes.count - index >= 4 else { throw error("a short \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw error("an invalid \\u escape")
      }
      value = value << 4 | UInt32(digit)
      index += 1
    }
    return value
  }

  /// An integer written plainly (`-?(0|[1-9][0-9]*)`, no fraction or exponent) that fits `Int64`.
  mutating func integer() throws -> Int64 {
    let negative = peek() == UInt8(ascii: "-")
    if negative { index += 1 }
    guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected an integer") }
    let limit: UInt64 = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
    var magnitude: UInt64 = 0
    let first = index
    while index < bytes.count, isDigit(bytes[index]) {
      let digit = UInt64(bytes[index] - UInt8(ascii: "0"))
      guard magnitude <= (limit - digit) / 10 else { throw error("an integer out of range") }
      magnitude = magnitude * 10 + digit
      index += 1
    }
    guard bytes[first] != UInt8(ascii: "0") || index - first == 1 else { throw error("a leading zero") }
    if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
      throw error("expected an integer")
    }
    return negative ? Int64(bitPattern: 0 &- magnitude) : Int64(magnitude)
  }

  mutating func integer<Value: FixedWidthInteger>(as type: Value.Type) throws -> Value {
    guard let value = Value(exactly: try integer()) else { throw error("an integer out of range") }
    return value
  }

  /// Any JSON value, checked and dropped (under unknown keys).
  mutating func skipValue(depth: Int = 1) throws {
    guard depth <= Self.maxDepth else { throw error("values nested too deeply") }
    switch peek() {
    case UInt8(ascii: "{"): try object { reader, _ in try reader.skipValue(depth: depth + 1) }
    case UInt8(ascii: "["): try array { reader in try reader.skipValue(depth: depth + 1) }
    case UInt8(ascii: "\""): _ = try string()
    case UInt8(ascii: "t"): try literal("true")
    case UInt8(ascii: "f"): try literal("false")
    case UInt8(ascii: "n"): try literal("null")
    default: try skipNumber()
    }
  }

  /// A number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
  mutating func skipNumber() throws {
    if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
    guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a value") }
    if bytes[index] == UInt8(ascii: "0") {
      index += 1
    } else {
      try digits()
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      try digits()
    }
    if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
        index += 1
      }
      try digits()
    }
  }

  mutating func digits() throws {
    guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit") }
    while index < bytes.count, isDigit(bytes[index]) { index += 1 }
  }

  func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }
}

extension UnsafeBufferPointer<UInt8> {
  /// Whether these bytes are `name`'s.
  func `is`(_ name: StaticString) -> Bool {
    guard count == name.utf8CodeUnitCount else { return false }
    guard let base = baseAddress else { return true }
    return memcmp(base, name.utf8Start, count) == 0
  }
}

/// Whether `bytes` is well-formed UTF-8 (no overlong forms, surrogates or code points past
/// U+10FFFF), as Swift's validating `String` initializers judge it.
func isValidUTF8<Bytes: RandomAccessCollection>(_ bytes: Bytes) -> Bool
where Bytes.Element == UInt8, Bytes.Index == Int {
  var index = bytes.startIndex
  let end = bytes.endIndex
  while index < end {
    let lead = bytes[index]
    if lead < 0x80 {
      index += 1
      continue
    }
    let count: Int
    var lower: UInt8 = 0x80
    var upper: UInt8 = 0xBF
    switch lead {
    case 0xC2...0xDF: count = 1
    case 0xE0:
      count = 2
      lower = 0xA0
    case 0xE1...0xEC, 0xEE...0xEF: count = 2
    case 0xED:
      count = 2
      upper = 0x9F
    case 0xF0:
      count = 3
      lower = 0x90
    case 0xF1...0xF3: count = 3
    case 0xF4:
      count = 3
      upper = 0x8F
    default: return false
    }
    guard end - index > count else { return false }
    let second = bytes[index + 1]
    guard second >= lower, second <= upper else { return false }
    for offset in stride(from: 2, through: count, by: 1) where bytes[index + offset] & 0xC0 != 0x80 {
      return false
    }
    index += count + 1
  }
  return true
}
