#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The block style the manifest's writer emits, read straight from its bytes as YAML events:
/// one key or sequence item per line, indented with spaces, plain or double-quoted scalars on
/// one line, `{}` and `[]` as empty values. Several times faster than libyaml on the 17 MB
/// manifest, since it makes no tokens and copies nothing it is not asked for.
///
/// It takes only that subset, and reads it as libyaml does. Anything else (a comment, a tab,
/// a carriage return, a comment after a value, a flow collection with items, an anchor, alias or tag, a single-quoted
/// or multi-line scalar, a second document, a byte that is not printable UTF-8, a key libyaml
/// would not take as a simple key) throws `YAMLError.unexpected`, and the caller reads the text
/// with `YAMLEventReader` instead: libyaml's verdict and its errors stand for all of it.
final class YAMLBlockScanner: YAMLEventSource {
  private struct Event {
    var kind: YAMLEventKind
    /// A scalar's bytes in the input, when they are its text as they are.
    var start = 0
    var end = 0
    /// A scalar's text when escapes made it differ from its bytes.
    var decoded: [UInt8]?
  }

  private enum Phase { case stream, document, body, ended }

  private let bytes: UnsafeBufferPointer<UInt8>
  private let depthLimit: Int
  @exclusivity(unchecked) private var phase = Phase.stream
  /// Where the next line starts.
  @exclusivity(unchecked) private var position = 0
  /// The open collections: a mapping's keys, or a sequence's dashes, are at `indent`.
  @exclusivity(unchecked) private var stack: [(indent: Int, isMapping: Bool)] = []
  /// The indent of the mapping whose last key's value is on the lines below (-1: the
  /// document's own value); nil when none is awaited.
  @exclusivity(unchecked) private var awaited: Int? = -1
  @exclusivity(unchecked) private var queue: [Event] = []
  @exclusivity(unchecked) private var head = 0
  @exclusivity(unchecked) private var current = Event(kind: .streamStart)
  @exclusivity(unchecked) private(set) var depth = 0

  /// libyaml takes a simple key of at most 1,024 characters; a longer one is left to it.
  private static let keyLimit = 1000
  // The state above is only ever used by one caller at a time, through `next()`: its
  // accesses are not checked at run time (they cost more than the scanning itself).

  init(_ bytes: UnsafeBufferPointer<UInt8>, depthLimit: Int) {
    self.bytes = bytes
    self.depthLimit = depthLimit
    queue.reserveCapacity(16)
  }

  func next() throws(YAMLError) -> YAMLEventKind {
    if head == queue.count {
      queue.removeAll(keepingCapacity: true)
      head = 0
      try fill()
    }
    current = queue[head]
    head += 1
    switch current.kind {
    case .mappingStart, .sequenceStart:
      depth += 1
      guard depth <= depthLimit else { throw refusal }
    case .mappingEnd, .sequenceEnd:
      depth -= 1
    default: break
    }
    return current.kind
  }

  var text: String {
    guard current.kind == .scalar else { return "" }
    if let decoded = current.decoded { return String(decoding: decoded, as: UTF8.self) }
    return String(decoding: UnsafeBufferPointer(rebasing: bytes[current.start..<current.end]), as: UTF8.self)
  }

  func isText(_ literal: StaticString) -> Bool {
    guard current.kind == .scalar else { return false }
    let wanted = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
    if let decoded = current.decoded { return decoded.elementsEqual(wanted) }
    guard current.end - current.start == wanted.count else { return false }
    guard let base = bytes.baseAddress, wanted.count > 0 else { return true }
    return memcmp(base + current.start, literal.utf8Start, wanted.count) == 0
  }

  func unexpected(_ what: String) -> YAMLError { .unexpected(what, line: 0, column: 0) }

  /// What is thrown for text outside the subset.
  private var refusal: YAMLError { unexpected("not the manifest's block style") }

  // MARK: Lines

