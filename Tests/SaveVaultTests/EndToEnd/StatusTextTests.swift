import Foundation
import Testing

// The text of `status` through the built binary: what it shows, and that the commands it
// suggests work as printed, from any folder.

@Suite("Status text: pending archives, and hints that work as printed", .tags(.medium))
struct StatusTextTests {
  @Test("text status shows the archives kept while the container was unreachable: count, folder, names")
  func pendingArchives() async throws {
    let player = try Sandbox("pending")
    let save = player.dir.sub("saves/celeste")
    try writeFile(save + "/slot.sav", "chapter 1")
    let target = ["--save-dir", save, "--container", player.cloud]
    try await player.ok(["backup"] + target)
    // The game changes the save, and the container's drive goes away while it runs.
    let unplug = "echo 'chapter 2' > '\(save)/slot.sav' && mv '\(player.cloud)' '\(player.cloud)-away'"
    try await player.ok(["wrap"] + target + ["--", "/bin/sh", "-c", unplug])
    try FileManager.default.moveItem(atPath: player.cloud + "-away", toPath: player.cloud)
    let folder = player.home + "/.local/share/savevault/pending/celeste"
    let pending = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
      $0.hasPrefix("packsave-")
    }
    try #require(pending.count == 1, "no pending archive in \(folder)")

    let status = try await player.ok(["status"] + target)
    #expect(status.stdout.contains("pending 1 archive"), "\(status.stdout)")
    #expect(status.stdout.contains(folder), "\(status.stdout)")
    #expect(status.stdout.contains(pending[0]), "\(status.stdout)")
  }

  /// The command a status hint prints after `prefix`, as a shell line.
  private func hint(_ text: String, after prefix: String) throws -> String {
    let line = try #require(
      text.split(separator: "\n").first { $0.contains(prefix) }, "no '\(prefix)' in \(text)")
    let command = try #require(line.range(of: ": savevault "), "no command in \(line)")
    return String(line[line.index(after: command.lowerBound)...]).trimmingCharacters(in: .whitespaces)
  }

  /// Runs a printed command line with the player's binary as `savevault`, from `/`.
  private func runPrinted(_ player: Sandbox, _ line: String) async throws -> RunResult {
    let binaries = player.dir.sub("bin")
    try makeDirectory(binaries)
    if !FileManager.default.fileExists(atPath: binaries + "/savevault") {
      try FileManager.default.createSymbolicLink(
        atPath: binaries + "/savevault", withDestinationPath: savevaultBinary)
    }
    var environment = player.environment
    environment["PATH"] = binaries + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
    return try await runProgramAwaiting(
      "/bin/sh", ["-c", line], environment: environment, currentDirectory: "/")
  }

  @Test(
    "each status hint is the exact command for the target, and works as printed from another folder",
    arguments: ["save-dir", "game"])
  func hintsWorkAsPrinted(_ how: String) async throws {
    let player = try Sandbox("hints-\(how)")
    let save = player.dir.sub("my saves/celeste")  // a space: the hint must quote it
    try writeFile(save + "/slot.sav", "v1")
    let config = player.dir.sub("elsewhere/config.json")
    try writeFile(
      config, "{\"games\": {\"celeste\": {\"saveDir\": \"\(save)\", \"container\": \"\(player.cloud)\"}}}")
    // Relative paths, run from the player's folder: the hints must not depend on it.
    let target =
      how == "save-dir"
      ? ["--save-dir", "my saves/celeste", "--container", "cloud"]
      : ["--config", "elsewhere/config.json", "--game", "celeste"]
    func status() async throws -> String { try await player.ok(["status"] + target).stdout }

    let upload = try await runPrinted(player, try hint(try await status(), after: "To upload the local save"))
    #expect(upload.code == 0, "\(upload.stderr)")
    #expect(player.archives("celeste").count == 1)

    // Another device uploads: only the cloud changed.
    var other = player
    other.device = "deck"
    other.extra = ["HOME": player.dir.sub("deck-home")]
    func otherUploads(_ content: String) async throws {
      try writeFile(player.dir.sub("deck/celeste/slot.sav"), content)
      try await other.ok([
        "backup", "--save-dir", player.dir.sub("deck/celeste"), "--container", player.cloud, "--force",
      ])
    }
    try await otherUploads("v2 deck")
    let restore = try await runPrinted(player, try hint(try await status(), after: "To get the cloud's save"))
    #expect(restore.code == 0, "\(restore.stderr)")
    #expect(FileManager.default.contents(atPath: save + "/slot.sav") == Data("v2 deck".utf8))

    // A conflict: the other device uploads again, this one changes its save too.
    try await otherUploads("v3 deck")
    try writeFile(save + "/slot.sav", "v3 local")
    let conflict = try await status()
    #expect(conflict.contains("conflict"), "\(conflict)")
    let keep = try await runPrinted(player, try hint(conflict, after: "to keep the local save"))
    #expect(keep.code == 0, "\(keep.stderr)")
    #expect(try await player.ok(["status", "--json"] + target).stdout.contains("\"in-sync\""))
  }
}
