import Foundation
import Testing

@testable import SaveVault

@Suite("KeyValues: Steam's text files read, written back and refused with a line", .tags(.small))
struct KeyValuesTests {
  struct Case: CustomTestStringConvertible, Sendable {
    var name: String
    var text: String
    var entries: [KeyValues.Entry]
    var testDescription: String { name }
  }

  static func text(_ key: String, _ value: String) -> KeyValues.Entry {
    KeyValues.Entry(key: key, value: .text(value))
  }

  static func section(_ key: String, _ entries: [KeyValues.Entry]) -> KeyValues.Entry {
    KeyValues.Entry(key: key, value: .section(KeyValues(entries)))
  }

  static let accepted: [Case] = [
    Case(name: "empty", text: "", entries: []),
    Case(name: "quoted pair", text: "\"appid\"\t\t\"1145360\"\n", entries: [text("appid", "1145360")]),
    Case(name: "unquoted pair", text: "appid 1145360", entries: [text("appid", "1145360")]),
    Case(
      name: "escapes", text: #""k" "a\"b\\c\nd\te\q""#, entries: [text("k", "a\"b\\c\nd\te\\q")]),
    Case(
      name: "comments", text: "// head\n\"a\" \"1\" // tail\n// \"b\" \"2\"\n\"c\" \"http://x\"",
      entries: [text("a", "1"), text("c", "http://x")]),
    Case(
      name: "nested", text: "\"s\" { \"t\" { \"u\" \"v\" } \"w\" \"x\" }",
      entries: [section("s", [section("t", [text("u", "v")]), text("w", "x")])]),
    Case(
      name: "duplicate keys in order", text: "\"a\" \"1\" \"A\" \"2\" \"a\" { }",
      entries: [text("a", "1"), text("A", "2"), section("a", [])]),
    Case(
      name: "#include and #base lines", text: "#base \"x.vdf\"\n#include other.vdf\n\"a\" \"1\"",
      entries: [text("a", "1")]),
    Case(
      name: "conditions", text: "\"a\" \"1\" [$WIN32]\n\"s\" [$X360] { \"b\" \"2\" [!$OSX] }",
      entries: [text("a", "1"), section("s", [text("b", "2")])]),
    Case(name: "braces end unquoted text", text: "s{a b}", entries: [section("s", [text("a", "b")])]),
    Case(name: "quoted newline", text: "\"a\" \"line\nnext\"", entries: [text("a", "line\nnext")]),
  ]

  @Test("reads", arguments: accepted)
  func reads(_ entry: Case) throws {
    let parsed = try KeyValues.parse(entry.text)
    #expect(parsed == KeyValues(entry.entries))
    #expect(try KeyValues.parse(parsed.written) == parsed, "written: \(parsed.written)")
  }

  static let refused: [(String, KeyValuesError)] = [
    ("\"a\" {\n\"b\" \"c\"\n", .malformed(line: 3, reason: "the '{' of line 1 is never closed")),
    ("\"a\" \"1\"\n}", .malformed(line: 2, reason: "'}' without a '{'")),
    ("\"a\"\n", .malformed(line: 2, reason: "the key \"a\" has no value")),
    ("\n\n\"a\" \"open", .malformed(line: 3, reason: "the quoted text opened on line 3 is never closed")),
    ("{ }", .malformed(line: 1, reason: "'{' where a key was expected")),
    ("\"a\"\n\n}", .malformed(line: 3, reason: "'}' where the value of \"a\" was expected")),
    ("#include {", .malformed(line: 1, reason: "#include without a file name")),
    (String(repeating: "a {", count: 80), .tooDeep(line: 1, limit: 64)),
  ]

  @Test("refuses malformed text with its line", arguments: refused)
  func refuses(_ text: String, _ error: KeyValuesError) {
    #expect(throws: error) { try KeyValues.parse(text) }
  }

  @Test("refuses text over the size limit before reading it")
  func tooLarge() {
    let bytes = [UInt8](repeating: UInt8(ascii: " "), count: KeyValues.maximumBytes + 1)
    #expect(throws: KeyValuesError.tooLarge(bytes: bytes.count, limit: KeyValues.maximumBytes)) {
      try KeyValues.parse(bytes)
    }
  }

  @Test("looks keys up without case; the first text or section wins")
  func lookup() throws {
    let parsed = try KeyValues.parse(
      "\"AppState\" { \"AppID\" \"10\" \"appid\" \"20\" \"Name\" { } \"name\" \"Hades\" }")
    let state = try #require(parsed.section("appstate"))
    #expect(state.text("APPID") == "10")
    #expect(state.values("appid") == [.text("10"), .text("20")])
    #expect(state.text("name") == "Hades")
    #expect(state.section("NAME") == KeyValues())
    #expect(state.text("missing") == nil)
  }

  @Test("reads a real libraryfolders.vdf shape")
  func libraryFolders() throws {
    let text = """
      "libraryfolders"
      {
      \t"0"
      \t{
      \t\t"path"\t\t"/home/deck/.local/share/Steam"
      \t\t"apps"
      \t\t{
      \t\t\t"228980"\t\t"453266184"
      \t\t}
      \t}
      \t"1"
      \t{
      \t\t"path"\t\t"/run/media/mmcblk0p1"
      \t}
      }
      """
    let folders = try #require(try KeyValues.parse(text).section("libraryfolders"))
    #expect(
      folders.entries.compactMap { entry -> String? in
        guard case .section(let library) = entry.value else { return nil }
        return library.text("path")
      } == ["/home/deck/.local/share/Steam", "/run/media/mmcblk0p1"])
  }
}
