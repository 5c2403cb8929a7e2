import Foundation

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// A game whose save is also registry keys in its Wine prefix (see `SimulationTests`): the key
/// `HKEY_CURRENT_USER/Software/Sim/Game` and its subkeys, in the prefix's `user.reg`, beside
/// keys that are no part of the save (one whose name begins like the game's, its parent, and
/// others), which no command may ever change. Wine writes the whole file again on every run,
/// every key with a new time; the model keeps what each other key must hold.
///
/// The model reads the file with its own reader, not SaveVault's: a key is a line `[path]`
/// (with Wine's time after it, or not) and the lines up to the next key. A save's registry
/// part is the game's keys, sorted by path, each with its lines less blank ones and Wine's
/// `#time=` ones: what the keys hold, wherever they are read from (the prefix's file, the
/// export in an archive or in a pre-restore copy, a whole file kept before a restore).
enum SimulatedRegistry {
  /// The location as the config names it.
  static let location = "registry:HKEY_CURRENT_USER/Software/Sim/Game"
  /// The game's key as `user.reg` writes it (each backslash doubled).
  static let key = #"Software\\Sim\\Game"#
  /// The export's folder name (as SaveVault names it from the key).
  static let exportName = "HKEY_CURRENT_USER-Software-Sim-Game"
  static let preamble = #"""
    WINE REGISTRY Version 2
    ;; All keys relative to \\User\\S-1-5-21-0-0-0-1000

    #arch=win64

