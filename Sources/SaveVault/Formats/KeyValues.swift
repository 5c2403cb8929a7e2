/// Valve's KeyValues text, the format of Steam's `libraryfolders.vdf`, `appmanifest_<id>.acf`
/// and `loginusers.vdf`: keys with a text or a `{}` section as value. Duplicate keys are kept in
/// their order (Valve's own files repeat keys); lookups ignore case, as Steam does.
///
/// These files are written by Steam but read from disks we do not control (an SD card, a
/// restored home), so parsing is bounded and throws `KeyValuesError` with a line number instead
/// of trapping.
public struct KeyValues: Sendable, Equatable, KeyValueEntries {
  /// One key and its value, in file order.
  public typealias Entry = KeyValueEntry<Value>

  /// A key's value: text, or a section of entries.
  public indirect enum Value: Sendable, Equatable {
    case text(String)
    case section(KeyValues)
  }

  /// The entries, in file order, duplicates included.
  public var entries: [Entry]

  public init(_ entries: [Entry] = []) {
    self.entries = entries
  }

  /// The text of the first `key` whose value is text.
  public func text(_ key: String) -> String? {
    for case .text(let text) in values(key) { return text }
    return nil
  }

  /// The first section under `key`.
  public func section(_ key: String) -> KeyValues? {
    for case .section(let section) in values(key) { return section }
    return nil
  }

  /// The text form: every key and text quoted and escaped, sections indented with tabs, as Steam
  /// writes them. `KeyValues.parse(written)` gives back this value.
  public var written: String {
    var output = ""
    Self.write(self, depth: 0, into: &output)
    return output
  }

  private static func write(_ values: KeyValues, depth: Int, into output: inout String) {
    let indent = String(repeating: "\t", count: depth)
    for entry in values.entries {
      output += indent + quoted(entry.key)
      switch entry.value {
      case .text(let text):
        output += "\t\t" + quoted(text) + "\n"
      case .section(let section):
        output += "\n" + indent + "{\n"
        write(section, depth: depth + 1, into: &output)
        output += indent + "}\n"
      }
    }
  }

  private static func quoted(_ text: String) -> String {
    var result = "\""
    for character in text.unicodeScalars {
      switch character {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\t": result += "\\t"
      default: result.unicodeScalars.append(character)
      }
    }
    return result + "\""
  }
}

/// Why a KeyValues text was refused; `line` is 1-based.
public enum KeyValuesError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The text breaks the grammar at `line`.
  case malformed(line: Int, reason: String)
  /// Sections nest deeper than the limit at `line`.
  case tooDeep(line: Int, limit: Int)
  /// The text is longer than the limit.
  case tooLarge(bytes: Int, limit: Int)

  public var description: String {
    switch self {
    case .malformed(let line, let reason): "line \(line): \(reason)"
    case .tooDeep(let line, let limit): "line \(line): sections nested deeper than \(limit)"
    case .tooLarge(let bytes, let limit): "\(bytes) bytes, more than the \(limit) a KeyValues file may have"
    }
  }
}

extension KeyValues {
  /// The most a file may hold: Steam's own files are a few kilobytes to a few megabytes.
  public static let maximumBytes = 16 << 20
  /// The deepest nesting of sections: Steam's files nest five or six levels.
  public static let maximumDepth = 64

  /// Reads KeyValues text: quoted tokens with `\"`, `\\`, `\n` and `\t` escapes (another
  /// backslash stays as it is), unquoted tokens, `//` comments, nested `{}`. `#include` and
  /// `#base` lines and `[$WIN32]`-style conditions are skipped: Steam's files on Linux do not
  /// rely on them. Invalid UTF-8 becomes U+FFFD.
  public static func parse(_ bytes: some Collection<UInt8>) throws(KeyValuesError) -> KeyValues {
    guard bytes.count <= maximumBytes else {
      throw .tooLarge(bytes: bytes.count, limit: maximumBytes)
    }
    var reader = KeyValuesReader(bytes: Array(bytes))
    return try reader.section(depth: 0, openedOn: nil)
  }

  /// `parse` of a string's UTF-8.
  public static func parse(_ text: String) throws(KeyValuesError) -> KeyValues {
    try parse(Array(text.utf8))
  }
}

/// The tokenizer and recursive-descent parser behind `KeyValues.parse`.
private struct KeyValuesReader {
  enum Token: Equatable {
    case quoted(String)
    case unquoted(String)
    case open
    case close
  }

  let bytes: [UInt8]
  var position = 0
  var line = 1
  /// A token read ahead by `peek`, with the line it started on.
  var pending: (token: Token, line: Int)?

