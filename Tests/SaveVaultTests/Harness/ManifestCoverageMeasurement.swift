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
  /// The launcher the Deck installed the game with (each desktop: the same store's, its way).
  var launcher: CoverageLauncher
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

  /// What the Deck's backup of one game came to, and the files its archive kept.
  struct DeckBackup: Sendable {
    var index: Int
    /// The row without its restores.
    var row: CoverageRow
    /// The archived files; nil when there is no archive.
    var kept: [(placement: CoverageGame.Placement, file: String)]?
  }

  /// What a part of the measurement returns: the Deck's backups, or one desktop's restores.
  enum Part: Sendable {
    case deck([DeckBackup])
    case desktop(Int, [CoverageRow.OnDesktop])
  }

  /// Builds the Deck and both desktops, places the saves on the Deck, and measures every game.
  /// The Deck backs the games up one after another (each `add` writes its config file), and
  /// each desktop restores each game as soon as its archive is there, in the same order: three
  /// streams of programs sharing `ProgramGate`'s slots, each desktop's restores one at a time
  /// so that what each changed is told apart.
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
    let streams = desktops.map { _ in AsyncStream.makeStream(of: DeckBackup.self) }
    let parts = try await withThrowingTaskGroup(of: Part.self) { group in
      group.addTask {
        defer { for stream in streams { stream.continuation.finish() } }
        let scanned = try jsonList(await onDeck.ok(["scan", "--json"]).stdout)
        var backups: [DeckBackup] = []
        for index in CoverageGame.all.indices {
          let backup = try await backUp(index, deck: deck, onDeck: onDeck, scanned: scanned, dir: dir)
          backups.append(backup)
          for stream in streams { stream.continuation.yield(backup) }
        }
        return .deck(backups)
      }
      for (position, desktop) in desktops.enumerated() {
        let stream = streams[position].stream
        group.addTask {
          var walk = DesktopWalk(desktop)
          var restores: [CoverageRow.OnDesktop] = []
          for await backup in stream {
            restores.append(
              try await walk.restore(
                game: backup.index, name: backup.row.name, kept: backup.kept, onDeck: onDeck, dir: dir))
          }
          return .desktop(position, restores)
        }
      }
      var parts: [Part] = []
      for try await part in group { parts.append(part) }
      return parts
    }
    var rows: [CoverageRow] = []
    var restores = Array(repeating: [CoverageRow.OnDesktop](), count: desktops.count)
    for part in parts {
      switch part {
      case .deck(let backups): rows = backups.map(\.row)
      case .desktop(let position, let done): restores[position] = done
      }
    }
    for index in rows.indices {
      rows[index].desktops = restores.compactMap { $0.indices.contains(index) ? $0[index] : nil }
    }
    return rows
  }

  /// `add TITLE --detect` and `backup --game NAME` on the Deck for the game at `index`, and what
  /// its archive kept.
  static func backUp(
    _ index: Int, deck: CoverageDevice, onDeck: Sandbox, scanned: [[String: Any]], dir: TemporaryDirectory
  ) async throws -> DeckBackup {
    let game = CoverageGame.all[index]
    let found = scanned.first {
      $0["store"] as? String == game.launcher.store && $0["storeGameId"] as? String == game.storeGameID
    }
    let name = found?["game"] as? String ?? Target.gameName(forTitle: game.title)
    let listed = ((found?["locations"] as? [[String: Any]]) ?? []).compactMap { $0["path"] as? String }
      .map(real)
    func isListed(_ path: String) -> Bool {
      let path = real(path)
      return listed.contains { path == $0 || path.hasPrefix($0 + "/") }
    }
    let scannedLocations = game.placed.filter { placement in
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
    for placement in game.placed {
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
    let runs: [(String, RunResult)] = [("add", added), ("backup", backup)]
    let why = runs.compactMap { command, run in
      run.code == 0 ? nil : "\(command) exit \(run.code): \(firstLine(run.stderr, dir: dir))"
    }
    let row = CoverageRow(
      title: game.title, name: name, launcher: game.launcher, shapes: game.shapes,
      placedLocations: game.placed.count, scannedLocations: scannedLocations, addCode: added.code,
      backupCode: backup.code, placedFiles: placedFiles, keptFiles: kept.count, missing: missing,
      backup: outcome,
      why: why, desktops: [])
    return DeckBackup(index: index, row: row, kept: archive == nil ? nil : kept)
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

/// A desktop the games are restored on, with what its folders held after the last restore
/// (each entry's kind, size and modification time), to tell what a restore changed and left
/// behind.
struct DesktopWalk {
  let device: CoverageDevice
  private var state: [String: Entry]

  /// What a walk records of an entry: its kind (`S_IFDIR`, `S_IFLNK`, any other), and for a
  /// file or link its size and modification time.
  struct Entry: Equatable, Sendable {
    var kind: mode_t
    var size: Int = 0
    var modified: Int = 0
  }

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
  static func find(_ content: String, in state: [String: Entry]) -> [String] {
    let size = content.utf8.count
    return state.filter { $0.value.kind == S_IFREG && $0.value.size == size }.keys.filter {
      text($0) == content
    }
    .sorted()
  }

  /// Every entry of the device but SaveVault's own folders (and the XDG folders holding them,
  /// which its first run may make): a file's or link's size and modification time, a folder's
  /// being there. Read with `readdir` and `lstat`, SaveVault's own folders not gone into: a
  /// walk runs after every restore, over thousands of entries.
  static func walk(_ device: CoverageDevice) -> [String: Entry] {
    let home = device.device.home
    let own = Set(
      [".config/savevault", ".local/share/savevault", ".local/state/savevault", ".cache/savevault"].map {
        home + "/" + $0
      })
    let holders = Set(
      [".config", ".local", ".local/share", ".local/state", ".cache"].map { home + "/" + $0 })
    var state: [String: Entry] = [:]
    func walk(_ folder: String) {
      for name in (try? Platform.directoryNames(folder)) ?? [] {
        let path = folder + "/" + name
        guard !own.contains(path) else { continue }
        var info = stat()
        guard lstat(path, &info) == 0 else { continue }
        let kind = info.st_mode & S_IFMT
        if kind == S_IFDIR {
          if !holders.contains(path) { state[path] = Entry(kind: kind) }
          walk(path)
        } else {
          state[path] = Entry(
            kind: kind == S_IFLNK ? S_IFLNK : S_IFREG, size: Int(info.st_size),
            modified: info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec)
        }
      }
    }
    for root in device.roots { walk(root) }
    return state
  }
}