    """#

  /// One key of a `.reg` file: its line (`[path] time`), its path, and its lines.
  struct Section: Equatable {
    var header: String
    var path: String
    var lines: [String]
  }

  /// The keys of a `.reg` file's text.
  static func sections(_ text: String) -> [Section] {
    var sections: [Section] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
      if line.hasPrefix("["), let end = line.lastIndex(of: "]") {
        sections.append(
          Section(header: line, path: String(line[line.index(after: line.startIndex)..<end]), lines: []))
      } else if !line.isEmpty, !sections.isEmpty {
        sections[sections.count - 1].lines.append(line)
      }
    }
    return sections
  }

  static func isGame(_ path: String) -> Bool {
    path.lowercased() == key.lowercased() || path.lowercased().hasPrefix(key.lowercased() + #"\\"#)
  }

  /// The text of a `.reg` file with `sections`.
  static func text(_ sections: [Section]) -> String {
    preamble + sections.map { "\n" + $0.header + "\n" + $0.lines.map { $0 + "\n" }.joined() }.joined()
  }

  /// The SHA-256 of what the game's keys in the `.reg` file at `path` hold (see the type);
  /// nil when it holds none or cannot be read.
  static func contentHash(ofFile path: String) -> String? {
    FileManager.default.contents(atPath: path).flatMap { contentHash(String(decoding: $0, as: UTF8.self)) }
  }

  static func contentHash(_ text: String) -> String? {
    let game = sections(text).filter { isGame($0.path) }
      .sorted { $0.path.lowercased().utf8.lexicographicallyPrecedes($1.path.lowercased().utf8) }
    guard !game.isEmpty else { return nil }
    let canonical = game.map { section in
      "[\(section.path.lowercased())]\n"
        + section.lines.filter { !$0.hasPrefix("#time=") }.joined(separator: "\n")
    }.joined(separator: "\n\n")
    let hash = SHA256()
    hash.update(Array(canonical.utf8))
    return hash.finalize()
  }
}

extension SimulatedDevice {
  /// The prefix the game runs in (its config entry's `winePrefix`), in a scenario of registry.
  var prefix: String { home + "/Games/prefix" }
  var userReg: String { prefix + "/user.reg" }
  /// The folder SaveVault exports the game's keys to before each look at the save.
  var registryExport: String {
    home + "/.cache/savevault/registry/" + Self.game + "/" + SimulatedRegistry.exportName
  }

  /// Sets up the prefix: `drive_c/windows`, and a `user.reg` with the game's keys and others.
  func makePrefix() throws {
    try makeDirectory(prefix + "/drive_c/windows")
    let stamp = wineTime
    let others = [
      (#"Control Panel\\Desktop"#, [#""Wallpaper"="""#]),
      (#"Software\\Sim"#, [#""Installed"=dword:00000001"#]),
      (#"Software\\Sim\\GameOther"#, [#""Slot"="\#(name)'s other game""#]),
      (#"Software\\Unrelated"#, [#""Music"="on""#]),
    ]
    let game = [
      (SimulatedRegistry.key, [#""Slot"=dword:00000001"#, #""Name"="\#(name) as installed""#]),
      (SimulatedRegistry.key + #"\\Options"#, [#""Volume"=dword:00000050"#]),
    ]
    let sections = (others + game).map { path, lines in
      SimulatedRegistry.Section(header: "[\(path)] \(stamp)", path: path, lines: ["#time=1d\(stamp)"] + lines)
    }
    try writeRegistry(sections)
  }

  /// Wine's time for a key written now (this device's clock, in seconds).
  private var wineTime: String { String(clock.read() / 1000) }

  /// Writes `user.reg` with `sections` in Wine's order (by path), each with a new time as Wine
  /// writes them, and records what the keys that are no part of the save now hold.
  private func writeRegistry(_ sections: [SimulatedRegistry.Section]) throws {
    let stamp = wineTime
    let written = sections.sorted { $0.path.lowercased() < $1.path.lowercased() }.map { section in
      var section = section
      section.header = "[\(section.path)] \(stamp)"
      section.lines = ["#time=1d\(stamp)"] + section.lines.filter { !$0.hasPrefix("#time=") }
      return section
    }
    try Data(SimulatedRegistry.text(written).utf8).write(to: URL(fileURLWithPath: userReg))
    otherKeys = written.filter { !SimulatedRegistry.isGame($0.path) }
  }

  private var registrySections: [SimulatedRegistry.Section] {
    FileManager.default.contents(atPath: userReg).map {
      SimulatedRegistry.sections(String(decoding: $0, as: UTF8.self))
    } ?? []
  }

  /// The game writes its keys (Wine the whole file, every key's time new): a value changed, a
  /// profile subkey added, or one removed; now and then another key changes too.
  func playRegistry(_ random: inout SplitMix64, tag: String) -> String {
    var sections = registrySections
    let game = sections.indices.filter { SimulatedRegistry.isGame(sections[$0].path) }
    let profiles = game.filter { sections[$0].path.contains(#"\\Profiles\\"#) }
    var done: String
    let roll = random.int(0..<10)
    if roll < 2, let doomed = random.pick(profiles) {
      done = "removed key \(sections[doomed].path)"
      sections.remove(at: doomed)
    } else if roll < 4 || game.isEmpty {
      let path = SimulatedRegistry.key + (game.isEmpty ? "" : #"\\Profiles\\p\#(random.int(0..<5))"#)
      sections.removeAll { $0.path == path }
      sections.append(
        SimulatedRegistry.Section(header: "", path: path, lines: [#""Name"="\#(name) \#(tag)""#]))
      done = "wrote key \(path)"
    } else {
      let index = random.pick(game) ?? 0
      let value = #""Value\#(random.int(0..<3))"="\#(name) \#(tag) \#(random.int(0..<1_000_000))""#
      let name = value.prefix(while: { $0 != "=" })
      sections[index].lines.removeAll { $0.hasPrefix(name + "=") }
      sections[index].lines.append(value)
      done = "wrote a value of \(sections[index].path)"
    }
    if random.chance(30), let other = sections.firstIndex(where: { $0.path == #"Software\\Unrelated"# }) {
      sections[other].lines = [#""Music"="\#(name) \#(tag)""#]
      done += " and another key"
    }
    try? writeRegistry(sections)
    return done
  }

  /// Wine runs (the game, the player's other programs in the prefix): the whole file written
  /// again, every key's time new, and nothing else.
  func rewriteRegistry() {
    try? writeRegistry(registrySections)
  }

  /// The player deletes the game's keys.
  func wipeRegistry() {
    try? writeRegistry(registrySections.filter { !SimulatedRegistry.isGame($0.path) })
  }

  /// What no command may have changed in the prefix's file: each key that is no part of the
  /// save holds what Wine last wrote, line for line. Nil when all holds.
  func otherKeysChanges() -> String? {
    guard hasRegistry else { return nil }
    let now = registrySections.filter { !SimulatedRegistry.isGame($0.path) }
    guard now == otherKeys else {
      let changed = Set(now.map(\.header) + now.flatMap(\.lines)).symmetricDifference(
        otherKeys.map(\.header) + otherKeys.flatMap(\.lines))
      return "\(userReg): keys that are no part of the save changed: \(changed.sorted())"
    }
    return nil
  }

  /// The other forms the registry part of the save can be had back from: the folders a
  /// restore kept or set aside beside the export folder, and the whole files kept before a
  /// restore merged keys into the prefix's file. (Not the export folder itself: it is made
  /// again from the prefix's file, and what a restore put there is in its archive.)
  var registryAlternatives: [String] {
    guard hasRegistry else { return [] }
    let parent = (registryExport as NSString).deletingLastPathComponent
    let beside = ((try? Platform.directoryNames(parent)) ?? []).filter {
      $0.hasPrefix(".savevault-kept-") || $0.hasPrefix(".savevault-old-")
    }.map { parent + "/" + $0 }
    let kept = dataDirectory + "/registry-before-restore/" + Self.game
    let files = (FileManager.default.enumerator(atPath: kept)?.allObjects as? [String] ?? []).filter {
      $0.contains(".reg")
    }.map { kept + "/" + $0 }
    return beside.sorted() + files.sorted()
  }
}

extension SimulationScenario {
  /// The kill points of a restore of registry keys.
  static func registryPoints(_ points: [String]) -> [String] {
    points.filter { $0.hasPrefix("restore.registry-merging") }
  }
}
