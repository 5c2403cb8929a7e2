import Foundation
import Testing

@testable import SaveVault

/// Foundation's own decoding, for comparison.
private func foundationDecode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
  try JSONDecoder().decode(type, from: data)
}

/// Awkward text: control characters, quotes, backslashes, slashes, DEL and non-ASCII.
private func awkwardText(_ random: inout SplitMix64) -> String {
  let pieces = [
    "a", "save", "/", "\\", "\"", "\u{0}", "\u{1}", "\u{8}", "\t", "\n", "\u{B}", "\u{C}", "\r", "\u{1F}",
    " ",
    "\u{7F}", "é", "\u{2028}", "\u{FEFF}", "😀", "%", "{", "}", "[", "]", ",", ":",
  ]
  return (0..<Int.random(in: 0...12, using: &random)).map { _ in
    pieces[Int.random(in: 0..<pieces.count, using: &random)]
  }
  .joined()
}

private func randomManifest(_ random: inout SplitMix64) -> Manifest {
  var entries: [ManifestEntry] = []
  for _ in 0..<Int.random(in: 0...6, using: &random) {
    let kind = [EntryKind.file, .directory, .symlink][Int.random(in: 0..<3, using: &random)]
    var entry = ManifestEntry(
      path: awkwardText(&random), kind: kind,
      size: Bool.random(using: &random) ? Int64.random(in: -9...(Int64.max / 8), using: &random) : nil,
      sha256: Bool.random(using: &random) ? awkwardText(&random) : nil,
      target: Bool.random(using: &random) ? awkwardText(&random) : nil)
    entry.mode = Bool.random(using: &random) ? UInt32.random(in: 0...UInt32.max, using: &random) : nil
    entry.modifiedNs =
      Bool.random(using: &random) ? Int64.random(in: Int64.min...Int64.max, using: &random) : nil
    entries.append(entry)
  }
  let header = ArchiveHeader(
    format: Int.random(in: -3...3, using: &random), game: awkwardText(&random), device: awkwardText(&random),
    createdMs: Int64.random(in: Int64.min...Int64.max, using: &random))
  var manifest = Manifest(header: header, entries: entries)
  manifest.files = Int.random(in: Int.min...Int.max, using: &random)
  manifest.bytes = Int64.random(in: Int64.min...Int64.max, using: &random)
  return manifest
}

@Suite("Manifest JSON", .tags(.small))
struct ManifestJSONTests {
  @Test("writes exactly the bytes JSONEncoder.stable writes, and reads them back as JSONDecoder does")
  func sameBytesAsFoundation() throws {
    var random = SplitMix64(seed: 7)
    for _ in 0..<300 {
      let manifest = randomManifest(&random)
      let ours = ManifestJSON.encode(manifest)
      let foundation = try JSONEncoder.stable.encode(manifest)
      #expect(ours == foundation, "\(String(decoding: ours, as: UTF8.self))")
      #expect(try ManifestJSON.decode(foundation) == manifest)
      #expect(try foundationDecode(Manifest.self, ours) == manifest)
    }
  }

  @Test("reads what other JSON writers may write: spacing, key order, escapes, nulls, unknown keys")
  func readsOrdinaryJSON() throws {
    let text = """
       { "format" : 1, "game":"g\\u00e9\\/x", "device":"d\\ud83d\\ude00", "createdMs":-0, "contentDigest":"c",
        "files":1, "bytes":5, "extra": {"a":[1,-2.5e+3,true,false,null,"\\n",{}]},
        "entries": [ {"path":"a\\tb", "kind":"file", "size":5, "sha256":"x", "target":null, "mode":null} ] }\r\n
      """
    let manifest = try ManifestJSON.decode(Data(text.utf8))
    #expect(try foundationDecode(Manifest.self, Data(text.utf8)) == manifest)
    #expect(manifest.game == "gé/x" && manifest.device == "d😀" && manifest.createdMs == 0)
    #expect(manifest.entries == [ManifestEntry(path: "a\tb", kind: .file, size: 5, sha256: "x")])
  }

