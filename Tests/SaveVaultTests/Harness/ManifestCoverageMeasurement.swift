import Foundation
import Testing

@testable import SaveVault

/// What one game came to: its backup on the Deck, then its restore on each desktop.
struct CoverageRow: Sendable {
  /// The backup on the Deck.
  enum Backup: String, Sendable, CaseIterable {
    case whole = "kept whole"
    case refused = "refused"
    case partialNamed = "partial, named"
    case partialUnnamed = "partial, NOT named"
    case silentPartial = "SILENT partial"
  }

  /// `restore --game NAME --latest` on one desktop.
  enum Restore: String, Sendable, CaseIterable {
    /// Exit 0, every archived file where the game reads it, nothing left behind.
    case whole = "whole"
    /// Exit 0 with an archived file not where the game reads it.
    case silent = "SILENT"
    /// A non-zero exit with the desktop's folders as they were and nothing left behind.
    case refusedBeforeChange = "refused before change"
    /// A non-zero exit after the desktop's folders changed, or `.savevault-old-*` /
    /// `.savevault-staging-*` left anywhere in the desktop's home or libraries.
    case failedAfterChange = "FAILED after change"
    /// No archive to restore (the backup failed).
    case notRun = "not run"
  }

  struct OnDesktop: Sendable {
    var desktop: String
    var code: Int32?
    var restoredFiles: Int
    /// The archived files that are not where the game reads them, and where their content
    /// is on the desktop instead (`~/…`, `$T/…`).
    var notRestored: [String]
    var landed: [String]
    /// Folders and files the restore made, changed or removed (when it failed), and the
    /// leftovers it made.
    var changed: [String]
    var leftovers: [String]
    var outcome: Restore
    /// The first line of the restore's error.
    var why: String?
  }

  var title: String
  var name: String
  var shapes: [String]
  /// Entries placed, and those whose every file `scan` lists (as a location or inside one).
  var placedLocations: Int
  var scannedLocations: Int
  var addCode: Int32
  var backupCode: Int32
  var placedFiles: Int
  var keptFiles: Int
  /// The entries' files left out of the archive (`<base>/options.ron`).
  var missing: [String]
  var backup: Backup
  /// The first line of each failing add or backup's error (`backup exit 2: …`).
  var why: [String]
  var desktops: [OnDesktop]

  /// The ways this game breaks the promise: a backup that leaves a file out silently or
  /// without naming it, a restore that exits 0 with a file not where the game reads it, a
  /// restore that fails after changing the desktop.
  var promiseBreaks: [String] {
    var breaks: [String] = []
    if backup == .silentPartial || backup == .partialUnnamed {
      breaks.append("backup \(backup.rawValue), left out: \(missing.joined(separator: ", "))")
    }
    for restore in desktops where restore.outcome == .silent || restore.outcome == .failedAfterChange {
      let details =
        restore.notRestored.map { "not restored: " + $0 } + restore.landed.map { "found at: " + $0 }
        + restore.leftovers.map { "leftover: " + $0 } + restore.changed.prefix(5).map { "changed: " + $0 }
        + (restore.why.map { ["exit \(restore.code ?? 0): " + $0] } ?? [])
      breaks.append(
        "\(restore.desktop) restore \(restore.outcome.rawValue): " + details.joined(separator: "; "))
    }
    return breaks
  }
}

enum CoverageMeasurement {
  /// One measurement for the whole suite, shared by its tests.
  static let shared = Task { try await run("coverage") }

  /// Builds the Deck and both desktops, places the saves on the Deck, and measures every game.
  static func run(_ label: String) async throws -> [CoverageRow] {
    let dir = TemporaryDirectory("coverage-\(label)")
    let deck = try CoverageDevice.deck(dir)
    let desktops = [try CoverageDevice.desktop(dir), try CoverageDevice.flatpak(dir)]
    try deck.place()
    var sandbox = try Sandbox(
      in: dir, device: "deck",
      environment: [
        "SAVEVAULT_MANIFEST": fixture("manifest-real-games.yaml"), "SAVEVAULT_CONTAINER": dir.sub("cloud"),
      ])
    sandbox.home = deck.device.home
    let onDeck = sandbox
    let scanned = try jsonList(await onDeck.ok(["scan", "--json"]).stdout)
    var walks = desktops.map { DesktopWalk($0) }
    var rows: [CoverageRow] = []
    for index in CoverageGame.all.indices {
      rows.append(
        try await measure(index, deck: deck, onDeck: onDeck, desktops: &walks, scanned: scanned, dir: dir))
    }
    return rows
  }

