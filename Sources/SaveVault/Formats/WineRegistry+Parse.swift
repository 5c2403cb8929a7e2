extension WineRegistry {
  /// The most a file may hold: a fresh prefix's `system.reg` is a few megabytes.
  public static let maximumBytes = 256 << 20

  /// Reads a Wine registry file as Wine's `load_registry` does: the header line, then lines
  /// that are blank, `;` comments, `#` options (`#arch=`, `#time=`, `#class=`, `#link`), a
  /// key's `[path] time` (or no time, or more numbers after it, which Wine ignores), or a
  /// value, `"name"=` or `@=` followed by `"text"`,
  /// `str(N):"text"`, `dword:hex` or `hex:`/`hex(N):` bytes continued over lines by a final
  /// `\`. Names and text take Wine's escapes (`\\`, `\"`, `\]`, `\n`, `\x263a`, `\012`…).
  /// Anything else is refused with its line: a value before any key, an unterminated name,
  /// bad hex, invalid UTF-8.
  public static func parse(_ bytes: some Collection<UInt8>) throws(WineRegistryError) -> WineRegistry {
    guard bytes.count <= maximumBytes else { throw .tooLarge(bytes: bytes.count, limit: maximumBytes) }
    var reader = WineRegistryReader(bytes: Array(bytes))
    return try reader.registry()
  }
}

/// The line-by-line reader behind `WineRegistry.parse`.
private struct WineRegistryReader {
  let bytes: [UInt8]
  /// Where the current line starts, and its number.
  var position = 0
  var line = 1

  init(bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// The section being read: where it started, its path, values and content so far.
  struct Open {
    var start: Int
    var path: String
    var values: [WineRegistry.Value] = []
    var content: [UInt8]
  }

  mutating func registry() throws(WineRegistryError) -> WineRegistry {
    let first = lineEnd(from: 0)
    guard trimmed(0, first.content) == Array(WineRegistry.header.utf8) else {
      throw .malformed(
        line: 1, reason: "not a Wine registry file (the first line is not '\(WineRegistry.header)')")
    }
    position = first.next
    line = 2
    var preambleEnd: Int?
    var sections: [WineRegistry.Section] = []
    var open: Open?
    while position < bytes.count {
      let end = lineEnd(from: position)
      var start = position
      while start < end.content, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") {
        start += 1
      }
      let lineStart = position
      let lineNumber = line
      var next = end.next
      let body = trimmed(start, end.content)
      switch body.first {
      case nil, UInt8(ascii: ";"):
        break
      case UInt8(ascii: "#"):
        if var section = open, !body.starts(with: Array("#time=".utf8)) {
          section.content += body + [UInt8(ascii: "\n")]
          open = section
        }
      case UInt8(ascii: "["):
        if let section = open { sections.append(close(section, at: lineStart)) }
        if preambleEnd == nil { preambleEnd = lineStart }
        open = try key(body, line: lineNumber, start: lineStart)
      case UInt8(ascii: "\""), UInt8(ascii: "@"):
        guard var section = open else {
          throw .malformed(line: lineNumber, reason: "a value before any [key]")
        }
        let value = try self.value(from: start, end: end, line: lineNumber)
        section.values.append(value.value)
        section.content += trimmed(start, value.end) + [UInt8(ascii: "\n")]
        open = section
        next = value.next
        line += value.extraLines
      default:
        throw .malformed(line: lineNumber, reason: "a line that is no key, value, option or comment")
      }
      position = next
      line += 1
    }
    if let section = open { sections.append(close(section, at: bytes.count)) }
    return WineRegistry(preamble: Array(bytes[0..<(preambleEnd ?? bytes.count)]), sections: sections)
  }

  private func close(_ open: Open, at end: Int) -> WineRegistry.Section {
    WineRegistry.Section(
      path: open.path, values: open.values, raw: Array(bytes[open.start..<end]), content: open.content)
  }

  /// Where the line from `start` ends: before its `\n` (and a `\r` before it), and where the
  /// next line starts.
  private func lineEnd(from start: Int) -> (content: Int, next: Int) {
    var end = start
    while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
    let next = end < bytes.count ? end + 1 : end
    return (end > start && bytes[end - 1] == UInt8(ascii: "\r") ? end - 1 : end, next)
  }

  /// The bytes from `start` to `end` without trailing blanks.
  private func trimmed(_ start: Int, _ end: Int) -> [UInt8] {
    var end = end
    while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") {
      end -= 1
    }
    return Array(bytes[start..<end])
  }

  /// `[path]` and its time: the path up to its unescaped `]`, then numbers separated by blanks.
  /// Wine has always written one, the key's time (`] %ld`; today `] %u` with a `#time=` line
  /// below), and reads the first number when there is one, ignoring the rest of the line: so
  /// a key with no number, or with a second one (`] 1136563720 0`), loads in Wine as well.
  /// Anything else after the `]` is refused.
  private func key(_ body: [UInt8], line: Int, start: Int) throws(WineRegistryError) -> Open {
    let name = try WineRegistryText.unescape(body, from: 1, until: UInt8(ascii: "]"), line: line)
    let numbers = body[(name.end + 1)...].split { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
    guard numbers.allSatisfy(Self.isNumber) else {
      throw .malformed(line: line, reason: "a key's line holds more than its path and its time")
    }
    let path = String(decoding: name.units, as: UTF16.self)
    guard !path.isEmpty else { throw .malformed(line: line, reason: "a key with an empty path") }
    return Open(start: start, path: path, content: Array(body[0...name.end]) + [UInt8(ascii: "\n")])
  }

  /// Whether `text` is a decimal number, `-` allowed before it (as C's `%ld` writes a time).
  private static func isNumber(_ text: ArraySlice<UInt8>) -> Bool {
    let digits = text.first == UInt8(ascii: "-") ? text.dropFirst() : text
    return !digits.isEmpty && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
  }

  /// A value from `start` (its `"name"` or `@`): the value, where its last line ends, how many
  /// lines after the first it took (a `hex:` value continues over lines) and where the next
  /// line begins.
  private func value(
    from start: Int, end: (content: Int, next: Int), line: Int
  ) throws(WineRegistryError) -> (value: WineRegistry.Value, end: Int, extraLines: Int, next: Int) {
    let body = trimmed(start, end.content)
    var name: String?
    var index: Int
    if body[0] == UInt8(ascii: "@") {
      index = 1
    } else {
      let unescaped = try WineRegistryText.unescape(body, from: 1, until: UInt8(ascii: "\""), line: line)
      name = String(decoding: unescaped.units, as: UTF16.self)
      index = unescaped.end + 1
    }
    guard index < body.count, body[index] == UInt8(ascii: "=") else {
      throw .malformed(line: line, reason: "a value's name not followed by '='")
    }
    var text = Array(body[(index + 1)...])
    var current = end
    var extraLines = 0
    while text.starts(with: Array("hex".utf8)), text.last == UInt8(ascii: "\\") {
      text.removeLast()
      guard current.next < bytes.count else {
        throw .malformed(line: line + extraLines, reason: "a hex value continued past the end of the file")
      }
      let lineStart = current.next
      current = lineEnd(from: lineStart)
      extraLines += 1
      var first = lineStart
      while first < current.content, bytes[first] == UInt8(ascii: " ") || bytes[first] == UInt8(ascii: "\t") {
        first += 1
      }
      text += trimmed(first, current.content)
    }
    let data = try WineRegistryText.data(text, line: line)
    return (WineRegistry.Value(name: name, data: data), current.content, extraLines, current.next)
  }
}
