import Foundation
import Testing

// Relative paths in the config file through the built binary: they are the config file's,
// whatever folder savevault is started in (under Steam, the game's install folder).

@Suite("Relative paths in the config file are taken from the config file's folder", .tags(.medium))
struct RelativeConfigPathTests {
  @Test("a relative saveDir and folder container resolve against the config file's folder, from any folder")
  func relativeToConfigFile() async throws {
    let player = try Sandbox("relative")
    let folder = player.home + "/.config/savevault"
    try writeFile(folder + "/saves/celeste/slot1.sav", "chapter 3")
    try writeFile(
      player.config,
      "{\"games\": {\"celeste\": {\"saveDir\": \"saves/celeste\", \"container\": \"../../cloud\"}}}")
    // Somewhere else, the same relative paths hold something else: they must not be used.
    try makeDirectory(player.home + "/cloud")
    let install = player.dir.sub("steamapps/common/Celeste")
    try writeFile(install + "/saves/celeste/slot1.sav", "the install folder's file")

    let backup = try await player.runAwaiting(["backup", "--game", "celeste", "--json"], in: install)
    #expect(backup.code == 0, "\(backup.stderr)")
    let container = player.home + "/cloud/celeste"
    let archives = ((try? FileManager.default.contentsOfDirectory(atPath: container)) ?? []).filter {
      $0.hasPrefix("packsave-")
    }
    #expect(archives.count == 1, "no archive in \(container): \(backup.stdout)")
    #expect(
      !FileManager.default.fileExists(atPath: install + "/../../cloud"), "the install folder's ../../cloud")
    let status = try jsonObject(
      try await player.runAwaiting(["status", "--game", "celeste", "--json"], in: "/").stdout)
    #expect(lookup(status, "local.saveDir") as? String == folder + "/saves/celeste")
    #expect(status["state"] as? String == "in-sync")

    let doctor = try await player.runAwaiting(["doctor"], in: install)
    let line =
      doctor.stdout.split(separator: "\n").first { $0.split(separator: " ").dropFirst().first == "save-dir" }
      ?? ""
    #expect(line.contains("'saves/celeste' is relative") && line.contains(folder), "\(doctor.stdout)")
  }

  @Test("with --config, relative paths in that file are its folder's; flags stay the current folder's")
  func explicitConfig() async throws {
    let player = try Sandbox("relative-config")
    try writeFile(player.dir.sub("setup/saves/hk/user1.dat"), "geo 1200")
    try writeFile(
      player.dir.sub("setup/savevault.json"),
      "{\"container\": \"cloud\", \"games\": {\"hk\": {\"saveDir\": \"saves/hk\"}}}")
    let elsewhere = player.dir.sub("elsewhere")
    try makeDirectory(elsewhere + "/mine")
    try makeDirectory(player.dir.sub("setup/cloud"))
    let run = { (arguments: [String]) in
      try await player.runAwaiting(arguments, in: elsewhere)
    }
    let backup = try await run(["--config", "../setup/savevault.json", "backup", "--game", "hk"])
    #expect(backup.code == 0, "\(backup.stderr)")
    #expect(player.archives("hk", in: player.dir.sub("setup/cloud")).count == 1)
    // A --container flag is the current folder's.
    let flagged = try await run([
      "--config", "../setup/savevault.json", "backup", "--game", "hk", "--container", "mine",
    ])
    #expect(flagged.code == 0, "\(flagged.stderr)")
    #expect(player.archives("hk", in: elsewhere + "/mine").count == 1)
  }
}