  static func measure(
    _ index: Int, deck: CoverageDevice, onDeck: Sandbox, desktops: inout [DesktopWalk],
    scanned: [[String: Any]], dir: TemporaryDirectory
  ) async throws -> CoverageRow {
    let game = CoverageGame.all[index]
    let found = scanned.first { $0["storeGameId"] as? String == String(game.steamID) }
    let name = found?["game"] as? String ?? Target.gameName(forTitle: game.title)
    let listed = ((found?["locations"] as? [[String: Any]]) ?? []).compactMap { $0["path"] as? String }
      .map(real)
    func isListed(_ path: String) -> Bool {
      let path = real(path)
      return listed.contains { path == $0 || path.hasPrefix($0 + "/") }
    }
    let scannedLocations = game.placements.filter { placement in
      placement.files.allSatisfy { isListed(deck.path($0, of: placement, game: index)) }
    }.count

    let added = try await onDeck.runAwaiting(["add", game.title, "--detect"])
    let backup = try await onDeck.runAwaiting(["backup", "--game", name, "--json"])
    let archive = (try? jsonObject(backup.stdout))?["archive"] as? String
    var archived = Set<String>()
    if let archive {
      let extracted = dir.sub("extracted/\(index)")
      try makeDirectory(extracted)
      let tar = try await runProgramAwaiting(
        "/bin/tar", ["-xf", dir.sub("cloud/\(name)/\(archive)"), "-C", extracted])
      try #require(tar.code == 0, "tar: \(tar.stderr)")
      for case let relative as String in FileManager.default.enumerator(atPath: extracted) ?? .init() {
        if let content = text(extracted + "/" + relative) { archived.insert(content) }
      }
    }

    var placedFiles = 0
    var missing: [String] = []
    var unnamed: [String] = []
    var kept: [(placement: CoverageGame.Placement, file: String)] = []
    let said = backup.stderr + backup.stdout + added.stderr
    for placement in game.placements {
      for file in placement.files {
        placedFiles += 1
        let content = CoverageDevice.content(game, placement, file)
        // A registry key is archived as its export, and restored into the prefix's file.
        let value = CoverageDevice.registryValue(content)
        let isArchived =
          placement.isRegistry ? archived.contains { $0.contains(value) } : archived.contains(content)
        if isArchived {
          kept.append((placement, file))
          continue
        }
        let shown = display(file, of: placement)
        missing.append(shown)
        let deckPath = deck.path(file, of: placement, game: index)
        let named =
          placement.isRegistry
          ? said.contains(deckPath) || said.contains(file)
          : said.contains(placement.template) || said.contains(deckPath) || said.contains(shown)
        if !named { unnamed.append(shown) }
      }
    }
    let outcome: CoverageRow.Backup
    if added.code != 0 || backup.code != 0 {
      outcome = kept.isEmpty ? .refused : unnamed.isEmpty ? .partialNamed : .partialUnnamed
    } else {
      outcome = missing.isEmpty ? .whole : .silentPartial
    }
    var restores: [CoverageRow.OnDesktop] = []
    for position in desktops.indices {
      restores.append(
        try await desktops[position].restore(
          game: index, name: name, kept: archive == nil ? nil : kept, onDeck: onDeck, dir: dir))
    }
    let runs: [(String, RunResult)] = [("add", added), ("backup", backup)]
    let why = runs.compactMap { command, run in
      run.code == 0 ? nil : "\(command) exit \(run.code): \(firstLine(run.stderr, dir: dir))"
    }
    return CoverageRow(
      title: game.title, name: name, shapes: game.shapes, placedLocations: game.placements.count,
      scannedLocations: scannedLocations, addCode: added.code, backupCode: backup.code,
      placedFiles: placedFiles, keptFiles: kept.count, missing: missing, backup: outcome, why: why,
      desktops: restores)
  }

  /// A placed file as the report names it: its entry's placeholder and its path below it.
  static func display(_ file: String, of placement: CoverageGame.Placement) -> String {
    if placement.isRegistry { return "registry (pfx/\(file))" }
    return placement.template.prefix { $0 != ">" } + (placement.isGlued ? ">" : ">/") + file
  }

  static func real(_ path: String) -> String { Platform.realPath(path) ?? path }

  /// The first line of `text`, the test's folder written `$T`.
  static func firstLine(_ text: String, dir: TemporaryDirectory) -> String {
    let line = text.split(separator: "\n").first.map(String.init) ?? ""
    let short = line.replacingOccurrences(of: dir.path, with: "$T")
    return short.count > 700 ? String(short.prefix(700)) + "…" : short
  }
}

