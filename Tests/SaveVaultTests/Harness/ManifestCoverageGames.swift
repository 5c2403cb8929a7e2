import Foundation
import Testing

@testable import SaveVault

/// The games of `Tests/Fixtures/manifest-real-games.yaml` (real entries of Ludusavi's manifest)
/// as a fake Steam install holds them: for each entry that applies on Linux, 1–3 small files
/// where the entry says (a glob made concrete: `*.sav` is `slot1.sav`, `**` a nested folder),
/// each with content of its own, so that an archive or a restored folder shows which came
/// through.
struct CoverageGame: Sendable {
  /// How the game runs here: in its Proton prefix (the entries for Windows, and those with no
  /// `os`), or natively (the entries for Linux, and those with no `os`).
  enum Mode: String {
    case proton, native
  }

  /// One `files` entry (its key, verbatim) or the `registry` (Proton's `user.reg`), and the
  /// files placed for it, relative to the folder its leading placeholder stands for
  /// (`<winAppData>`: the prefix's `AppData/Roaming`; `<root>`: the Steam installation, or
  /// the library holding the game for `<root>/steamapps/…`). A `<storeUserId>` in a file is
  /// the device's Steam account (`CoverageDevice.path`).
  struct Placement: Sendable {
    var template: String
    var files: [String]

    init(_ template: String, _ files: [String]) {
      self.template = template
      self.files = files
    }

    static let registry = "registry"
  }

  var title: String
  var steamID: Int
  var installDir: String
  var mode: Mode
  var placements: [Placement]
  /// The launcher the Deck installed it with; each desktop installs it with the same store's
  /// launcher, laid out its own way.
  var launcher: CoverageLauncher = .steam

  init(_ title: String, _ steamID: Int, _ installDir: String, _ mode: Mode, _ placements: [Placement]) {
    self.title = title
    self.steamID = steamID
    self.installDir = installDir
    self.mode = mode
    self.placements = placements
  }

  /// Every game of the fixture, in its order (by the titles' bytes, as the manifest is), each
  /// with its launcher (`assigningLaunchers`).
  static let all: [CoverageGame] = assigningLaunchers(
    (tableA + tableB + tableC + tableD).sorted {
      $0.title.utf8.lexicographicallyPrecedes($1.title.utf8)
    })

  /// The games with a launcher each. Of the games whose saves the build of another store
  /// writes too (`Placement.isWritten(by:)`): a game with a path naming Epic's or GOG's store
  /// through that store; then every other one the manifest knows a GOG id of through Heroic's
  /// GOG store, every other one it knows a Lutris slug of through Lutris; of the rest, one in
  /// five through Epic (a Windows game; else Lutris) and one in five added to Steam as a
  /// non-Steam game. The others stay Steam's.
  static func assigningLaunchers(_ sorted: [CoverageGame]) -> [CoverageGame] {
    var games = sorted
    var turns: [CoverageLauncher: Int] = [:]
    func take(_ launcher: CoverageLauncher, _ index: Int, every: Int = 2) {
      guard games[index].launcher == .steam, games[index].fits(launcher) else { return }
      turns[launcher, default: 0] += 1
      if (turns[launcher, default: 0] - 1) % every == 0 { games[index].launcher = launcher }
    }
    for index in games.indices {
      let paths = games[index].placements.map { $0.template.lowercased() }
      if paths.contains(where: { $0.contains("/epic") }) {
        take(.epic, index, every: 1)
      } else if paths.contains(where: { $0.contains("/gog/") }) {
        take(.gog, index, every: 1)
      }
    }
    for index in games.indices { take(.gog, index) }
    for index in games.indices where games[index].manifest?.lutrisID != nil { take(.lutris, index) }
    var turn = 0
    for index in games.indices where games[index].launcher == .steam && games[index].fits(.lutris) {
      turn += 1
      let choices: [CoverageLauncher] =
        switch turn % 5 {
        case 1: [.epic, .lutris]
        case 3: [.shortcut, .lutris]
        default: []
        }
      if let launcher = choices.first(where: games[index].fits) { games[index].launcher = launcher }
    }
    return games
  }

  /// Whether `launcher` can have installed the game: it writes one of the game's entries; Epic
  /// has Windows games only; GOG needs the game's GOG id.
  func fits(_ launcher: CoverageLauncher) -> Bool {
    guard placements.contains(where: { $0.isWritten(by: launcher) }) else { return false }
    switch launcher {
    case .epic: return mode == .proton
    case .gog: return manifest?.gogID != nil
    case .steam, .lutris, .shortcut: return true
    }
  }

  /// The entries placed for the game as its launcher installed it (`Placement.isWritten(by:)`).
  var placed: [Placement] { placements.filter { $0.isWritten(by: launcher) } }

