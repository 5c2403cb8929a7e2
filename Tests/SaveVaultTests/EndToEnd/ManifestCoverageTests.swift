import Foundation
import Testing

@testable import SaveVault

/// Save coverage on real manifest entries, through the built binary: a Deck with the games of
/// `Tests/Fixtures/manifest-real-games.yaml` installed, about half through Steam and the rest
/// through Heroic's GOG store, Epic (Heroic's Legendary), Lutris and non-Steam shortcuts in
/// Steam (`CoverageGame.assigningLaunchers`), each entry's files placed where the entry says;
/// `scan`, then `add TITLE --detect` and `backup --game NAME`, the archive read back with GNU
/// tar, then `restore --game NAME --latest` on two desktops laid out as players' are, each game
/// installed there through the same store's launcher laid out another way: one with Debian's
/// Steam, another user, Steam account and library layout, Heroic with Wine prefixes for GOG,
/// Legendary alone for Epic, older Lutris's folders and other install paths
/// (`CoverageDevice.desktop`); one with Flatpak Steam, a fresh home and yet another account,
/// Flatpak Heroic with its prefixes on another disk, newer Lutris's folders
/// (`CoverageDevice.flatpak`). Each game's backup is whole, refused, partial with the
/// left-out files named, or a silent partial; each restore is whole, silent (exit 0 with a
/// file not where the game reads it), refused before changing anything, or failed after
/// changing the desktop (or leaving `.savevault-old-*` / `.savevault-staging-*` behind).
///
/// `SAVEVAULT_COVERAGE_REPORT=FILE swift test --skip-build --filter ManifestCoverageTests`
/// measures and writes the table to FILE
/// (bench/history/2026-12-03-manifest-coverage-launchers.md).
@Suite(
  "Manifest coverage: real Ludusavi entries of five launchers backed up and restored on two desktops",
  .tags(.medium))
struct ManifestCoverageTests {
  @Test(
    "the promise on every game and both desktops: no silent partial backup or restore, no restore failing after a change"
  )
  func promiseOnBothDesktops() async throws {
    let rows = try await CoverageMeasurement.shared.value
    #expect(rows.count == CoverageGame.all.count)
    for row in rows {
      for problem in row.promiseBreaks {
        Issue.record("\(row.title): \(problem)")
      }
    }
  }

  /// The games refused before change on a desktop today: a save folder named by the store's
  /// user id, which a desktop where the game never ran cannot tell (Epic's and GOG's account
  /// ids are not read from their launchers' files).
  static let knownRefusals: Set<String> = ["007 First Light", "Kingdom Hearts III", "Legend of Mana"]

  @Test("every launcher's games are restored whole on both desktops, but the known refusals")
  func launchersOnBothDesktops() async throws {
    let rows = try await CoverageMeasurement.shared.value
    for launcher in CoverageLauncher.allCases {
      #expect(rows.contains { $0.launcher == launcher }, "no game is installed through \(launcher.rawValue)")
    }
    for row in rows {
      for restore in row.desktops {
        if Self.knownRefusals.contains(row.title) {
          #expect(
            restore.outcome == .refusedBeforeChange || restore.outcome == .whole,
            "\(row.title) (\(row.launcher.rawValue)): \(restore.desktop) restore \(restore.outcome.rawValue)")
        } else if restore.outcome != .whole {
          let why = restore.why ?? ""
          Issue.record(
            "\(row.title) (\(row.launcher.rawValue)): \(restore.desktop) restore \(restore.outcome.rawValue): \(why)"
          )
        }
      }
    }
  }

  @Test(
    "the coverage table, written to $SAVEVAULT_COVERAGE_REPORT",
    .enabled(if: ProcessInfo.processInfo.environment["SAVEVAULT_COVERAGE_REPORT"] != nil))
  func report() async throws {
    let rows = try await CoverageMeasurement.shared.value
    let text = CoverageReport.markdown(rows)
    print(text)
    if let file = ProcessInfo.processInfo.environment["SAVEVAULT_COVERAGE_REPORT"] {
      try writeFile(file, text)
    }
    #expect(rows.count == CoverageGame.all.count)
  }
}

/// The coverage table and its totals, in Markdown.
enum CoverageReport {
  static func markdown(_ rows: [CoverageRow]) -> String {
    let desktops = rows.first?.desktops.map(\.desktop) ?? []
    var text = "| game | launcher | shapes | scan | add | backup | files kept/placed | "
    text += desktops.map { "\($0): restored (exit) | \($0)" }.joined(separator: " | ")
    text += " | gaps |\n|" + String(repeating: " --- |", count: 8 + 2 * desktops.count) + "\n"
    for row in rows {
      let restores = row.desktops.map { restore in
        let count = restore.code.map { "\(restore.restoredFiles)/\(row.keptFiles) (exit \($0))" } ?? "–"
        return count + " | " + restore.outcome.rawValue
      }
      var gaps = row.missing.map { "left out: " + $0 }
      for restore in row.desktops {
        gaps += restore.notRestored.map { "\(restore.desktop): not restored: " + $0 }
        gaps += restore.landed.map { "\(restore.desktop): found at " + $0 }
        gaps += restore.leftovers.map { "\(restore.desktop): leftover " + $0 }
      }
      text +=
        "| "
        + [
          cell(row.title), row.launcher.rawValue, cell(row.shapes.joined(separator: ", ")),
          "\(row.scannedLocations)/\(row.placedLocations)",
          "\(row.addCode)", "\(row.backupCode) \(row.backup.rawValue)", "\(row.keptFiles)/\(row.placedFiles)",
        ].joined(separator: " | ") + " | " + restores.joined(separator: " | ") + " | "
        + cell(gaps.joined(separator: "; ")) + " |\n"
    }
    text +=
      "\n" + byLauncher(rows, desktops: desktops) + "\n" + totals(rows, desktops: desktops) + shapes(rows)
      + failures(rows, desktops: desktops)
    return text
  }

