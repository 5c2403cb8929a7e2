import Foundation
import Testing

@testable import SaveVault

/// Real Wine registry files, kept in Tests/Fixtures/wine-registry/ as published:
/// - `winecfg-user.reg` and `winecfg-userdef.reg` (a Steam Deck's Wine 9 prefix, with `\x`
///   escapes in a key's name and `str(2):` values): https://github.com/Chriss316/WineCFG,
///   `user.reg` and `userdef.reg` at commit 5d0a97e7e88ec5703901f836236213e5bd93e22d;
/// - `perfect-world-user.reg` and `perfect-world-system.reg` (a Wine 5 prefix: 1,512 keys of
///   `HKEY_LOCAL_MACHINE`, `str(7):` values): https://github.com/honzatlusty/docker-perfect-world,
///   `user.reg` and `system.reg` at commit 29b9240cbbb4bce44058cca81d917f847ca83176;
/// - `wineqq-user.reg` and `wineqq-system.reg` (a Wine prefix of 2012 to 2014, written before
///   Wine put a `#time=` line under each key: `[key] 1398405942` alone):
///   https://github.com/kissthink/WineQQlibs, `.wine/user.reg` and `.wine/system.reg` at commit
///   6da14b82876b15aa250ee86c8a82afdce7265abe.
@Suite(
  "Wine registry files: read, written back byte for byte, keys merged, refused with a line", .tags(.small))
