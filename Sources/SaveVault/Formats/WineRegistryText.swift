/// The pieces of a Wine registry line: escaped names and text, and a value's data.
enum WineRegistryText {
  /// The text from `start` up to the first unescaped `terminator`, unescaped as Wine's
  /// `parse_strW` does, as UTF-16 code units, and the terminator's index. Bytes over 127 are
  /// UTF-8.
  static func unescape(
    _ body: [UInt8], from start: Int, until terminator: UInt8, line: Int
  ) throws(WineRegistryError) -> (units: [UInt16], end: Int) {
    var units: [UInt16] = []
    var index = start
    while index < body.count {
      let byte = body[index]
      if byte == terminator { return (units, index) }
      if byte == UInt8(ascii: "\\") {
        index += 1
        guard index < body.count else { break }
        let escaped = try escape(body, at: index, line: line)
        units.append(escaped.unit)
        index = escaped.next
      } else if byte < 0x80 {
        units.append(UInt16(byte))
        index += 1
      } else {
        let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
        guard index + length <= body.count, length > 1,
          let scalar = String(validating: body[index..<(index + length)], as: UTF8.self)
        else { throw .malformed(line: line, reason: "invalid UTF-8") }
        units += scalar.utf16
        index += length
      }
    }
    throw .malformed(line: line, reason: "no closing '\(Character(Unicode.Scalar(terminator)))'")
  }

  /// The character an escape stands for, the escape's letter at `index`, and where the text
  /// goes on: C's letters, `\x` and up to 4 hex digits, `\` and up to 3 octal digits, or the
  /// letter itself (`\\`, `\"`, `\]`).
  private static func escape(
    _ body: [UInt8], at index: Int, line: Int
  ) throws(WineRegistryError) -> (unit: UInt16, next: Int) {
    let letter = body[index]
    switch letter {
    case UInt8(ascii: "a"): return (7, index + 1)
    case UInt8(ascii: "b"): return (8, index + 1)
    case UInt8(ascii: "e"): return (27, index + 1)
    case UInt8(ascii: "f"): return (12, index + 1)
    case UInt8(ascii: "n"): return (10, index + 1)
    case UInt8(ascii: "r"): return (13, index + 1)
    case UInt8(ascii: "t"): return (9, index + 1)
    case UInt8(ascii: "v"): return (11, index + 1)
    case UInt8(ascii: "x"):
      var value: UInt16 = 0
      var next = index + 1
      while next < body.count, next < index + 5, let digit = hexDigit(body[next]) {
        value = value << 4 | UInt16(digit)
        next += 1
      }
      guard next > index + 1 else { throw .malformed(line: line, reason: "'\\x' without hex digits") }
      return (value, next)
    case UInt8(ascii: "0")...UInt8(ascii: "7"):
      var value: UInt16 = 0
      var next = index
      while next < body.count, next < index + 3, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(body[next])
      {
        value = value << 3 | UInt16(body[next] - UInt8(ascii: "0"))
        next += 1
      }
      return (value, next)
    case 0x80...:
      throw .malformed(line: line, reason: "an escaped byte over 127")
    default:
      return (UInt16(letter), index + 1)
    }
  }

  static func hexDigit(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }

  /// A value's data, the text after its `=` (a `hex:` value's lines already joined).
  static func data(_ text: [UInt8], line: Int) throws(WineRegistryError) -> WineRegistry.Data {
    if text.first == UInt8(ascii: "\"") {
      return .string(type: 1, try quoted(text, from: 0, line: line))
    }
    if text.starts(with: Array("str(".utf8)) {
      let type = try typeNumber(text, from: 4, line: line)
      guard type.next < text.count, text[type.next] == UInt8(ascii: ":") else {
        throw .malformed(line: line, reason: "'str(N)' not followed by ':'")
      }
      return .string(type: type.value, try quoted(text, from: type.next + 1, line: line))
    }
    if text.starts(with: Array("dword:".utf8)) {
      let digits = text.dropFirst(6)
      guard (1...8).contains(digits.count) else {
        throw .malformed(line: line, reason: "a dword of \(digits.count) hex digits")
      }
      var value: UInt32 = 0
      for byte in digits {
        guard let digit = hexDigit(byte) else {
          throw .malformed(line: line, reason: "a dword that is not hex")
        }
        value = value << 4 | UInt32(digit)
      }
      return .dword(value)
    }
    if text.starts(with: Array("hex".utf8)) {
      var index = 3
      var type: UInt32?
      if index < text.count, text[index] == UInt8(ascii: "(") {
        let number = try typeNumber(text, from: index + 1, line: line)
        type = number.value
        index = number.next
      }
      guard index < text.count, text[index] == UInt8(ascii: ":") else {
        throw .malformed(line: line, reason: "'hex' not followed by ':'")
      }
      return .hex(type: type, try hexBytes(text[(index + 1)...], line: line))
    }
    throw .malformed(line: line, reason: "a value that is no string, str(N), dword or hex")
  }

  /// `"text"` from `start`, with nothing after its closing quote.
  private static func quoted(_ text: [UInt8], from start: Int, line: Int) throws(WineRegistryError)
    -> [UInt16]
  {
    guard start < text.count, text[start] == UInt8(ascii: "\"") else {
      throw .malformed(line: line, reason: "text that does not start with '\"'")
    }
    let unescaped = try unescape(text, from: start + 1, until: UInt8(ascii: "\""), line: line)
    guard unescaped.end == text.count - 1 else {
      throw .malformed(line: line, reason: "more after a value's closing '\"'")
    }
    return unescaped.units
  }

  /// The hex number of `str(N)` or `hex(N)` from `start` up to its `)`, and what follows it.
  private static func typeNumber(
    _ text: [UInt8], from start: Int, line: Int
  ) throws(WineRegistryError) -> (value: UInt32, next: Int) {
    var value: UInt32 = 0
    var index = start
    while index < text.count, index < start + 8, let digit = hexDigit(text[index]) {
      value = value << 4 | UInt32(digit)
      index += 1
    }
    guard index > start, index < text.count, text[index] == UInt8(ascii: ")") else {
      throw .malformed(line: line, reason: "a value type that is not '(hex)'")
    }
    return (value, index + 1)
  }

  /// Comma-separated bytes of one or two hex digits; a final comma is allowed.
  private static func hexBytes(_ text: ArraySlice<UInt8>, line: Int) throws(WineRegistryError) -> [UInt8] {
    var bytes: [UInt8] = []
    var value: UInt8?
    var digits = 0
    for byte in text {
      if byte == UInt8(ascii: ",") {
        guard let complete = value else { throw .malformed(line: line, reason: "an empty byte in hex data") }
        bytes.append(complete)
        value = nil
        digits = 0
      } else if let digit = hexDigit(byte), digits < 2 {
        value = (value ?? 0) << 4 | digit
        digits += 1
      } else {
        throw .malformed(line: line, reason: "hex data that is not bytes separated by ','")
      }
    }
    if let complete = value { bytes.append(complete) }
    return bytes
  }
}
