import Foundation

/// File names and save-relative paths as the exact bytes the filesystem holds, carried in a
/// Swift `String` without loss.
///
/// A Linux name is any bytes but `/` and NUL: Latin-1 from old games, Shift-JIS from Windows
/// games under Proton. `String(cString:)` repairs invalid UTF-8 into U+FFFD, and a name opened
/// by its repaired spelling is not found. The mapping here keeps every name:
///
/// - a name that is valid UTF-8 is itself (the identity for every ordinary name);
/// - a byte that is not part of valid UTF-8 becomes the scalar U+10FF00 + byte (U+10FF80 to
///   U+10FFFF, private use, like Python's `surrogateescape`);
/// - a real U+10FF80…U+10FFFF in a name is escaped the same way, byte by byte (its four UTF-8
///   bytes become four scalars), so that no two names give the same string.
///
/// `string(_:)` is injective and `bytes(_:)` undoes it. Manifests, digests, the agreement and
/// messages carry the string; every place a save-relative path meets the system or libarchive
/// turns it back into bytes.
enum RawName {
  /// The first of the 128 escape scalars (U+10FF80 stands for the byte 0x80).
  private static let escapeBase: UInt32 = 0x10FF00
  private static let escapes: ClosedRange<UInt32> = 0x10FF80...0x10FFFF

  /// The string for the bytes of a name or path.
  static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    if !hasLeadF4(UnsafeRawBufferPointer(bytes)), let valid = validUTF8(bytes) { return valid }
    var scalars = String.UnicodeScalarView()
    var index = 0
    while index < bytes.count {
      if let (scalar, length) = scalar(in: bytes, at: index) {
        if escapes.contains(scalar.value) {
          for byte in bytes[index..<index + length] { scalars.append(escape(byte)) }
        } else {
          scalars.append(scalar)
        }
        index += length
      } else {
        scalars.append(escape(bytes[index]))
        index += 1
      }
    }
    return String(scalars)
  }

  /// The string for the bytes of a name or path.
  static func string(_ bytes: [UInt8]) -> String {
    bytes.withUnsafeBufferPointer { string($0) }
  }

  /// The string for a NUL-terminated C name (such as `d_name` or a libarchive pathname).
  static func string(cString: UnsafePointer<CChar>) -> String {
    let start = UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self)
    return string(UnsafeBufferPointer(start: start, count: strlen(cString)))
  }

  /// The bytes `string` stands for.
  static func bytes(_ string: String) -> [UInt8] {
    guard mayHoldEscapes(string) else { return Array(string.utf8) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(string.utf8.count)
    for scalar in string.unicodeScalars {
      if escapes.contains(scalar.value) {
        bytes.append(UInt8(truncatingIfNeeded: scalar.value - escapeBase))
      } else {
        bytes.append(contentsOf: String(scalar).utf8)
      }
    }
    return bytes
  }

  /// Calls `body` with the NUL-terminated bytes `string` stands for.
  static func withCString<Result>(_ string: String, _ body: (UnsafePointer<CChar>) throws -> Result) rethrows
    -> Result
  {
    guard mayHoldEscapes(string) else { return try string.withCString(body) }
    let terminated = bytes(string).map { CChar(bitPattern: $0) } + [0]
    return try body(terminated)
  }

  /// Calls `body` with the C path of `relative`, a path in this mapping (a save-relative
  /// path), under `root`, a path as the system spells it (the save directory).
  static func withCString<Result>(
    _ relative: String, under root: String, _ body: (UnsafePointer<CChar>) throws -> Result
  ) rethrows -> Result {
    guard mayHoldEscapes(relative) else { return try (root + "/" + relative).withCString(body) }
    let terminated = (Array(root.utf8) + [UInt8(ascii: "/")] + bytes(relative) + [0]).map {
      CChar(bitPattern: $0)
    }
    return try body(terminated)
  }

  /// Whether `string` may hold escape scalars: their UTF-8, and the UTF-8 of every scalar that
  /// is escaped, starts with 0xF4, which no ordinary name holds.
  private static func mayHoldEscapes(_ string: String) -> Bool {
    string.utf8.withContiguousStorageIfAvailable { hasLeadF4(UnsafeRawBufferPointer($0)) }
      ?? string.utf8.contains(0xF4)
  }

  /// The string of `bytes` when they are valid UTF-8. (Decoding repairs invalid bytes, so
  /// the bytes are valid when decoding kept them as they were: cheaper than
  /// `String(validating:as:)`, which looks up generic metadata on every call.)
  private static func validUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    var decoded = String(decoding: bytes, as: UTF8.self)
    let isSame = decoded.withUTF8 { utf8 in
      guard utf8.count == bytes.count else { return false }
      guard let decodedBase = utf8.baseAddress, let base = bytes.baseAddress else { return true }  // empty
      return memcmp(decodedBase, base, bytes.count) == 0
    }
    return isSame ? decoded : nil
  }

  private static func hasLeadF4(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let base = bytes.baseAddress else { return false }
    return memchr(base, 0xF4, bytes.count) != nil
  }

  private static func escape(_ byte: UInt8) -> Unicode.Scalar {
    Unicode.Scalar(escapeBase + UInt32(byte)) ?? "\u{FFFD}"  // always a scalar: U+10FF80…U+10FFFF
  }

  /// The well-formed UTF-8 sequence at `index` (Unicode's table 3-7) and its length, or nil.
  private static func scalar(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (Unicode.Scalar, Int)? {
    let lead = bytes[index]
    let length: Int
    var value: UInt32
    var second: ClosedRange<UInt8> = 0x80...0xBF
    switch lead {
    case 0x00...0x7F: return (Unicode.Scalar(lead), 1)
    case 0xC2...0xDF: (length, value) = (2, UInt32(lead & 0x1F))
    case 0xE0: (length, value, second) = (3, 0, 0xA0...0xBF)
    case 0xE1...0xEC, 0xEE...0xEF: (length, value) = (3, UInt32(lead & 0x0F))
    case 0xED: (length, value, second) = (3, 0x0D, 0x80...0x9F)
    case 0xF0: (length, value, second) = (4, 0, 0x90...0xBF)
    case 0xF1...0xF3: (length, value) = (4, UInt32(lead & 0x07))
    case 0xF4: (length, value, second) = (4, 4, 0x80...0x8F)
    default: return nil
    }
    guard index + length <= bytes.count, second.contains(bytes[index + 1]) else { return nil }
    for offset in 1..<length {
      let byte = bytes[index + offset]
      guard byte & 0xC0 == 0x80 else { return nil }
      value = value << 6 | UInt32(byte & 0x3F)
    }
    return Unicode.Scalar(value).map { ($0, length) }
  }
}
