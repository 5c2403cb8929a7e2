import Foundation
import Testing

@testable import SaveVault

/// Real `shortcuts.vdf` files, kept in Tests/Fixtures/shortcuts/ as published:
/// - `magiusche-shortcuts.vdf` and `magiusche-shortcuts_1.vdf` (a Steam Deck's, with Steam ROM
///   Manager's emulator shortcuts): https://github.com/MagiusCHE/steam-shortcuts-editor,
///   `examples/shortcuts.vdf` and `examples/shortcuts_1.vdf` at commit
///   b9f4fa4aaea9428e89077904fa46440dcef4db1a;
/// - `erikh-shortcuts.vdf` (an older Windows file: lowercase `exe`, no `appid`):
///   https://github.com/erikh/steam-shortcut-rs, `shortcuts.vdf` at commit
///   6557632e20fb1d46509b98a51149a41cce74b842.
@Suite("Binary KeyValues: Steam's shortcuts.vdf read, written back and refused with an offset", .tags(.small))
struct BinaryKeyValuesTests {
  static func bytes(_ name: String) throws -> [UInt8] {
    try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture("shortcuts/" + name))))
  }

  static let files = ["magiusche-shortcuts.vdf", "magiusche-shortcuts_1.vdf", "erikh-shortcuts.vdf"]

  @Test("a real file reads as its shortcuts, and writes back byte for byte", arguments: files)
  func realFile(_ name: String) throws {
    let bytes = try Self.bytes(name)
    let parsed = try BinaryKeyValues.parse(bytes)
    let shortcuts = try #require(parsed.map("shortcuts"))
    #expect(!shortcuts.entries.isEmpty)
    #expect(shortcuts.entries.map(\.key) == (0..<shortcuts.entries.count).map(String.init))
    #expect(parsed.written == bytes, "written back unchanged")
  }

  @Test("the app id is a signed 32-bit integer; its compatdata folder names it unsigned")
  func appIDs() throws {
    let ark = try #require(
      try BinaryKeyValues.parse(Self.bytes("magiusche-shortcuts.vdf")).map("shortcuts")?.map("0"))
    #expect(ark.string("AppName") == "Ark")
    #expect(ark.int32("appid") == Int32(bitPattern: 0xF5C8_6483))
    #expect(ark.string("LaunchOptions") == "pippo lino")

    let deck = try #require(
      try BinaryKeyValues.parse(Self.bytes("magiusche-shortcuts_1.vdf")).map("shortcuts"))
    let names = deck.entries.compactMap { entry -> String? in
      guard case .map(let shortcut) = entry.value else { return nil }
      return shortcut.string("AppName")
    }
    #expect(
      names.count == 18 && names.contains("Elden Ring") && names.first == "Super Mario Odyssey", "\(names)")
    // Lowercase keys in this file: looked up without case.
    let mario = try #require(deck.map("0"))
    let id = try #require(mario.int32("appid"))
    #expect(id < 0 && String(UInt32(bitPattern: id)) == "4173909563")
    // Steam names the shortcut's artwork by the same unsigned id.
    #expect(mario.string("icon")?.hasSuffix("/4173909563_icon.png") == true)
    #expect(mario.map("tags")?.string("0") != nil)

    let old = try #require(try BinaryKeyValues.parse(Self.bytes("erikh-shortcuts.vdf")).map("shortcuts"))
    #expect(old.map("0")?.string("appname") == "Attract Mode" && old.map("0")?.int32("appid") == nil)
  }

  @Test("every cut-off prefix of a real file is refused, never read in part", arguments: files)
  func truncated(_ name: String) throws {
    let bytes = try Self.bytes(name)
    for length in 0..<bytes.count {
      #expect(throws: BinaryKeyValuesError.self, "cut at \(length)") {
        try BinaryKeyValues.parse(bytes[0..<length])
      }
    }
  }

  struct Refused: CustomTestStringConvertible, Sendable {
    var name: String
    var bytes: [UInt8]
    var testDescription: String { name }
  }

  static let refused: [Refused] = [
    Refused(
      name: "an unknown type", bytes: [0x00] + Array("s".utf8) + [0, 0x07] + Array("k".utf8) + [0, 8, 8]),
    Refused(name: "bytes after the end", bytes: [0x01, 0x6B, 0, 0x76, 0, 0x08, 0x00]),
    Refused(name: "a string without its NUL", bytes: [0x01, 0x6B, 0, 0x76]),
    Refused(name: "an integer cut short", bytes: [0x02, 0x6B, 0, 1, 2]),
    Refused(
      name: "maps nested too deep", bytes: Array(repeating: [0x00, 0x6B, 0], count: 100).flatMap { $0 }),
  ]

  @Test("malformed files are refused whole", arguments: refused)
  func refusal(_ input: Refused) {
    #expect(throws: BinaryKeyValuesError.self) { try BinaryKeyValues.parse(input.bytes) }
  }

  @Test("the fuzz target's seeds are the real files")
  func fuzzSeeds() throws {
    for name in Self.files {
      let seed = repositoryRoot + "/fuzz/corpus/binarykeyvalues/" + name
      #expect(FileManager.default.contents(atPath: seed) == Data(try Self.bytes(name)), "\(name)")
    }
  }
}
