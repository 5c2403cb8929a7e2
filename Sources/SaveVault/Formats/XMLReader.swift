import Foundation

/// A parsed XML element: name, text and children. Enough for S3's small response documents.
struct XMLNode: Sendable, Equatable {
  var name: String
  var text: String = ""
  var children: [XMLNode] = []

  /// The first child named `name`.
  func child(_ name: String) -> XMLNode? { children.first { $0.name == name } }
  /// Every child named `name`.
  func all(_ name: String) -> [XMLNode] { children.filter { $0.name == name } }
  /// The text of the first child named `name`.
  func value(_ name: String) -> String? { child(name)?.text }

  /// Parses `data` with `XMLReader`; nil if it is not a well-formed document.
  static func parse(_ data: Data) -> XMLNode? { XMLReader.parse(data) }
}

/// Reads the small XML documents S3 answers with into an `XMLNode` tree. We read XML ourselves
/// so that the binary does not link FoundationXML, nor through it libxml2 and ICU.
///
/// It reads UTF-8 only, and what S3 sends: a declaration and other processing instructions
/// (skipped), comments (skipped), elements with attributes (checked, then ignored), names as
/// written (`ns:Key` stays `ns:Key`), text with the five predefined entities and character
/// references, and CDATA sections. It refuses what a document type could do (any `<!DOCTYPE`,
/// so no entity expansion), unknown entities, malformed or mismatched tags, anything but
/// whitespace, comments and processing instructions around the root, and nesting deeper than
/// `maxDepth`. Text is kept as XMLParser reported it: every piece of character data, whitespace
/// between children included, goes into its element's text, with line ends read as `\n`.
struct XMLReader {
  /// Deeper nesting is refused: S3's documents are four levels deep at most.
  static let maxDepth = 64

  private struct Refused: Error {}

  private let bytes: [UInt8]
  private var at = 0

