/// A Wine registry file (`user.reg`, `system.reg`, `userdef.reg` in a Wine or Proton prefix):
/// Wine's text format, `WINE REGISTRY Version 2`, a preamble of comments and `#arch=`, then one
/// section per key, `[Software\\Foo\\Bar] 1700000000` (the key's path, escaped, and when it was
/// last written) with optional `#time=` lines and the key's values.
///
/// Every section keeps its own bytes (`raw`), so a file changed in some keys is written back
/// with every other section byte for byte (`bytes`). These files come from prefixes we do not
/// control, so parsing is bounded and throws `WineRegistryError` with a line number instead of
/// trapping.
public struct WineRegistry: Sendable, Equatable {
  /// The file's first line, the only version Wine reads.
  public static let header = "WINE REGISTRY Version 2"

  /// The bytes before the first section: the header line, `;;` comments, `#arch=`.
  public var preamble: [UInt8]
  /// The keys, in file order (Wine writes them sorted, but a file need not be).
  public var sections: [Section]

  public init(preamble: [UInt8], sections: [Section]) {
    self.preamble = preamble
    self.sections = sections
  }

  /// One key of the file: its path, its values and the bytes that wrote it.
  public struct Section: Sendable, Equatable {
    /// The key's path, unescaped, components joined by `\` (`Software\Foo\Bar`).
    public var path: String
    /// The key's values, in file order.
    public var values: [Value]
    /// The section's bytes, from its `[` line to the next section's (blank lines included).
    public var raw: [UInt8]
    /// What the key holds, without when it was written: its path line without the timestamp
    /// and its lines other than `#time=` and blank ones. Two sections with the same content
    /// hold the same values.
    public var content: [UInt8]
  }

  /// One value of a key.
  public struct Value: Sendable, Equatable {
    /// The value's name; nil for the key's default value (`@`).
    public var name: String?
    public var data: Data
  }

  /// A value's data as Wine writes it.
  public enum Data: Sendable, Equatable {
    /// `"text"` (REG_SZ, type 1) or `str(N):"text"`, as UTF-16 code units.
    case string(type: UInt32, [UInt16])
    /// `dword:0000002a`.
    case dword(UInt32)
    /// `hex:00,ff` (REG_BINARY) or `hex(N):…` for type N; nil type is plain `hex:`.
    case hex(type: UInt32?, [UInt8])
  }

  /// The file's bytes: the preamble and every section's, a newline put between two sections
  /// only where the one before lacks its final newline.
  public var bytes: [UInt8] {
    var output = preamble
    for section in sections {
      if let last = output.last, last != UInt8(ascii: "\n") { output.append(UInt8(ascii: "\n")) }
      output += section.raw
    }
    return output
  }

  /// The sections of `key` and of every key under it, in file order. Keys are compared as
  /// Windows does, without case.
  public func sections(under key: String) -> [Section] {
    sections.filter { Self.path($0.path, isAtOrUnder: key) }
  }

  /// This file with the sections of `keys` (each with its subkeys) replaced by `replacements`:
  /// every other section stays as it is, in its place. The replacements go where the first
  /// replaced section was, else before the first section that sorts after them.
  public func replacing(keys: [String], with replacements: [Section]) -> WineRegistry {
    let isReplaced = { (section: Section) in keys.contains { Self.path(section.path, isAtOrUnder: $0) } }
    var kept: [Section] = []
    var insertion: Int?
    for section in sections {
      if isReplaced(section) {
        if insertion == nil { insertion = kept.count }
      } else {
        kept.append(section)
      }
    }
    let first = replacements.first.map { Self.sortKey($0.path) }
    let place =
      insertion ?? first.flatMap { first in kept.firstIndex { Self.sortKey($0.path) > first } } ?? kept.count
    // Each one ends in a blank line, as Wine separates sections, unless it ends the file.
    let atEnd = place == kept.count
    let placed = replacements.enumerated().map { offset, section in
      atEnd && offset == replacements.count - 1 ? section : section.separated
    }
    kept.insert(contentsOf: placed, at: place)
    return WineRegistry(preamble: preamble, sections: kept)
  }

  /// Whether `path` is `key` or a key under it, without case.
  public static func path(_ path: String, isAtOrUnder key: String) -> Bool {
    let path = sortKey(path)
    let key = sortKey(key)
    return path == key || path.hasPrefix(key + "\\")
  }

  private static func sortKey(_ path: String) -> String { path.lowercased() }
}

extension WineRegistry.Section {
  /// The section ending in a blank line, as Wine separates sections (unchanged if it does).
  var separated: Self {
    var copy = self
    while copy.raw.last != UInt8(ascii: "\n") || copy.raw.dropLast().last != UInt8(ascii: "\n") {
      copy.raw.append(UInt8(ascii: "\n"))
    }
    return copy
  }
}

/// Why a Wine registry file was refused; `line` is 1-based.
public enum WineRegistryError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The text breaks Wine's format at `line`.
  case malformed(line: Int, reason: String)
  /// The file is longer than the limit.
  case tooLarge(bytes: Int, limit: Int)

  public var description: String {
    switch self {
    case .malformed(let line, let reason): "line \(line): \(reason)"
    case .tooLarge(let bytes, let limit): "\(bytes) bytes, more than the \(limit) a registry file may have"
    }
  }
}