  init(bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// Entries until the closing brace (or the end of the text at depth 0).
  mutating func section(depth: Int, openedOn: Int?) throws(KeyValuesError) -> KeyValues {
    guard depth <= KeyValues.maximumDepth else { throw .tooDeep(line: line, limit: KeyValues.maximumDepth) }
    var entries: [KeyValues.Entry] = []
    while true {
      guard let (token, tokenLine) = try next() else {
        if let openedOn {
          throw .malformed(line: line, reason: "the '{' of line \(openedOn) is never closed")
        }
        return KeyValues(entries)
      }
      let key: String
      switch token {
      case .close:
        guard openedOn != nil else { throw .malformed(line: tokenLine, reason: "'}' without a '{'") }
        return KeyValues(entries)
      case .open:
        throw .malformed(line: tokenLine, reason: "'{' where a key was expected")
      case .unquoted(let text) where text.lowercased() == "#include" || text.lowercased() == "#base":
        switch try next()?.token {
        case .quoted?, .unquoted?: continue
        default: throw .malformed(line: tokenLine, reason: "\(text) without a file name")
        }
      case .quoted(let text), .unquoted(let text):
        key = text
      }
      try skipCondition()
      guard let (valueToken, valueLine) = try next() else {
        throw .malformed(line: line, reason: "the key \"\(key)\" has no value")
      }
      switch valueToken {
      case .quoted(let text), .unquoted(let text):
        entries.append(KeyValues.Entry(key: key, value: .text(text)))
      case .open:
        let inner = try section(depth: depth + 1, openedOn: valueLine)
        entries.append(KeyValues.Entry(key: key, value: .section(inner)))
      case .close:
        throw .malformed(line: valueLine, reason: "'}' where the value of \"\(key)\" was expected")
      }
      try skipCondition()
    }
  }

  /// Skips a `[$WIN32]`-style condition after a key or value.
  mutating func skipCondition() throws(KeyValuesError) {
    if case .unquoted(let text)? = try peek()?.token, text.hasPrefix("["), text.hasSuffix("]") {
      _ = try next()
    }
  }

  mutating func peek() throws(KeyValuesError) -> (token: Token, line: Int)? {
    if pending == nil { pending = try scan() }
    return pending
  }

  mutating func next() throws(KeyValuesError) -> (token: Token, line: Int)? {
    if let token = pending {
      pending = nil
      return token
    }
    return try scan()
  }

  private mutating func scan() throws(KeyValuesError) -> (token: Token, line: Int)? {
    skipSpaceAndComments()
    guard position < bytes.count else { return nil }
    let start = line
    switch bytes[position] {
    case UInt8(ascii: "{"):
      position += 1
      return (.open, start)
    case UInt8(ascii: "}"):
      position += 1
      return (.close, start)
    case UInt8(ascii: "\""):
      return (.quoted(try quoted()), start)
    default:
      let begin = position
      while position < bytes.count, !Self.endsUnquoted(bytes[position]) { position += 1 }
      return (.unquoted(String(decoding: bytes[begin..<position], as: UTF8.self)), start)
    }
  }

  private static func endsUnquoted(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "{") || byte == UInt8(ascii: "}") || isSpace(byte)
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C
  }

  private mutating func skipSpaceAndComments() {
    while position < bytes.count {
      let byte = bytes[position]
      if Self.isSpace(byte) {
        if byte == 0x0A { line += 1 }
        position += 1
      } else if byte == UInt8(ascii: "/"), position + 1 < bytes.count,
        bytes[position + 1] == UInt8(ascii: "/")
      {
        while position < bytes.count, bytes[position] != 0x0A { position += 1 }
      } else {
        return
      }
    }
  }

  /// A quoted token, the opening quote at `position`.
  private mutating func quoted() throws(KeyValuesError) -> String {
    let start = line
    position += 1
    var text: [UInt8] = []
    while position < bytes.count {
      let byte = bytes[position]
      position += 1
      switch byte {
      case UInt8(ascii: "\""):
        return String(decoding: text, as: UTF8.self)
      case UInt8(ascii: "\\") where position < bytes.count:
        let escaped = bytes[position]
        position += 1
        switch escaped {
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): text.append(escaped)
        default:
          if escaped == 0x0A { line += 1 }
          text.append(byte)
          text.append(escaped)
        }
      default:
        if byte == 0x0A { line += 1 }
        text.append(byte)
      }
    }
    throw .malformed(line: start, reason: "the quoted text opened on line \(start) is never closed")
  }
}

/// One key and its value, in file order: an entry of Valve's KeyValues, text or binary.
public struct KeyValueEntry<Value: Sendable & Equatable>: Sendable, Equatable {
  public var key: String
  public var value: Value

  public init(key: String, value: Value) {
    self.key = key
    self.value = value
  }
}

/// Valve's KeyValues entries, duplicates kept in their order (Valve's own files repeat keys).
public protocol KeyValueEntries {
  associatedtype Value: Sendable & Equatable
  var entries: [KeyValueEntry<Value>] { get }
}

extension KeyValueEntries {
  /// Every value under `key`, compared without case as Steam does, in file order.
  public func values(_ key: String) -> [Value] {
    let wanted = key.lowercased()
    return entries.filter { $0.key.lowercased() == wanted }.map(\.value)
  }
}