  private init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// The document's root element, or nil if `data` is not a well-formed document.
  static func parse(_ data: Data) -> XMLNode? {
    guard let text = String(validating: data, as: UTF8.self),
      text.unicodeScalars.allSatisfy(isXMLCharacter)
    else { return nil }
    var reader = XMLReader([UInt8](data))
    if reader.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.at = 3 }
    return try? reader.document()
  }

  /// XML 1.0's `Char`: no control characters but tab and line ends, no U+FFFE or U+FFFF.
  private static func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
    default: return false
    }
  }

  /// The root element; what comes before and after it may only be whitespace, comments and
  /// processing instructions.
  private mutating func document() throws -> XMLNode {
    var open: [(name: ArraySlice<UInt8>, node: XMLNode)] = []
    var root: XMLNode?
    while at < bytes.count {
      if !starts("<") {
        var text: [UInt8] = []
        try characters(into: &text)
        if open.isEmpty {
          guard text.allSatisfy(Self.isSpace) else { throw Refused() }
        } else {
          open[open.count - 1].node.text += String(decoding: text, as: UTF8.self)
        }
      } else if starts("<!--") {
        try comment()
      } else if starts("<?") {
        try instruction()
      } else if starts("<![CDATA[") {
        guard !open.isEmpty, let end = find("]]>", from: at + 9) else { throw Refused() }
        open[open.count - 1].node.text += String(decoding: bytes[at + 9..<end], as: UTF8.self)
        at = end + 3
      } else if starts("<!") {
        throw Refused()  // a DOCTYPE or other declaration
      } else if starts("</") {
        at += 2
        let name = try self.name()
        skipSpace()
        guard let last = open.popLast(), last.name == name, take(">") else { throw Refused() }
        if open.isEmpty { root = last.node } else { open[open.count - 1].node.children.append(last.node) }
      } else {
        guard root == nil, open.count < Self.maxDepth else { throw Refused() }
        at += 1
        let name = try self.name()
        let empty = try attributes()
        let node = XMLNode(name: String(decoding: name, as: UTF8.self))
        if !empty {
          open.append((name, node))
        } else if open.isEmpty {
          root = node
        } else {
          open[open.count - 1].node.children.append(node)
        }
      }
    }
    guard open.isEmpty, let root else { throw Refused() }
    return root
  }

  /// Skips a tag's attributes (each `name="value"` once, no `<` in a value) up to `>` or
  /// `/>`; true for `/>`.
  private mutating func attributes() throws -> Bool {
    var seen: Set<ArraySlice<UInt8>> = []
    while true {
      let spaced = skipSpace()
      if take("/>") { return true }
      if take(">") { return false }
      guard spaced else { throw Refused() }
      guard seen.insert(try name()).inserted else { throw Refused() }
      skipSpace()
      guard take("=") else { throw Refused() }
      skipSpace()
      guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") || bytes[at] == UInt8(ascii: "'") else {
        throw Refused()
      }
      let quote = bytes[at]
      at += 1
      var ignored: [UInt8] = []
      while at < bytes.count, bytes[at] != quote {
        guard bytes[at] != UInt8(ascii: "<") else { throw Refused() }
        if bytes[at] == UInt8(ascii: "&") { try reference(into: &ignored) } else { at += 1 }
      }
      guard at < bytes.count else { throw Refused() }
      at += 1
    }
  }

  /// Character data up to the next `<`: references replaced, `\r\n` and `\r` read as `\n`.
  private mutating func characters(into text: inout [UInt8]) throws {
    while at < bytes.count, bytes[at] != UInt8(ascii: "<") {
      switch bytes[at] {
      case UInt8(ascii: "&"): try reference(into: &text)
      case UInt8(ascii: "\r"):
        text.append(UInt8(ascii: "\n"))
        at += starts("\r\n") ? 2 : 1
      case UInt8(ascii: "]") where starts("]]>"): throw Refused()
      default:
        text.append(bytes[at])
        at += 1
      }
    }
  }

  /// `&lt;`, `&gt;`, `&amp;`, `&apos;`, `&quot;`, `&#N;` or `&#xH;`, appended as UTF-8. Any
  /// other entity, and a reference to what is not an XML character, is refused.
  private static let entities: [String: UInt8] = [
    "lt": 0x3C, "gt": 0x3E, "amp": 0x26, "apos": 0x27, "quot": 0x22,
  ]

  private mutating func reference(into text: inout [UInt8]) throws {
    guard let end = bytes[at...].prefix(32).firstIndex(of: UInt8(ascii: ";")) else { throw Refused() }
    let body = bytes[(at + 1)..<end]
    at = end + 1
    if let byte = Self.entities[String(decoding: body, as: UTF8.self)] {
      text.append(byte)
      return
    }
    guard body.first == UInt8(ascii: "#") else { throw Refused() }
    let hex = body.dropFirst().first == UInt8(ascii: "x")
    let digits = String(decoding: body.dropFirst(hex ? 2 : 1), as: UTF8.self)
    guard !digits.isEmpty, digits.allSatisfy({ hex ? $0.isHexDigit : $0.isASCII && $0.isNumber }),
      let value = UInt32(digits, radix: hex ? 16 : 10), let scalar = Unicode.Scalar(value),
      Self.isXMLCharacter(scalar)
    else { throw Refused() }
    text.append(contentsOf: String(Character(scalar)).utf8)
  }

  /// Skips `<!-- … -->`; `--` may not appear inside.
  private mutating func comment() throws {
    guard let dashes = find("--", from: at + 4), dashes + 2 < bytes.count,
      bytes[dashes + 2] == UInt8(ascii: ">")
    else { throw Refused() }
    at = dashes + 3
  }

  /// Skips `<?target … ?>`, the XML declaration among them (which may only open the document).
  private mutating func instruction() throws {
    let opening = at
    at += 2
    let target = String(decoding: try name(), as: UTF8.self)
    guard target.lowercased() != "xml" || opening == (bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0) else {
      throw Refused()
    }
    guard let end = find("?>", from: at) else { throw Refused() }
    at = end + 2
  }

  /// A name as written, prefix and all. Any byte above ASCII counts as a name character.
  private mutating func name() throws -> ArraySlice<UInt8> {
    let start = at
    while at < bytes.count, Self.isNameByte(bytes[at], first: at == start) { at += 1 }
    guard at > start else { throw Refused() }
    return bytes[start..<at]
  }

  private static func isNameByte(_ byte: UInt8, first: Bool) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"),
      UInt8(ascii: ":"), 0x80...0xFF:
      return true
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."): return !first
    default: return false
    }
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x9 || byte == 0xA || byte == 0xD
  }

  /// Skips whitespace; true if there was any.
  @discardableResult
  private mutating func skipSpace() -> Bool {
    let start = at
    while at < bytes.count, Self.isSpace(bytes[at]) { at += 1 }
    return at > start
  }

  private func starts(_ literal: String) -> Bool { bytes[at...].starts(with: literal.utf8) }

  private mutating func take(_ literal: String) -> Bool {
    guard starts(literal) else { return false }
    at += literal.utf8.count
    return true
  }

  /// Where `literal` next begins at or after `from`.
  private func find(_ literal: String, from: Int) -> Int? {
    let needle = Array(literal.utf8)
    guard let first = needle.first, from <= bytes.count else { return nil }
    var index = from
    while let next = bytes[index...].firstIndex(of: first) {
      if bytes[next...].starts(with: needle) { return next }
      index = next + 1
    }
    return nil
  }
}