struct WineRegistryTests {
  static func bytes(_ name: String) throws -> [UInt8] {
    try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture("wine-registry/" + name))))
  }

  static let files = [
    "winecfg-user.reg", "winecfg-userdef.reg", "perfect-world-user.reg", "perfect-world-system.reg",
    "wineqq-user.reg", "wineqq-system.reg",
  ]

  @Test("a real file reads as its keys and writes back byte for byte", arguments: files)
  func realFile(_ name: String) throws {
    let bytes = try Self.bytes(name)
    let registry = try WineRegistry.parse(bytes)
    let headers = String(decoding: bytes, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("[") }
    #expect(registry.sections.count == headers.count)
    #expect(registry.bytes == bytes)
    #expect(String(decoding: registry.preamble, as: UTF8.self).hasPrefix("WINE REGISTRY Version 2\n"))
  }

  @Test("values read as Wine wrote them: text, str(N), dword, hex over several lines, escapes")
  func values() throws {
    let user = try WineRegistry.parse(Self.bytes("winecfg-user.reg"))
    let globes = try #require(
      user.sections.first { $0.path.hasPrefix("Control Panel\\International\\\u{1F30E}") })
    #expect(globes.path == "Control Panel\\International\\\u{1F30E}\u{1F30F}\u{1F30D}")
    #expect(globes.values == [.init(name: "Currencies", data: .string(type: 1, Array("USD".utf16)))])

    let metrics = try #require(user.sections(under: "control panel\\desktop\\windowmetrics").first)
    let caption = try #require(metrics.values.first { $0.name == "CaptionFont" })
    guard case .hex(nil, let font) = caption.data else { Issue.record("\(caption)"); return }
    #expect(font.count == 92 && font.prefix(4) == [0xF5, 0xFF, 0xFF, 0xFF])
    #expect(metrics.values.first { $0.name == "BorderWidth" }?.data == .string(type: 1, Array("1".utf16)))

    let desktop = try #require(user.sections.first { $0.path == "Control Panel\\Desktop" })
    #expect(desktop.values.first { $0.name == "CaretWidth" }?.data == .dword(1))
    let folders = try #require(
      user.sections.first { $0.path.hasSuffix("Explorer\\User Shell Folders") }?.values.first {
        $0.name == "AppData"
      })
    #expect(folders.data == .string(type: 2, Array("%USERPROFILE%\\AppData\\Roaming".utf16)))
    let environment = try #require(user.sections.first { $0.path == "Environment" })
    #expect(
      environment.values.first { $0.name == "TEMP" }?.data
        == .string(type: 1, Array("C:\\users\\deck\\Temp".utf16)))

    let system = try WineRegistry.parse(Self.bytes("perfect-world-system.reg"))
    let substitutes = try #require(system.sections.first { $0.values.contains { $0.name == "Tahoma" } })
    let tahoma = try #require(substitutes.values.first { $0.name == "Tahoma" })
    guard case .string(7, let units) = tahoma.data else { Issue.record("\(tahoma)"); return }
    #expect(String(decoding: units, as: UTF16.self).split(separator: "\0").count == 4)
    #expect(system.sections.contains { $0.values.contains { $0.name == nil } }, "default values (@=)")
  }

  @Test("a key's sections are it and its subkeys, without case, never a sibling sharing its prefix")
  func sectionsUnderAKey() throws {
    let user = try WineRegistry.parse(Self.bytes("winecfg-user.reg"))
    let accessibility = user.sections(under: "CONTROL PANEL\\accessibility").map(\.path)
    #expect(
      accessibility == [
        "Control Panel\\Accessibility\\AudioDescription", "Control Panel\\Accessibility\\Blind Access",
        "Control Panel\\Accessibility\\Keyboard Preference", "Control Panel\\Accessibility\\ShowSounds",
      ])
    #expect(user.sections(under: "Control Panel\\Desk").isEmpty)
    #expect(user.sections(under: "Control Panel\\Desktop").count == 2)
  }

  @Test("a key's content leaves out when it was written: a rewrite with new timestamps has the same content")
  func contentWithoutTimestamps() throws {
    let text = Self.text(Self.sample)
    let retimed = Self.text(
      Self.sample.replacingOccurrences(of: "1700000000", with: "1800000000").replacingOccurrences(
        of: "#time=1d9e0a0b0c0d0e0", with: "#time=1da00000000000f"))
    let before = try WineRegistry.parse(text).sections(under: "Software\\Game")
    let after = try WineRegistry.parse(retimed).sections(under: "Software\\Game")
    #expect(before.map(\.content) == after.map(\.content))
    #expect(before.map(\.raw) != after.map(\.raw))
    let changed = try WineRegistry.parse(
      Self.text(Self.sample.replacingOccurrences(of: "dword:00000003", with: "dword:00000004")))
    #expect(changed.sections(under: "Software\\Game").map(\.content) != before.map(\.content))
  }

  @Test("replacing a key's sections keeps every other section byte for byte, in its place")
  func replacing() throws {
    let original = try WineRegistry.parse(Self.bytes("winecfg-user.reg"))
    let edited = try WineRegistry.parse(
      Self.text(
        Self.sample.replacingOccurrences(
          of: "Software\\\\Game", with: "Software\\\\Microsoft\\\\Internet Explorer")))
    let replacement = edited.sections(under: "Software\\Microsoft\\Internet Explorer")
    #expect(replacement.count == 2)
    let merged = original.replacing(keys: ["software\\microsoft\\internet explorer"], with: replacement)
    let reread = try WineRegistry.parse(merged.bytes)
    #expect(
      reread.sections(under: "Software\\Microsoft\\Internet Explorer").map(\.content)
        == replacement.map(\.content))
    let others = { (registry: WineRegistry) in
      registry.sections.filter {
        !WineRegistry.path($0.path, isAtOrUnder: "Software\\Microsoft\\Internet Explorer")
      }
    }
    #expect(others(reread).map(\.raw) == others(original).map(\.raw))
    #expect(reread.sections.count == original.sections.count - 3 + 2)
    // The first replaced key's place: just after the sections before it.
    let place = try #require(
      reread.sections.firstIndex { $0.path.hasPrefix("Software\\Microsoft\\Internet Explorer") })
    #expect(reread.sections[place - 1].path == "Keyboard Layout\\Preload")

    // A key the file lacks goes where it sorts; replacing with nothing removes a key and its subkeys.
    let added = try WineRegistry.parse(
      original.replacing(
        keys: ["Software\\Game"], with: try WineRegistry.parse(Self.text(Self.sample)).sections
      ).bytes)
    let game = try #require(added.sections.firstIndex { $0.path == "Software\\Game" })
    #expect(added.sections[game - 1].path.lowercased() < "software\\game")
    #expect(added.sections[game + 2].path.lowercased() > "software\\game\\slots")
    let removed = original.replacing(keys: ["Control Panel"], with: [])
    #expect(try WineRegistry.parse(removed.bytes).sections.count == original.sections.count - 13)
    #expect(
      original.replacing(keys: ["Control Panel"], with: original.sections(under: "Control Panel")).bytes
        == original.bytes)
  }

  /// A key's line as Wine wrote it and reads it. Every Wine since 1999 wrote one number after
  /// the `]`, the key's time (`] %ld`, today `] %u` with a `#time=` line below); its reader
  /// takes the first number when there is one and ignores the rest of the line, so a prefix
  /// whose lines carry a second number (`] 1136563720 0`) or none loads in Wine as well.
  static let keyLines = [
    "[Software\\\\Game]", "[Software\\\\Game] 1136563720", "[Software\\\\Game] 1136563720 0",
    "[Software\\\\Game]\t1712345678", "[Software\\\\Game]1712345678", "[Software\\\\Game] -1",
    "[Software\\\\Game]  1136563720  0  ",
  ]

  @Test(
    "a key's line reads as Wine reads it: no number, its time, or its time and another number",
    arguments: keyLines)
  func keyLine(_ line: String) throws {
    let text = Self.text("WINE REGISTRY Version 2\n\n" + line + "\n\"Slot\"=dword:00000002\n")
    let registry = try WineRegistry.parse(text)
    #expect(registry.sections.map(\.path) == ["Software\\Game"])
    #expect(registry.sections.first?.values == [.init(name: "Slot", data: .dword(2))])
    #expect(
      registry.sections.first?.content == Self.text("[Software\\\\Game]\n\"Slot\"=dword:00000002\n"),
      "the content leaves out what follows the path")
    #expect(registry.bytes == text)
  }

  @Test("a prefix whose key lines carry a second number reads as the same keys, written back byte for byte")
  func keyLinesWithTwoNumbers() throws {
    let real = try Self.bytes("wineqq-system.reg")
    let twice = String(decoding: real, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
      .map { line in line.hasPrefix("[") ? String(line) + " 0" : String(line) }.joined(separator: "\n")
    let original = try WineRegistry.parse(real)
    let older = try WineRegistry.parse(Self.text(twice))
    #expect(older.sections.count == 89)
    #expect(older.sections.map(\.path) == original.sections.map(\.path))
    #expect(older.sections.map(\.content) == original.sections.map(\.content))
    #expect(older.bytes == Self.text(twice))
  }

  static let sample = """
    WINE REGISTRY Version 2
    ;; All keys relative to \\\\User\\\\S-1-5-21-0-0-0-1000

    #arch=win64

    [Software\\\\Game] 1700000000
    #time=1d9e0a0b0c0d0e0
    @="default"
    "Difficulty"=dword:00000003
    "Name"="Ada \\"the\\" \\\\ Lovelace"

    [Software\\\\Game\\\\Slots] 1700000000
    #time=1d9e0a0b0c0d0e0
    "Slot1"=hex:01,02,03,04,05,06,07,08,09,0a,0b,0c,0d,0e,0f,10,11,12,13,14,15,16,17,18,\\
      19,1a
    "Path"=str(2):"%USERPROFILE%\\\\Saves"

    """

  static func text(_ text: String) -> [UInt8] { Array(text.utf8) }

  @Test("the sample's values read as written")
  func sampleValues() throws {
    let sections = try WineRegistry.parse(Self.text(Self.sample)).sections
    #expect(sections.map(\.path) == ["Software\\Game", "Software\\Game\\Slots"])
    #expect(
      sections[0].values == [
        .init(name: nil, data: .string(type: 1, Array("default".utf16))),
        .init(name: "Difficulty", data: .dword(3)),
        .init(name: "Name", data: .string(type: 1, Array("Ada \"the\" \\ Lovelace".utf16))),
      ])
    #expect(sections[1].values.first?.data == .hex(type: nil, Array(1...26)))
  }

  @Test(
    "malformed input is refused with its line",
    arguments: [
      ("WINE REGISTRY Version 1\n", 1),
      ("", 1),
      ("WINE REGISTRY Version 2\n\"a\"=\"b\"\n", 2),
      ("WINE REGISTRY Version 2\n\n[Software\\\\A 1\n", 3),
      ("WINE REGISTRY Version 2\n[A] 1\n\"a\"=\"b\n", 3),
      ("WINE REGISTRY Version 2\n[A] 1\n\"a\"=dword:123456789\n", 3),
      ("WINE REGISTRY Version 2\n[A] 1\n\"a\"=hex:0g\n", 3),
      ("WINE REGISTRY Version 2\n[A] 1\n\"a\"=hex:00,\\\n  01,\\\n  zz\n", 3),
      ("WINE REGISTRY Version 2\n[A] 1\n\"a\"=hex:00,\\", 3),
      ("WINE REGISTRY Version 2\n[A] 1\n\"a\"=hex:00,\\\n  01\n\"b\"=what\n", 5),
      ("WINE REGISTRY Version 2\n[A] 1\n\"a\" \"b\"\n", 3),
      ("WINE REGISTRY Version 2\n[A] x\n", 2),
      ("WINE REGISTRY Version 2\n[A] 1 x\n", 2),
      ("WINE REGISTRY Version 2\n[A] 1x\n", 2),
      ("WINE REGISTRY Version 2\n[A] 1 -\n", 2),
      ("WINE REGISTRY Version 2\n[A]] 1\n", 2),
      ("WINE REGISTRY Version 2\n[A] 1,0\n", 2),
      ("WINE REGISTRY Version 2\n[] 1\n", 2),
      ("WINE REGISTRY Version 2\n[A] 1\nvalue\n", 3),
      ("WINE REGISTRY Version 2\n[A] 1\n\"a\"=\"\\x\"\n", 3),
      ("WINE REGISTRY Version 2\n[A] 1\n\"\u{FF}\"=\"b\"\n", 3),
      ("WINE REGISTRY Version 2\n[A] 1\n\"a\"=\"b\" x\n", 3),
    ])
  func malformed(_ text: String, line: Int) {
    var bytes = Array(text.utf8)
    if text.contains("\u{FF}") { bytes = bytes.map { $0 == 0xC3 ? 0xFF : $0 }.filter { $0 != 0xBF } }
    #expect {
      try WineRegistry.parse(bytes)
    } throws: { error in
      guard case .malformed(let at, _) = error as? WineRegistryError else { return false }
      return at == line
    }
  }
}