  private func emit(_ kind: YAMLEventKind) { queue.append(Event(kind: kind)) }

  /// Queues the next events: at least one, up to the end of the stream.
  private func fill() throws(YAMLError) {
    switch phase {
    case .stream:
      emit(.streamStart)
      phase = .document
    case .document:
      guard Self.isPrintable(bytes) else { throw refusal }
      // Comments and blank lines, then the document's `---` when it has one.
      var start = 0
      while start < bytes.count {
        let end = lineEnd(from: start)
        var content = start
        while content < end && bytes[content] == UInt8(ascii: " ") { content += 1 }
        if content < end && bytes[content] != UInt8(ascii: "#") {
          if content == start && end - start == 3 && startsWith("---", at: start) { position = end + 1 }
          break
        }
        start = end + 1
      }
      emit(.documentStart)
      phase = .body
    case .body:
      while head == queue.count {
        guard position < bytes.count else { return try finish() }
        let start = position
        let end = lineEnd(from: start)
        position = end + 1
        var content = start
        while content < end && bytes[content] == UInt8(ascii: " ") { content += 1 }
        // A blank line, or one of only a comment (no scalar of this style goes on over lines).
        guard content < end, bytes[content] != UInt8(ascii: "#") else { continue }
        if content == start && (startsWith("---", at: start) || startsWith("...", at: start))
          && (start + 3 == end || bytes[start + 3] == UInt8(ascii: " "))
        {
          throw refusal  // a document marker
        }
        try line(indent: content - start, content: content, end: end)
      }
    case .ended:
      throw refusal
    }
  }

  /// The end of the stream: an awaited value is empty, every collection ends.
  private func finish() throws(YAMLError) {
    if let awaited {
      guard awaited >= 0 else { throw refusal }  // an empty document: libyaml says what it is
      emit(.scalar)
      self.awaited = nil
    }
    while let top = stack.popLast() { emit(top.isMapping ? .mappingEnd : .sequenceEnd) }
    emit(.documentEnd)
    emit(.streamEnd)
    phase = .ended
  }

  private func line(indent: Int, content: Int, end: Int) throws(YAMLError) {
    let isDash = startsDash(at: content, end: end)
    if let parent = awaited {
      awaited = nil
      if indent > parent || (indent == parent && isDash) {
        stack.append((indent, !isDash))
        emit(isDash ? .sequenceStart : .mappingStart)
      } else {
        emit(.scalar)  // `key:` and nothing under it: an empty value
      }
    }
    while let top = stack.last, top.indent > indent || (top.indent == indent && !top.isMapping && !isDash) {
      stack.removeLast()
      emit(top.isMapping ? .mappingEnd : .sequenceEnd)
    }
    guard let top = stack.last, top.indent == indent, top.isMapping != isDash else { throw refusal }
    if top.isMapping {
      try keyAndValue(at: content, column: indent, end: end)
      return
    }
    // A sequence item: a scalar, an empty collection, or the first key of a mapping.
    var item = content + 1
    while item < end && bytes[item] == UInt8(ascii: " ") { item += 1 }
    guard item < end, item > content + 1, !startsDash(at: item, end: end) else { throw refusal }
    if let (scalar, after) = try quotedOrPlain(at: item, end: end), isColon(at: after, end: end) {
      stack.append((indent + item - content, true))
      emit(.mappingStart)
      try keyAndValue(at: item, column: indent + item - content, end: end, key: (scalar, after))
    } else {
      try value(at: item, end: end)
    }
  }

  /// `key:` (its value below) or `key: value`, the key at `at`, the mapping's keys at `column`.
  private func keyAndValue(
    at start: Int, column: Int, end: Int, key scanned: (Event, Int)? = nil
  ) throws(YAMLError) {
    var found = scanned
    if found == nil { found = try quotedOrPlain(at: start, end: end) }
    guard let (key, after) = found, isColon(at: after, end: end),
      after - start <= Self.keyLimit
    else { throw refusal }
    queue.append(key)
    var value = after + 1
    while value < end && bytes[value] == UInt8(ascii: " ") { value += 1 }
    if value == end {
      awaited = column
    } else {
      guard value > after + 1 else { throw refusal }
      try self.value(at: value, end: end)
    }
  }

