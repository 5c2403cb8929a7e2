import Foundation
import Testing

/// The library's folders are layers: each uses only the types of the layers below it. Read
/// from the sources themselves, so that an edge the wrong way fails here, not in a review.
@Suite("Layers: each folder of the library uses only the folders below it", .tags(.small))
struct LayerTests {
  /// Each folder's layer; a folder may use the types of folders of a lower layer only. A room
  /// (a sub-folder listed here) is its folder's layer: it and its folder's own files may use
  /// each other, but two rooms of one folder may not (each room is one concern).
  static let layers: [String: Int] = [
    "Support": 0, "Formats": 0,
    "SaveFolder": 1, "Discovery": 1, "Discovery/Manifest": 1, "Discovery/Launchers": 1,
    "Archive": 2,
    "Sync": 3, "Config": 3, "Container": 3, "Container/S3": 3,
    "Vault": 4, "Vault/Doctor": 4, "Vault/Restore": 4, "Vault/Locations": 4, "Vault/Catalog": 4,
  ]

  /// The folder a room belongs to (`Vault` for `Vault/Doctor`).
  static func folder(of room: String) -> String { String(room.split(separator: "/").first ?? "") }

  /// The room a source file belongs to: the deepest listed folder holding it, else its folder.
  static func room(of file: String) -> String {
    var parts = file.split(separator: "/").dropLast().map(String.init)
    while !parts.isEmpty {
      let room = parts.joined(separator: "/")
      if layers[room] != nil { return room }
      parts.removeLast()
    }
    return ""
  }

  static var library: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Sources/SaveVault")
  }

  /// The sources of each room, comments and string literals blanked out.
  static func sources() throws -> [String: String] {
    var texts: [String: String] = [:]
    let files = FileManager.default.enumerator(atPath: library.path)?.compactMap { $0 as? String } ?? []
    for file in files where file.hasSuffix(".swift") {
      let folder = Self.room(of: file)
      let text = try String(contentsOf: library.appendingPathComponent(file), encoding: .utf8)
      texts[folder, default: ""] += "\n" + Self.code(of: text)
    }
    return texts
  }

  static func code(of text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      var line = String(line)
      if let comment = line.range(of: "//") { line = String(line[..<comment.lowerBound]) }
      return line.replacing(/"([^"\\]|\\.)*"/, with: "\"\"")
    }.joined(separator: "\n")
  }

  /// The types declared at the top level of each folder.
  static func declarations(in texts: [String: String]) -> [String: String] {
    var owner: [String: String] = [:]
    let declaration =
      /(?m)^(?:public |final |indirect )*(?:struct|enum|class|protocol|typealias|actor) +([A-Z][A-Za-z0-9_]*)/
    for (folder, text) in texts {
      for match in text.matches(of: declaration) { owner[String(match.1)] = folder }
    }
    return owner
  }

  @Test("no folder uses a type of a folder at its own layer or above")
  func edges() throws {
    let texts = try Self.sources()
    #expect(
      Set(texts.keys).isSubset(of: Self.layers.keys), "a folder without a layer: \(texts.keys.sorted())")
    let folders = try FileManager.default.subpathsOfDirectory(atPath: Self.library.path).filter { path in
      var isFolder: ObjCBool = false
      return FileManager.default.fileExists(atPath: Self.library.path + "/" + path, isDirectory: &isFolder)
        && isFolder.boolValue
    }
    #expect(
      folders.allSatisfy { Self.layers[$0] != nil }, "a sub-folder not listed as a room: \(folders.sorted())")
    let owner = Self.declarations(in: texts)
    #expect(owner["SaveScan"] == "SaveFolder" && owner["Decision"] == "Sync", "declarations not found")
    var wrong: [String] = []
    for (folder, text) in texts {
      let words = Set(text.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
      for (name, home) in owner where home != folder && words.contains(name) {
        let isSameFolder = Self.folder(of: home) == Self.folder(of: folder)
        // Within one folder: its own files and a room use each other; two rooms do not.
        let isAllowed =
          isSameFolder
          ? home == Self.folder(of: home) || folder == Self.folder(of: folder)
          : (Self.layers[home] ?? 0) < (Self.layers[folder] ?? 0)
        if !isAllowed { wrong.append("\(folder) uses \(home)'s \(name)") }
      }
    }
    #expect(wrong.isEmpty, "\(wrong.sorted())")
  }
}
