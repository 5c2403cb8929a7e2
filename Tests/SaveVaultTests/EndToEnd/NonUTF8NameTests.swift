import Foundation
import Testing

/// Saves whose file names are not UTF-8 (Latin-1 from old games, Shift-JIS from Windows games
/// under Proton), through the built binary: every byte of every name is kept.
@Suite("File names kept byte for byte, through the binary", .tags(.medium))
struct NonUTF8NameTests {

  /// Python, which handles names as bytes: `make SAVE` builds the save (`twins SAVE` one whose
  /// names differ only in Unicode normalization), `change SAVE` rewrites
  /// its Latin-1 named file, `dump ROOT` prints a
  /// tree as JSON (hex names and contents, `.savevault` left out), `tarfile ARCHIVE OUT`
  /// extracts with Python's tarfile (Tests/Fixtures).
  static let script = fixture("names-as-bytes.py")

  func python(_ arguments: [String]) async throws -> String {
    let result = try await runProgramAwaiting(try requiredProgram("python3"), [Self.script] + arguments)
    try #require(result.code == 0, "python \(arguments): \(result.stderr)")
    return result.stdout
  }

  /// A save made by the script's `command`, its dump, and its backup's JSON report and archive.
  struct BackedUp {
    var box: Sandbox
    var save: String
    var original: String
    var report: [String: Any]
    var archive: String
  }

  func backedUp(_ game: String, made command: String) async throws -> BackedUp {
    let box = try Sandbox(game, device: "testbox")
    let save = box.path("saves/" + game)
    try makeDirectory(save)
    _ = try await python([command, save])
    let original = try await python(["dump", save])
    let backup = try await box.runAwaiting(["backup", "--save-dir", save, "--json"])
    try #require(backup.code == 0, "backup failed: \(backup.stderr)")
    let report = try jsonObject(backup.stdout)
    let archive = box.defaultContainer + "/" + game + "/" + (try #require(report["archive"] as? String))
    return BackedUp(box: box, save: save, original: original, report: report, archive: archive)
  }

  @Test("backed up, read back by tar and tarfile, noticed when changed, restored byte for byte")
  func keptByteForByte() async throws {
    let made = try await backedUp("oldgame", made: "make")
    let (box, save, original, report, archive) = (
      made.box, made.save, made.original, made.report, made.archive
    )
    #expect(original.contains("636166e9"), "the Latin-1 name is missing from the made save: \(original)")
    #expect(integer(report["files"]) == 4, "every file is counted: \(report)")
    #expect((report["skipped"] as? [Any])?.isEmpty == true, "nothing is skipped: \(report)")

    let byTar = box.path("by-tar")
    try makeDirectory(byTar)
    let extracted = try await runProgramAwaiting(try requiredProgram("tar"), ["-xf", archive, "-C", byTar])
    #expect(extracted.code == 0, "tar -xf failed: \(extracted.stderr)")
    #expect(try await python(["dump", byTar]) == original, "GNU tar extracts other names")

    let byPython = box.path("by-tarfile")
    _ = try await python(["tarfile", archive, byPython])
    #expect(try await python(["dump", byPython]) == original, "Python's tarfile extracts other names")

    let status = try await box.runAwaiting(["status", "--save-dir", save, "--json"])
    #expect(try jsonObject(status.stdout)["state"] as? String == "in-sync", "status: \(status.stdout)")
    _ = try await python(["change", save])
    let changed = try await box.runAwaiting(["status", "--save-dir", save, "--json"])
    #expect(
      try jsonObject(changed.stdout)["state"] as? String == "local-changed",
      "a change to a Latin-1 named file is noticed: \(changed.stdout)")

    let restore = try await box.runAwaiting(["restore", "--latest", "--save-dir", save, "--json"])
    #expect(restore.code == 0, "restore failed: \(restore.stderr)")
    #expect(try await python(["dump", save]) == original, "the restored save differs from the backed-up one")
    let after = try await box.runAwaiting(["status", "--save-dir", save, "--json"])
    #expect(try jsonObject(after.stdout)["state"] as? String == "in-sync", "status: \(after.stdout)")
  }

  @Test(
    "names that differ only in Unicode normalization are refused by backup: no backup a restore could not bring back"
  )
  func normalizationTwins() async throws {
    let box = try Sandbox("macgame", device: "testbox")
    let save = box.path("saves/macgame")
    try makeDirectory(save)
    _ = try await python(["twins", save])
    let backup = try await box.runAwaiting(["backup", "--save-dir", save])
    #expect(backup.code == 1, "exit \(backup.code): \(backup.stderr)")
    #expect(backup.stderr.contains("differ only in how Unicode spells them"), "\(backup.stderr)")
    #expect(
      ((try? FileManager.default.contentsOfDirectory(atPath: box.defaultContainer + "/macgame")) ?? [])
        .isEmpty)
  }

  @Test("names spelled as a Mac spells them (NFD) come back with the same bytes, not respelled")
  func macSpelledNames() async throws {
    let made = try await backedUp("macsave", made: "mac")
    let (box, save, original) = (made.box, made.save, made.original)
    try writeFile(save + "/new.sav", "changed")
    let restore = try await box.runAwaiting(["restore", "--latest", "--save-dir", save])
    #expect(restore.code == 0, "restore failed: \(restore.stderr)")
    #expect(try await python(["dump", save]) == original, "the restored names are spelled otherwise")
    let status = try await box.runAwaiting(["status", "--save-dir", save, "--json"])
    #expect(try jsonObject(status.stdout)["state"] as? String == "in-sync", "status: \(status.stdout)")
  }
}
