import Foundation
import Testing

@testable import SaveVault

/// A restore's journal says each move's shape, so that recovery after a kill asks that shape
/// (`LocationShape`) and nothing else what to finish.
@Suite("Journal: each move keeps its location's shape across a kill", .tags(.small))
struct JournalShapeTests {
  static let source = RegistrySource(
    prefix: "/pfx", manifestKey: "HKEY_CURRENT_USER/Software/Game",
    key: WineRegistryKey(file: .user, paths: ["Software\\Game"]))

  @Test("folder, files and registry moves are written and read back as what they are")
  func roundTrip() throws {
    let shapes: [SaveLocation.Shape] = [
      .folder, .files(FilePattern(pattern: "*.sav", caseSensitive: false)), .registry(Self.source),
    ]
    for shape in shapes {
      let move = RestoreJournal.Move(
        name: "1-Game", destination: "/save", staging: "/save-staging", aside: "/save-aside", digest: "d",
        shape: shape, stagedFiles: 2)
      let data = try JSONEncoder().encode(move)
      #expect(try JSONDecoder().decode(RestoreJournal.Move.self, from: data) == move)
      let keys = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any]).keys
      #expect(keys.contains("files") == (move.shape.kind.pattern != nil))
      #expect(keys.contains("registry") == (shape == .registry(Self.source)))
    }
  }

  @Test("a move written before moves said their shape is read as the files or folder it was")
  func earlierJournal() throws {
    let files = Data(
      #"{"name":"1-G","destination":"/d","staging":"/s","files":{"pattern":"*.sav","caseSensitive":true}}"#
        .utf8)
    #expect(
      try JSONDecoder().decode(RestoreJournal.Move.self, from: files).shape
        == .files(FilePattern(pattern: "*.sav", caseSensitive: true)))
    let folder = Data(#"{"name":"2-G","destination":"/d","staging":"/s","aside":"/a"}"#.utf8)
    #expect(try JSONDecoder().decode(RestoreJournal.Move.self, from: folder).shape == .folder)
  }
}
