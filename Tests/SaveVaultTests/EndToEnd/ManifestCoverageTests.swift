import Foundation
import Testing

@testable import SaveVault

/// Save coverage on real manifest entries, through the built binary: a Deck whose Steam has
/// the 37 games of `Tests/Fixtures/manifest-real-games.yaml` installed, each entry's files
/// placed where the entry says; `scan`, then `add TITLE --detect` and `backup --game NAME`,
/// the archive read back with GNU tar, then `restore --game NAME --latest` on a desktop with
/// another user, Steam user and library layout. Each game is fully covered, refused, partial
/// with the left-out files named, or a silent partial (exit 0 with a placed file left out or
/// not restored where the entry says): the one outcome the product must never have.
///
/// `SAVEVAULT_COVERAGE_REPORT=FILE swift test --skip-build --filter ManifestCoverageTests`
/// measures and writes the table to FILE (bench/history/2026-12-02-manifest-coverage.md).
@Suite("Manifest coverage: real Ludusavi entries backed up and restored", .tags(.medium))
struct ManifestCoverageTests {
  @Test("no silent partial: every game is kept whole, or the command fails and names what it leaves out")
  func noSilentPartial() async throws {
    let rows = try await CoverageMeasurement.run("promise")
    for row in rows {
      #expect(
        !row.outcome.breaksPromise,
        "\(row.title): \(row.outcome.rawValue); left out: \(row.missing.joined(separator: ", ")); not restored: \(row.notRestored.joined(separator: ", ")); \(row.why.joined(separator: "; "))"
      )
    }
  }

  @Test(
    "the coverage table, written to $SAVEVAULT_COVERAGE_REPORT",
    .enabled(if: ProcessInfo.processInfo.environment["SAVEVAULT_COVERAGE_REPORT"] != nil))
  func report() async throws {
    let rows = try await CoverageMeasurement.run("report")
    let text = CoverageMeasurement.markdown(rows)
    print(text)
    if let file = ProcessInfo.processInfo.environment["SAVEVAULT_COVERAGE_REPORT"] {
      try writeFile(file, text)
    }
    #expect(rows.count == CoverageGame.all.count)
  }
}

/// What one game came to.
struct CoverageRow {
  enum Outcome: String {
    case covered = "fully covered"
    case refused = "refused"
    case partialNamed = "partial, named"
    case partialUnnamed = "partial, NOT named"
    case silentPartial = "SILENT partial"
    case restoreRefused = "restore refused"
    case silentRestore = "SILENT partial restore"

    /// Exit 0 with a placed file left out, or a failure that does not say which.
    var breaksPromise: Bool { self == .silentPartial || self == .partialUnnamed || self == .silentRestore }
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
  var restoreCode: Int32?
  var restoredFiles: Int
  /// The entries' files left out of the archive (`<base>/options.ron`).
  var missing: [String]
  /// The archived files that did not come back where the entry says on the desktop.
  var notRestored: [String]
  var outcome: Outcome
  /// The first line of each failing command's error (`backup exit 2: …`).
  var why: [String]
}

enum CoverageMeasurement {
  /// Builds both devices, places the saves on the Deck, and measures every game.
  static func run(_ label: String) async throws -> [CoverageRow] {
    let dir = TemporaryDirectory("coverage-\(label)")
    let deck = try CoverageDevice.deck(dir)
    let desktop = try CoverageDevice.desktop(dir)
    try deck.place()
    var sandbox = try Sandbox(
      in: dir, device: "deck",
      environment: [
        "SAVEVAULT_MANIFEST": fixture("manifest-real-games.yaml"), "SAVEVAULT_CONTAINER": dir.sub("cloud"),
      ])
    sandbox.home = deck.device.home
    let onDeck = sandbox
    let onDesktop = sandbox.device("desktop", home: desktop.device.home)
    let scanned = try jsonList(await onDeck.ok(["scan", "--json"]).stdout)
    var rows: [CoverageRow] = []
    for index in CoverageGame.all.indices {
      rows.append(
        try await measure(
          index, deck: deck, desktop: desktop, onDeck: onDeck, onDesktop: onDesktop, scanned: scanned,
          dir: dir))
    }
    return rows
  }