  /// A value on the rest of the line: `{}`, `[]` or a scalar.
  private func value(at start: Int, end: Int) throws(YAMLError) {
    var after: Int
    if startsWith("{}", at: start) || startsWith("[]", at: start) {
      let isMapping = bytes[start] == UInt8(ascii: "{")
      emit(isMapping ? .mappingStart : .sequenceStart)
      emit(isMapping ? .mappingEnd : .sequenceEnd)
      after = start + 2
    } else {
      guard let (scalar, next) = try quotedOrPlain(at: start, end: end), !isColon(at: next, end: end) else {
        throw refusal
      }
      queue.append(scalar)
      after = next
    }
    while after < end && bytes[after] == UInt8(ascii: " ") { after += 1 }
    guard after == end else { throw refusal }
  }

  // MARK: Scalars

  /// The scalar at `start` and where it ends: double-quoted (closed on this line) or plain
  /// (up to a `: `, a `:` at the end of the line, or the end of the line). Nil for a flow
  /// collection; throws for anything else the subset lacks.
  private func quotedOrPlain(at start: Int, end: Int) throws(YAMLError) -> (Event, Int)? {
    let first = bytes[start]
    if first == UInt8(ascii: "\"") { return try quoted(at: start, end: end) }
    if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return nil }
    guard !Self.isIndicator(first) else { throw refusal }
    var index = start
    while index < end {
      let byte = bytes[index]
      if byte == UInt8(ascii: ":") && (index + 1 == end || bytes[index + 1] == UInt8(ascii: " ")) { break }
      if byte == UInt8(ascii: "#") && bytes[index - 1] == UInt8(ascii: " ") { throw refusal }  // a comment
      index += 1
    }
    guard bytes[index - 1] != UInt8(ascii: " ") else { throw refusal }  // trailing spaces
    return (Event(kind: .scalar, start: start, end: index), index)
  }

  /// A double-quoted scalar closed on this line, its escapes decoded as libyaml does.
  private func quoted(at start: Int, end: Int) throws(YAMLError) -> (Event, Int) {
    var index = start + 1
    var decoded: [UInt8]?
    while true {
      guard index < end else { throw refusal }  // not closed on this line
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") { break }
      if byte != UInt8(ascii: "\\") {
        decoded?.append(byte)
        index += 1
        continue
      }
      if decoded == nil { decoded = Array(bytes[(start + 1)..<index]) }
      guard index + 1 < end else { throw refusal }
      let escape = bytes[index + 1]
      index += 2
      if let simple = Self.simpleEscapes[escape] {
        decoded?.append(contentsOf: simple)
        continue
      }
      let digits: Int =
        switch escape {
        case UInt8(ascii: "x"): 2
        case UInt8(ascii: "u"): 4
        case UInt8(ascii: "U"): 8
        default: throw refusal
        }
      guard index + digits <= end else { throw refusal }
      var code: UInt32 = 0
      for digit in bytes[index..<(index + digits)] {
        guard let value = Self.hexValue(digit) else { throw refusal }
        code = code << 4 | value
      }
      index += digits
      guard let scalar = Unicode.Scalar(code) else { throw refusal }
      decoded?.append(contentsOf: String(Character(scalar)).utf8)
    }
    if let decoded { return (Event(kind: .scalar, decoded: decoded), index + 1) }
    return (Event(kind: .scalar, start: start + 1, end: index), index + 1)
  }

  /// The escapes that stand for fixed bytes.
  private static let simpleEscapes: [UInt8: [UInt8]] = {
    var table: [UInt8: [UInt8]] = [:]
    for (escape, text) in [
      ("0", "\u{0}"), ("a", "\u{7}"), ("b", "\u{8}"), ("t", "\t"), ("\t", "\t"), ("n", "\n"), ("v", "\u{B}"),
      ("f", "\u{C}"), ("r", "\r"), ("e", "\u{1B}"), (" ", " "), ("\"", "\""), ("/", "/"), ("\\", "\\"),
      ("N", "\u{85}"), ("_", "\u{A0}"), ("L", "\u{2028}"), ("P", "\u{2029}"),
    ] {
      table[UInt8(ascii: Unicode.Scalar(escape) ?? "?")] = Array(text.utf8)
    }
    return table
  }()

  private static func hexValue(_ digit: UInt8) -> UInt32? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(digit - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(digit - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(digit - UInt8(ascii: "A") + 10)
    default: nil
    }
  }

  /// The characters a plain scalar may not start with (YAML's indicators, and a space).
  private static func isIndicator(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "-"), UInt8(ascii: "?"), UInt8(ascii: ":"), UInt8(ascii: ","), UInt8(ascii: "["),
      UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "#"), UInt8(ascii: "&"),
      UInt8(ascii: "*"), UInt8(ascii: "!"), UInt8(ascii: "|"), UInt8(ascii: ">"), UInt8(ascii: "'"),
      UInt8(ascii: "\""), UInt8(ascii: "%"), UInt8(ascii: "@"), UInt8(ascii: "`"), UInt8(ascii: " "):
      true
    default: false
    }
  }

  // MARK: Bytes

  private func lineEnd(from start: Int) -> Int {
    guard let base = bytes.baseAddress, start < bytes.count,
      let found = memchr(base + start, 0x0A, bytes.count - start)
    else { return bytes.count }
    return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
  }

  private func startsWith(_ literal: StaticString, at start: Int) -> Bool {
    let count = literal.utf8CodeUnitCount
    guard start + count <= bytes.count, let base = bytes.baseAddress else { return false }
    return memcmp(base + start, literal.utf8Start, count) == 0
  }

  private func startsDash(at index: Int, end: Int) -> Bool {
    bytes[index] == UInt8(ascii: "-") && (index + 1 == end || bytes[index + 1] == UInt8(ascii: " "))
  }

  private func isColon(at index: Int, end: Int) -> Bool {
    index < end && bytes[index] == UInt8(ascii: ":")
      && (index + 1 == end || bytes[index + 1] == UInt8(ascii: " "))
  }

  /// Whether `bytes` are valid UTF-8 with no character libyaml refuses or reads as a line break
  /// or a byte order mark: no control character but the line feed, no DEL, no C1 control, no
  /// U+2028, U+2029, U+FEFF, U+FFFE or U+FFFF.
  static func isPrintable(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var index = 0
    let count = bytes.count
    while index < count {
      let byte = bytes[index]
      if byte < 0x80 {
        guard byte >= 0x20 || byte == 0x0A, byte != 0x7F else { return false }
        index += 1
        continue
      }
      let length: Int
      var scalar: UInt32
      switch byte {
      case 0xC2...0xDF: (length, scalar) = (2, UInt32(byte & 0x1F))
      case 0xE0...0xEF: (length, scalar) = (3, UInt32(byte & 0x0F))
      case 0xF0...0xF4: (length, scalar) = (4, UInt32(byte & 0x07))
      default: return false
      }
      guard index + length <= count else { return false }
      for offset in 1..<length {
        let continuation = bytes[index + offset]
        guard continuation & 0xC0 == 0x80 else { return false }
        scalar = scalar << 6 | UInt32(continuation & 0x3F)
      }
      let smallest: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
      guard scalar >= smallest, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar),
        scalar > 0x9F, scalar != 0x2028, scalar != 0x2029, scalar != 0xFEFF, scalar != 0xFFFE,
        scalar != 0xFFFF
      else { return false }
      index += length
    }
    return true
  }
}