/// A desktop the games are restored on, with what its home and libraries held after the
/// last restore (each entry's kind, size and modification time), to tell what a restore
/// changed and left behind.
struct DesktopWalk {
  let device: CoverageDevice
  private var state: [String: String]

  init(_ device: CoverageDevice) {
    self.device = device
    state = Self.walk(device)
  }

  /// Restores the game at `index` (when it has an archive, `kept` its archived files) and
  /// classifies what came of it.
  mutating func restore(
    game index: Int, name: String, kept: [(placement: CoverageGame.Placement, file: String)]?,
    onDeck: Sandbox, dir: TemporaryDirectory
  ) async throws -> CoverageRow.OnDesktop {
    guard let kept else {
      return CoverageRow.OnDesktop(
        desktop: device.name, code: nil, restoredFiles: 0, notRestored: [], landed: [], changed: [],
        leftovers: [], outcome: .notRun, why: nil)
    }
    let game = CoverageGame.all[index]
    let run = try await onDeck.device(device.name, home: device.device.home).runAwaiting([
      "restore", "--game", name, "--latest",
    ])
    let after = Self.walk(device)
    let changed = Set(after.keys).union(state.keys).filter { after[$0] != state[$0] }.sorted()
    let leftovers = changed.filter { path in
      after[path] != nil
        && ["/.savevault-old-", "/.savevault-staging-"].contains { path.contains($0) }
    }
    var notRestored: [String] = []
    var landed: [String] = []
    for (placement, file) in kept {
      let content = CoverageDevice.content(game, placement, file)
      let restored = text(device.path(file, of: placement, game: index))
      let isRestored =
        placement.isRegistry
        ? restored?.contains(CoverageDevice.registryValue(content)) == true : restored == content
      guard !isRestored else { continue }
      notRestored.append(CoverageMeasurement.display(file, of: placement))
      if !placement.isRegistry {
        landed += Self.find(content, in: after).map { short($0, dir: dir) }
      }
    }
    state = after
    let outcome: CoverageRow.Restore
    if run.code != 0 {
      outcome = changed.isEmpty ? .refusedBeforeChange : .failedAfterChange
    } else if !leftovers.isEmpty {
      outcome = .failedAfterChange
    } else {
      outcome = notRestored.isEmpty ? .whole : .silent
    }
    return CoverageRow.OnDesktop(
      desktop: device.name, code: run.code, restoredFiles: kept.count - notRestored.count,
      notRestored: notRestored, landed: landed, changed: changed.map { short($0, dir: dir) },
      leftovers: leftovers.map { short($0, dir: dir) }, outcome: outcome,
      why: run.code == 0 ? nil : CoverageMeasurement.firstLine(run.stderr, dir: dir))
  }

  /// `path` written from the desktop's home (`~/…`) or the test's folder (`$T/…`).
  func short(_ path: String, dir: TemporaryDirectory) -> String {
    if path.hasPrefix(device.device.home + "/") { return "~" + path.dropFirst(device.device.home.count) }
    return path.replacingOccurrences(of: dir.path, with: "$T")
  }

  /// The files (of `state`) holding exactly `content`.
  static func find(_ content: String, in state: [String: String]) -> [String] {
    let size = "f \(content.utf8.count) "
    return state.filter { $0.value.hasPrefix(size) }.keys.filter { text($0) == content }.sorted()
  }

  /// Every entry under the device's home and libraries but SaveVault's own folders (and the
  /// XDG folders holding them, which its first run may make): a file's or link's size and
  /// modification time, a folder's being there.
  static func walk(_ device: CoverageDevice) -> [String: String] {
    let home = device.device.home
    let own = [".config/savevault", ".local/share/savevault", ".local/state/savevault", ".cache/savevault"]
      .map { home + "/" + $0 }
    let holders = Set(
      [".config", ".local", ".local/share", ".local/state", ".cache"].map { home + "/" + $0 })
    var state: [String: String] = [:]
    for root in device.roots {
      for case let relative as String in FileManager.default.enumerator(atPath: root) ?? .init() {
        let path = root + "/" + relative
        if holders.contains(path) || own.contains(where: { path == $0 || path.hasPrefix($0 + "/") }) {
          continue
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { continue }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: state[path] = "d"
        case S_IFLNK: state[path] = "l \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        default: state[path] = "f \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }
      }
    }
    return state
  }
}