  /// The shapes of the game's placed entries, as the report names them.
  var shapes: [String] {
    var shapes: [String] = [mode.rawValue]
    for placement in placed {
      shapes += placement.shapes(among: placed)
    }
    return unique(shapes)
  }
}

extension CoverageGame {
  typealias P = Placement
}

extension CoverageGame.Placement {
  /// The path the template names, without its leading placeholder (`Gnorp/Apologue/options.ron`).
  var tail: String {
    guard template.hasPrefix("<"), let end = template.firstIndex(of: ">") else { return template }
    return String(template[template.index(after: end)...]).trimmingCharacters(in: ["/"])
  }

  var isRegistry: Bool { template == Self.registry }

  /// Whether the game's build installed by `launcher` writes the entry: none naming another
  /// store than the launcher's (`…/Steam/<storeUserId>`, `STEAMUSER<storeUserId>`,
  /// `…/Epic Games Store/…`, `…/GOG/…`); for another launcher than Steam none in Steam's own
  /// folders (`<root>/…`) and none with a `<storeUserId>` naming no store either: the
  /// manifest's store user ids are Steam's unless the path names the store.
  func isWritten(by launcher: CoverageLauncher) -> Bool {
    let path = template.lowercased()
    if path.contains("/epic") { return launcher == .epic }
    if path.contains("/gog/") { return launcher == .gog }
    guard launcher != .steam else { return true }
    guard !template.hasPrefix("<root>"), !path.contains("steam") else { return false }
    return !path.contains("<storeuserid>")
  }

  /// Whether text is glued to the leading placeholder (`<winLocalAppData>Low/…`): its files
  /// then continue the placeholder's last folder's name.
  var isGlued: Bool {
    guard template.hasPrefix("<"), let end = template.firstIndex(of: ">") else { return false }
    let rest = template[template.index(after: end)...]
    return !rest.isEmpty && !rest.hasPrefix("/")
  }

  /// The folder the template starts from, as the report names it: its placeholder, with
  /// `<home>`'s usual folders (`<home>/AppData/LocalLow`, `<home>/.config`…) and
  /// `<root>`'s two kinds (`<root>/userdata`, `<root>/steamapps`) told apart.
  var folderShape: String {
    if isRegistry { return "registry" }
    let head = String(template.prefix { $0 != ">" }) + ">"
    let known = [
      "<home>/AppData/LocalLow", "<home>/Saved Games", "<home>/.config", "<home>/.local/share",
      "<root>/userdata", "<root>/steamapps",
    ]
    return known.first { template.hasPrefix($0 + "/") || template == $0 } ?? head
  }

  var hasWildcard: Bool {
    tail.replacingOccurrences(of: "<storeUserId>", with: "").contains { "*?[".contains($0) }
  }

  /// `file` (the template names one of the placed files), `glob`, or `folder`; then where it
  /// is (`<base>`, Steam Cloud, `<storeUserId>`), and `nested` when it lies inside another
  /// entry of the game or holds one.
  func shapes(among all: [CoverageGame.Placement]) -> [String] {
    if isRegistry { return ["registry"] }
    var shapes: [String] = [folderShape]
    let concrete = tail.replacingOccurrences(of: "<storeUserId>", with: "*")
    if hasWildcard {
      shapes.append(tail.contains("**") ? "glob **" : "glob")
    } else if files.contains(where: { Glob.matchesPath($0, concrete) }) {
      shapes.append("file")
    } else {
      shapes.append("folder")
    }
    if template.hasPrefix("<base>") { shapes.append("<base>") }
    if template.hasPrefix("<root>/userdata") {
      shapes.append(template.contains("/remote") ? "Steam Cloud" : "userdata")
    } else if template.contains("<storeUserId>") {
      shapes.append("<storeUserId>")
    }
    let isNested = all.contains { other in
      other.template != template && !other.isRegistry
        && (template.hasPrefix(other.template + "/") || other.template.hasPrefix(template + "/"))
    }
    if isNested { shapes.append("nested") }
    return shapes
  }
}

extension Glob {
  /// Whether the relative `path` matches the relative `pattern`, component by component (`**`
  /// any number of components).
  static func matchesPath(_ path: String, _ pattern: String) -> Bool {
    func match(_ names: ArraySlice<Substring>, _ parts: ArraySlice<Substring>) -> Bool {
      guard let part = parts.first else { return names.isEmpty }
      if part == "**" {
        return match(names, parts.dropFirst()) || (!names.isEmpty && match(names.dropFirst(), parts))
      }
      guard let name = names.first, matches(String(name), String(part), caseSensitive: true) else {
        return false
      }
      return match(names.dropFirst(), parts.dropFirst())
    }
    return match(path.split(separator: "/")[...], pattern.split(separator: "/")[...])
  }
}
