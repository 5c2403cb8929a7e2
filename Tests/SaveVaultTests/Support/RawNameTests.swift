import Testing

@testable import SaveVault

/// The mapping between a file name's bytes and the string SaveVault carries it in.
@Suite("RawName: file name bytes as strings, losslessly", .tags(.small))
struct RawNameTests {
  struct Case: CustomTestStringConvertible, Sendable {
    var label: String
    var bytes: [UInt8]
    /// The string expected, as scalar values.
    var scalars: [UInt32]
    var testDescription: String { label }
  }

  static let cases: [Case] = [
    Case(label: "empty", bytes: [], scalars: []),
    Case(label: "ASCII", bytes: Array("slot 1.sav".utf8), scalars: "slot 1.sav".unicodeScalars.map(\.value)),
    Case(
      label: "valid UTF-8 is itself", bytes: Array("café ✓ 🎮".utf8),
      scalars: "café ✓ 🎮".unicodeScalars.map(\.value)),
    Case(
      label: "Latin-1 é", bytes: Array("caf".utf8) + [0xE9] + Array(".sav".utf8),
      scalars: [0x63, 0x61, 0x66, 0x10FFE9, 0x2E, 0x73, 0x61, 0x76]),
    Case(
      label: "Shift-JIS セーブ", bytes: [0x83, 0x5A, 0x81, 0x5B, 0x83, 0x75],
      scalars: [0x10FF83, 0x5A, 0x10FF81, 0x5B, 0x10FF83, 0x75]),
    Case(
      label: "a real U+10FF80 is escaped byte by byte", bytes: [0x61, 0xF4, 0x8F, 0xBE, 0x80],
      scalars: [0x61, 0x10FFF4, 0x10FF8F, 0x10FFBE, 0x10FF80]),
    Case(
      label: "U+10FF7F, just below the escapes, is itself", bytes: [0xF4, 0x8F, 0xBD, 0xBF],
      scalars: [0x10FF7F]),
    Case(
      label: "U+10FFFF is escaped", bytes: [0xF4, 0x8F, 0xBF, 0xBF],
      scalars: [0x10FFF4, 0x10FF8F, 0x10FFBF, 0x10FFBF]),
    Case(label: "a lone F4 byte", bytes: [0xF4], scalars: [0x10FFF4]),
    Case(
      label: "a surrogate's bytes (CESU) are not UTF-8", bytes: [0xED, 0xA0, 0x80],
      scalars: [0x10FFED, 0x10FFA0, 0x10FF80]),
    Case(label: "an overlong slash is not a slash", bytes: [0xC0, 0xAF], scalars: [0x10FFC0, 0x10FFAF]),
    Case(
      label: "a truncated sequence at the end", bytes: [0x41, 0xE2, 0x9C],
      scalars: [0x41, 0x10FFE2, 0x10FF9C]),
    Case(
      label: "beyond U+10FFFF", bytes: [0xF4, 0x90, 0x80, 0x80],
      scalars: [0x10FFF4, 0x10FF90, 0x10FF80, 0x10FF80]),
  ]

  @Test("bytes become the expected string and come back", arguments: cases)
  func roundTrip(_ item: Case) {
    let string = RawName.string(item.bytes)
    #expect(string.unicodeScalars.map(\.value) == item.scalars)
    #expect(RawName.bytes(string) == item.bytes)
    let viaC = RawName.withCString(string) { pointer in
      RawName.string(cString: pointer)
    }
    #expect(viaC.unicodeScalars.map(\.value) == item.scalars)
  }

  @Test("no two names give the same string")
  func injective() {
    var seen: [[UInt32]: [UInt8]] = [:]
    for item in Self.cases {
      let key = RawName.string(item.bytes).unicodeScalars.map(\.value)
      if let other = seen.updateValue(item.bytes, forKey: key) {
        Issue.record("\(item.bytes) and \(other) give the same string")
      }
    }
    // Every two-byte name: 65,536 names, 65,536 strings.
    var strings = Set<[UInt32]>()
    for first in 0...255 {
      for second in 0...255 {
        let bytes = [UInt8(first), UInt8(second)]
        let string = RawName.string(bytes)
        #expect(RawName.bytes(string) == bytes)
        strings.insert(string.unicodeScalars.map(\.value))
      }
    }
    #expect(strings.count == 65_536)
  }
}