  @Test("refuses malformed or ambiguous manifests whole")
  func refusesMalformed() throws {
    let valid =
      #"{"bytes":0,"contentDigest":"","createdMs":0,"device":"d","entries":[{"kind":"file","path":"p"}],"files":0,"format":1,"game":"g"}"#
    #expect(try ManifestJSON.decode(Data(valid.utf8)).entries.count == 1)
    func with(_ old: String, _ new: String) -> String { valid.replacingOccurrences(of: old, with: new) }
    var refused: [String] = ["", " ", "null", "[]", valid + "x", valid + "{}", "\u{FEFF}" + valid]
    refused.append(with(#""format":1"#, #""format":1.0"#))
    refused.append(with(#""format":1"#, #""format":1e0"#))
    refused.append(with(#""format":1"#, #""format":01"#))
    refused.append(with(#""format":1"#, #""format":+1"#))
    refused.append(with(#""format":1"#, #""format":null"#))
    refused.append(with(#""format":1"#, #""format":"1""#))
    refused.append(with(#""format":1,"#, ""))
    refused.append(with(#""bytes":0"#, #""bytes":9223372036854775808"#))
    refused.append(with(#""game":"g""#, #""game":"g","game":"h""#))
    refused.append(with(#""game":"g""#, #""game":"g","#))
    refused.append(with(#""game":"g""#, #""game":"\ud800""#))
    refused.append(with(#""game":"g""#, #""game":"\udc00\ud800""#))
    refused.append(with(#""game":"g""#, #""game":"\x""#))
    refused.append(with(#""game":"g""#, #""game":"\u12""#))
    refused.append(with(#""game":"g""#, "\"game\":\"\t\""))
    refused.append(with(#""game":"g""#, #""game":"g","x":-"#))
    refused.append(with(#""game":"g""#, #""game":"g","x":tru"#))
    refused.append(with(#""game":"g""#, #""game":"g","x":[1,]"#))
    refused.append(
      with(
        #""game":"g""#,
        #""game":"g","x":"# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600)))
    refused.append(with(#""kind":"file""#, #""kind":"fifo""#))
    refused.append(with(#""kind":"file""#, #""kind":"file","kind":"file""#))
    refused.append(with(#","path":"p""#, ""))
    refused.append(with(#""path":"p""#, #""path":"p","mode":-1"#))
    refused.append(with(#""path":"p""#, #""path":"p","mode":4294967296"#))
    refused.append(with(#""path":"p""#, #""path":"p","size":1,"size":null"#))
    refused.append(with("[{", "[,{"))
    for text in refused {
      #expect(throws: ManifestJSONError.self, "\(text)") { try ManifestJSON.decode(Data(text.utf8)) }
    }
    var invalidUTF8 = Data(valid.replacingOccurrences(of: #""game":"g""#, with: #""game":"#).utf8)
    invalidUTF8.append(contentsOf: [0x22, 0xC0, 0xAF, 0x22])  // an overlong "/"
    invalidUTF8.append(contentsOf: Data(#"}"#.utf8))
    #expect(throws: ManifestJSONError.self) { try ManifestJSON.decode(invalidUTF8) }
  }

  @Test("what JSONDecoder refuses, ManifestJSON refuses too (mutated manifests)")
  func neverLaxerThanFoundation() throws {
    var random = SplitMix64(seed: 11)
    let alphabet = Array(#"{}[]",:\ 0-1.eE+ntrufalsu"#.utf8) + [0x00, 0x80, 0xC3, 0xA9, 0xFF]
    for _ in 0..<2_000 {
      var bytes = [UInt8](ManifestJSON.encode(randomManifest(&random)))
      for _ in 0..<Int.random(in: 1...3, using: &random) {
        let at = Int.random(in: 0..<bytes.count, using: &random)
        switch Int.random(in: 0..<3, using: &random) {
        case 0: bytes[at] = alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
        case 1: bytes.remove(at: at)
        default: bytes.insert(alphabet[Int.random(in: 0..<alphabet.count, using: &random)], at: at)
        }
      }
      let data = Data(bytes)
      guard let ours = try? ManifestJSON.decode(data) else { continue }
      let theirs = try? foundationDecode(Manifest.self, data)
      #expect(theirs == ours, "\(String(decoding: data, as: UTF8.self))")
    }
  }
}

@Suite("Hostile manifests are refused, never a crash", .tags(.small))
struct HostileManifestTests {
  @Test("a path listed twice is refused, and sizes that overflow the total do not trap")
  func duplicatePathAndOverflow() {
    let real = ManifestEntry(path: "a", kind: .file, size: 5, sha256: "x")
    let huge = ManifestEntry(path: "a", kind: .file, size: Int64.max, sha256: "x")
    #expect(
      Extractor.firstMismatch(extracted: [real], manifest: [huge, real])
        == "'a' is listed twice in its manifest")
    let header = ArchiveHeader(format: 1, game: "g", device: "d", createdMs: 0)
    let manifest = Manifest(header: header, entries: [huge, huge])
    #expect(manifest.bytes == Int64.max &+ Int64.max)
  }
}