  /// Games per launcher and desktop: whole, silent, refused before change, failed after change
  /// (and not run: no archive).
  static func byLauncher(_ rows: [CoverageRow], desktops: [String]) -> String {
    var text =
      "Restores by the launcher the Deck installed each game with (whole / SILENT / refused before change"
    text += " / FAILED after change / not run):\n\n| launcher | games | backups whole | "
    text +=
      desktops.joined(separator: " | ") + " |\n|" + String(repeating: " --- |", count: 3 + desktops.count)
      + "\n"
    let order: [CoverageRow.Restore] = [.whole, .silent, .refusedBeforeChange, .failedAfterChange, .notRun]
    for launcher in CoverageLauncher.allCases {
      let games = rows.filter { $0.launcher == launcher }
      guard !games.isEmpty else { continue }
      let cells = desktops.indices.map { position in
        order.map { outcome in String(games.filter { $0.desktops[position].outcome == outcome }.count) }
          .joined(separator: " / ")
      }
      text += "| \(launcher.rawValue) | \(games.count) | \(games.filter { $0.backup == .whole }.count) | "
      text += cells.joined(separator: " | ") + " |\n"
    }
    let cells = desktops.indices.map { position in
      order.map { outcome in String(rows.filter { $0.desktops[position].outcome == outcome }.count) }
        .joined(separator: " / ")
    }
    text +=
      "| all | \(rows.count) | \(rows.filter { $0.backup == .whole }.count) | "
      + cells.joined(separator: " | ")
    return text + " |\n"
  }

  static func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }

  static func titles(_ rows: [CoverageRow]) -> String {
    rows.isEmpty ? "" : " (" + rows.map(\.title).joined(separator: "; ") + ")"
  }

  /// The backup's outcomes, then each desktop's.
  static func totals(_ rows: [CoverageRow], desktops: [String]) -> String {
    var text = "Backups on the Deck:\n\n"
    for outcome in CoverageRow.Backup.allCases {
      let games = rows.filter { $0.backup == outcome }
      text += "- \(outcome.rawValue): \(games.count) of \(rows.count)"
      text += (outcome == .whole ? "" : titles(games)) + "\n"
    }
    let placed = rows.reduce(0) { $0 + $1.placedLocations }
    let scanned = rows.reduce(0) { $0 + $1.scannedLocations }
    let files = rows.reduce(0) { $0 + $1.placedFiles }
    let kept = rows.reduce(0) { $0 + $1.keptFiles }
    text += "- locations found by scan: \(scanned) of \(placed) placed\n"
    text += "- files kept in the archives: \(kept) of \(files) placed\n"
    for (position, desktop) in desktops.enumerated() {
      text += "\nRestores on `\(desktop)`:\n\n"
      for outcome in CoverageRow.Restore.allCases {
        let games = rows.filter { $0.desktops[position].outcome == outcome }
        text += "- \(outcome.rawValue): \(games.count) of \(rows.count)"
        text += (outcome == .whole ? "" : titles(games)) + "\n"
      }
      let restored = rows.reduce(0) { $0 + $1.desktops[position].restoredFiles }
      text += "- files restored where the game reads them: \(restored) of \(kept) kept\n"
    }
    return text
  }

  /// How many games have an entry of each shape.
  static func shapes(_ rows: [CoverageRow]) -> String {
    var counts: [String: Int] = [:]
    for row in rows {
      for shape in row.shapes { counts[shape, default: 0] += 1 }
    }
    let listed = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
    return "\nShapes (games with at least one entry of each): "
      + listed.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + "\n"
  }

  /// Each failing game, per desktop and outcome: what its commands said and what landed where.
  static func failures(_ rows: [CoverageRow], desktops: [String]) -> String {
    var text = ""
    let backups = rows.filter { !$0.why.isEmpty }
    if !backups.isEmpty {
      text += "\nWhat the failing adds and backups said (first line; `$T` is the test's folder):\n\n"
      for row in backups {
        text += "- \(row.title):\n" + row.why.map { "  - `\($0)`\n" }.joined()
      }
    }
    for (position, desktop) in desktops.enumerated() {
      for outcome in [CoverageRow.Restore.silent, .failedAfterChange, .refusedBeforeChange] {
        let games = rows.filter { $0.desktops[position].outcome == outcome }
        guard !games.isEmpty else { continue }
        text += "\n`\(desktop)`, \(outcome.rawValue) (`~` is that desktop's home):\n\n"
        for row in games {
          let restore = row.desktops[position]
          var details = restore.why.map { ["exit \(restore.code ?? 0): `\($0)`"] } ?? []
          details += restore.notRestored.map { "not where the game reads it: `\($0)`" }
          details += restore.landed.map { "found at `\($0)`" }
          details += restore.leftovers.map { "left behind: `\($0)`" }
          if outcome == .failedAfterChange, restore.code != 0 {
            details += restore.changed.prefix(4).map { "changed: `\($0)`" }
          }
          text += "- \(row.title):\n" + details.map { "  - \($0)\n" }.joined()
        }
      }
    }
    return text
  }
}