  static func measure(
    _ index: Int, deck: CoverageDevice, desktop: CoverageDevice, onDeck: Sandbox, onDesktop: Sandbox,
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
    let restore =
      archive == nil ? nil : try await onDesktop.runAwaiting(["restore", "--game", name, "--latest"])

    var placedFiles = 0
    var missing: [String] = []
    var notRestored: [String] = []
    var unnamed: [String] = []
    let said = backup.stderr + backup.stdout + added.stderr
    for placement in game.placements {
      for file in placement.files {
        placedFiles += 1
        let content = CoverageDevice.content(game, placement, file)
        let shown = display(file, of: placement)
        // A registry key is archived as its export, and restored into the prefix's file.
        let value = CoverageDevice.registryValue(content)
        let isArchived =
          placement.isRegistry ? archived.contains { $0.contains(value) } : archived.contains(content)
        guard isArchived else {
          missing.append(shown)
          let deckPath = deck.path(file, of: placement, game: index)
          let named =
            placement.isRegistry
            ? said.contains(deckPath) || said.contains(file)
            : said.contains(placement.template) || said.contains(deckPath) || said.contains(shown)
          if !named {
            unnamed.append(shown)
          }
          continue
        }
        let restored = text(desktop.path(file, of: placement, game: index))
        let isRestored = placement.isRegistry ? restored?.contains(value) == true : restored == content
        if !isRestored { notRestored.append(shown) }
      }
    }
    let kept = placedFiles - missing.count
    let outcome: CoverageRow.Outcome
    if added.code != 0 || backup.code != 0 {
      outcome = kept == 0 ? .refused : unnamed.isEmpty ? .partialNamed : .partialUnnamed
    } else if !missing.isEmpty {
      outcome = .silentPartial
    } else if let restore, restore.code != 0 {
      outcome = .restoreRefused
    } else if !notRestored.isEmpty {
      outcome = .silentRestore
    } else {
      outcome = .covered
    }
    let runs: [(String, RunResult?)] = [("add", added), ("backup", backup), ("restore", restore)]
    let why = runs.compactMap { command, run in
      run.flatMap { $0.code == 0 ? nil : "\(command) exit \($0.code): \(firstLine($0.stderr, dir: dir))" }
    }
    return CoverageRow(
      title: game.title, name: name, shapes: game.shapes, placedLocations: game.placements.count,
      scannedLocations: scannedLocations, addCode: added.code, backupCode: backup.code,
      placedFiles: placedFiles,
      keptFiles: kept, restoreCode: restore?.code, restoredFiles: kept - notRestored.count, missing: missing,
      notRestored: notRestored, outcome: outcome, why: why)
  }

  /// A placed file as the report names it: its entry's placeholder and its path below it.
  static func display(_ file: String, of placement: CoverageGame.Placement) -> String {
    if placement.isRegistry { return "registry (pfx/\(file))" }
    return placement.template.prefix { $0 != ">" } + ">/" + file
  }

  static func real(_ path: String) -> String { Platform.realPath(path) ?? path }

  /// The first line of `text`, the test's folder written `$T`.
  static func firstLine(_ text: String, dir: TemporaryDirectory) -> String {
    let line = text.split(separator: "\n").first.map(String.init) ?? ""
    let short = line.replacingOccurrences(of: dir.path, with: "$T")
    return short.count > 700 ? String(short.prefix(700)) + "…" : short
  }

  /// The table and its totals, in Markdown.
  static func markdown(_ rows: [CoverageRow]) -> String {
    func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
    var text =
      "| game | shapes | scan | add exit | backup exit | files kept/placed | restored | outcome | missing |\n"
    text += "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
    for row in rows {
      let restored = row.restoreCode.map { "\(row.restoredFiles)/\(row.keptFiles) (exit \($0))" } ?? "–"
      let gaps =
        row.missing.map { "left out: " + $0 } + row.notRestored.map { "not restored: " + $0 }
      text +=
        "| \(cell(row.title)) | \(cell(row.shapes.joined(separator: ", "))) | \(row.scannedLocations)/\(row.placedLocations) | \(row.addCode) | \(row.backupCode) | \(row.keptFiles)/\(row.placedFiles) | \(restored) | \(row.outcome.rawValue) | \(cell(gaps.joined(separator: "; "))) |\n"
    }
    let count = { (outcome: CoverageRow.Outcome) in rows.filter { $0.outcome == outcome } }
    text += "\n"
    for outcome in [
      CoverageRow.Outcome.covered, .refused, .partialNamed, .partialUnnamed, .silentPartial, .restoreRefused,
      .silentRestore,
    ] {
      let games = count(outcome)
      text +=
        "- \(outcome.rawValue): \(games.count) of \(rows.count)"
        + (games.isEmpty ? "" : " (" + games.map(\.title).joined(separator: "; ") + ")") + "\n"
    }
    let placed = rows.reduce(0) { $0 + $1.placedLocations }
    let scanned = rows.reduce(0) { $0 + $1.scannedLocations }
    let files = rows.reduce(0) { $0 + $1.placedFiles }
    let kept = rows.reduce(0) { $0 + $1.keptFiles }
    let restored = rows.reduce(0) { $0 + $1.restoredFiles }
    text += "- locations found by scan: \(scanned) of \(placed) placed\n"
    text +=
      "- files kept in the archives: \(kept) of \(files) placed; restored where the entry says: \(restored) of \(kept)\n"
    let refusals = rows.filter { !$0.why.isEmpty }
    if !refusals.isEmpty {
      text += "\nWhat the failing commands said (first line; `$T` is the test's folder):\n\n"
      for row in refusals {
        text += "- \(row.title):\n" + row.why.map { "  - `\($0)`\n" }.joined()
      }
    }
    return text
  }
}
