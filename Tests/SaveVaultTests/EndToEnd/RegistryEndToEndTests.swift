import Foundation
import Testing

@testable import SaveVault

/// A Proton game whose manifest entry (the real one, Tests/Fixtures/manifest-real-games.yaml)
/// has `registry` keys, through the built binary: `add --detect` writes the key as a location,
/// the archive holds a readable `.reg` export of exactly the game's keys (read back with GNU
/// tar), Wine rewriting the file's timestamps and other keys is no change, and a restore merges
/// the keys back into the prefix's `user.reg`, every other key byte for byte; refused while a
/// program runs in the prefix.
@Suite("Registry keys end to end: exported, fingerprinted by content, merged back", .tags(.medium))
struct RegistryEndToEndTests {
  static let title = "007 First Light"
  static let appID = 3_768_760
  static let key = "HKEY_CURRENT_USER/Software/IO Interactive/007 First Light"

  /// The prefix's `user.reg`: a real file's keys (perfect-world-user.reg, see WineRegistryTests)
  /// with the game's key and a subkey in Wine's order, `stamp` as every key's time.
  static func userReg(slot: String, music: String, stamp: String) throws -> String {
    let real = try String(contentsOfFile: fixture("wine-registry/perfect-world-user.reg"), encoding: .utf8)
    let game = """

      [Software\\\\IO Interactive\\\\007 First Light] \(stamp)
      #time=1da0000000000\(stamp.suffix(3))
      "Slot"=dword:\(slot)
      "Name"="Agent \\"007\\""

      [Software\\\\IO Interactive\\\\007 First Light\\\\Options] \(stamp)
      "Blob"=hex:01,02,03,04,05,06,07,08,09,0a,0b,0c,0d,0e,0f,10,11,12,13,14,15,16,17,18,\\
        19,1a

      [Software\\\\Unrelated] \(stamp)
      "Music"="\(music)"

      """
    return real.replacingOccurrences(of: "1592738353", with: stamp) + game
  }

  /// A Deck with the game installed, its prefix's `user.reg` holding its keys, and the game
  /// added by `add --detect`: the sandbox, the prefix and its `user.reg`.
  static func world(_ dir: TemporaryDirectory) async throws -> (
    sandbox: Sandbox, prefix: String, userReg: String
  ) {
    let device = try FakeDevice(dir, user: "deck")
    let steam = device.home + "/.local/share/Steam"
    try device.libraryFolders(steam, [steam])
    try device.steamGame(Self.appID, Self.title, in: steam)
    try device.folder(device.protonUser(Self.appID, in: steam) + "/Documents")
    let prefix = steam + "/steamapps/compatdata/\(Self.appID)/pfx"
    let userReg = prefix + "/user.reg"
    try writeFile(userReg, try Self.userReg(slot: "00000001", music: "on", stamp: "1700000000"))
    var sandbox = try Sandbox(
      in: dir, device: "deck",
      environment: [
        "SAVEVAULT_MANIFEST": fixture("manifest-real-games.yaml"), "SAVEVAULT_CONTAINER": dir.sub("cloud"),
      ])
    sandbox.home = device.home
    try await sandbox.ok(["add", Self.title, "--detect"])
    return (sandbox, prefix, userReg)
  }

  @Test("exported, unchanged by rewritten timestamps, merged back with every other key byte for byte")
  func roundTrip() async throws {
    let dir = TemporaryDirectory("registry-e2e")
    let (sandbox, prefix, userReg) = try await Self.world(dir)
    let config = try #require(text(sandbox.config))
    #expect(config.contains("registry:" + Self.key), "\(config)")
    #expect(!config.contains("user.reg"), "the whole file is no location: \(config)")

    let backup = try await sandbox.ok(["backup", "--game", Self.title, "--json"])
    let archive = try #require(jsonObject(backup.stdout)["archive"] as? String)
    let extracted = dir.sub("extracted")
    try makeDirectory(extracted)
    let tar = try await runProgramAwaiting(
      "/bin/tar", ["-xf", dir.sub("cloud/\(Self.title)/\(archive)"), "-C", extracted])
    try #require(tar.code == 0, "tar: \(tar.stderr)")
    let exports = (FileManager.default.enumerator(atPath: extracted)?.allObjects as? [String] ?? [])
      .filter { $0.hasSuffix("/user.reg") }
    try #require(exports.count == 1, "\(exports)")
    let export = try #require(text(extracted + "/" + exports[0]))
    #expect(
      export.hasSuffix(
        """
        [Software\\\\IO Interactive\\\\007 First Light]
        "Slot"=dword:00000001
        "Name"="Agent \\"007\\""

        [Software\\\\IO Interactive\\\\007 First Light\\\\Options]
        "Blob"=hex:01,02,03,04,05,06,07,08,09,0a,0b,0c,0d,0e,0f,10,11,12,13,14,15,16,17,18,\\
          19,1a

        """), "\(export)")
    #expect(export.hasPrefix("WINE REGISTRY Version 2\n"))
    #expect(!export.contains("Unrelated") && !export.contains("Control Panel") && !export.contains("#time"))

    // Wine writes the file again: every key's time new, another key changed. No change.
    try writeFile(userReg, try Self.userReg(slot: "00000001", music: "off", stamp: "1800000000"))
    let status = try jsonObject(await sandbox.ok(["status", "--game", Self.title, "--json"]).stdout)
    #expect(status["state"] as? String == "in-sync", "\(status)")
    let shown = (status["locations"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    #expect(shown.contains(userReg), "the keys' location is the prefix's file: \(shown)")

    // The game's key changes (and a subkey goes), another key changes too: restore.
    var played = try Self.userReg(slot: "00000009", music: "loud", stamp: "1900000000")
    played = played.replacingOccurrences(
      of: "[Software\\\\IO Interactive\\\\007 First Light\\\\Options]",
      with: "[Software\\\\IO Interactive\\\\007 First Light\\\\Other]")
    try writeFile(userReg, played)
    let changed = try jsonObject(await sandbox.ok(["status", "--game", Self.title, "--json"]).stdout)
    #expect(changed["state"] as? String == "local-changed", "\(changed)")

    // A program running in the prefix has the registry in memory: refused, nothing changed.
    let game = try SpawnedProgram(
      "/bin/sleep", ["60"], environment: ["WINEPREFIX": prefix], stdout: .discarded, stderr: .discarded)
    let refused = try await sandbox.runAwaiting(["restore", "--game", Self.title, "--latest"])
    game.terminateAndWait()
    #expect(refused.code == 6 && refused.stderr.contains("in use"), "\(refused.code): \(refused.stderr)")
    #expect(text(userReg) == played)

    // Run by a launcher's script that has the game's environment (Lutris's pre-launch script,
    // `wrap` under lutris-wrapper): that parent is no program in the prefix.
    let launcher = try await runProgramAwaiting(
      "/bin/sh",
      ["-c", "\"$0\" \"$@\"; exit $?", savevaultBinary, "restore", "--game", Self.title, "--latest"],
      environment: sandbox.environment(["WINEPREFIX": prefix]))
    #expect(launcher.code == 0, "\(launcher.code): \(launcher.stderr)")
    let restored = try WineRegistry.parse(Array(try #require(text(userReg)).utf8))
    let before = try WineRegistry.parse(Array(played.utf8))
    let gameKey = "Software\\IO Interactive\\007 First Light"
    #expect(
      restored.sections(under: gameKey).map(\.path) == [gameKey, gameKey + "\\Options"],
      "the subkey the archive lacks is gone, the archived one back")
    #expect(
      restored.sections(under: gameKey).first?.values.first?.data == .dword(1), "the archived value")
    let others = { (registry: WineRegistry) in
      registry.sections.filter { !WineRegistry.path($0.path, isAtOrUnder: gameKey) }.map(\.raw)
    }
    #expect(others(restored) == others(before), "every other key byte for byte")
    #expect(text(userReg)?.contains("\"Music\"=\"loud\"") == true)
    let kept = try FileManager.default.subpathsOfDirectory(
      atPath: sandbox.home + "/.local/share/savevault/registry-before-restore")
    #expect(kept.contains { $0.hasSuffix("user.reg") }, "the whole file kept first: \(kept)")
    let after = try jsonObject(await sandbox.ok(["status", "--game", Self.title, "--json"]).stdout)
    #expect(after["state"] as? String == "in-sync", "\(after)")

    // Undo: the game's keys as they were before the restore, other keys as they are now.
    try writeFile(
      userReg,
      try #require(text(userReg)).replacingOccurrences(of: "\"Music\"=\"loud\"", with: "\"Music\"=\"quiet\""))
    try await sandbox.ok(["restore", "--game", Self.title, "--undo"])
    let undone = try WineRegistry.parse(Array(try #require(text(userReg)).utf8))
    #expect(
      undone.sections(under: gameKey).map(\.content) == before.sections(under: gameKey).map(\.content),
      "the keys as the game had written them")
    #expect(text(userReg)?.contains("\"Music\"=\"quiet\"") == true, "another key as it is now")
  }

  @Test("killed before the merged file replaces the prefix's: the old file stays, the next command merges")
  func killedBeforeMerge() async throws {
    let dir = TemporaryDirectory("registry-kill")
    let (sandbox, _, userReg) = try await Self.world(dir)
    try await sandbox.ok(["backup", "--game", Self.title])
    let played = try Self.userReg(slot: "00000009", music: "loud", stamp: "1900000000")
    try writeFile(userReg, played)
    let killed = try await sandbox.runAwaiting(
      ["restore", "--game", Self.title, "--latest"],
      environment: ["SAVEVAULT_FAILPOINTS": "restore.registry-merging=kill"])
    try #require(killed.wasSignaled && killed.code == SIGKILL, "\(killed.code): \(killed.stderr)")
    #expect(text(userReg) == played, "the prefix's file as it was")

    let status = try jsonObject(await sandbox.ok(["status", "--game", Self.title, "--json"]).stdout)
    #expect(status["state"] as? String == "in-sync", "\(status)")
    let merged = try WineRegistry.parse(Array(try #require(text(userReg)).utf8))
    let gameKey = "Software\\IO Interactive\\007 First Light"
    #expect(
      merged.sections(under: gameKey).first?.values.first?.data == .dword(1), "finished: the archived keys")
    #expect(text(userReg)?.contains("\"Music\"=\"loud\"") == true, "another key as the game left it")
  }
}

extension RegistryEndToEndTests {
  @Test(
    "killed after its merge, the game writing its keys before the next command: they stay as the game wrote them"
  )
  func gameWritesAfterMerge() async throws {
    let dir = TemporaryDirectory("registry-after-merge")
    let (sandbox, _, userReg) = try await Self.world(dir)
    try await sandbox.ok(["backup", "--game", Self.title])
    try writeFile(userReg, try Self.userReg(slot: "00000009", music: "loud", stamp: "1900000000"))
    let killed = try await sandbox.runAwaiting(
      ["restore", "--game", Self.title, "--latest"],
      environment: ["SAVEVAULT_FAILPOINTS": "restore.kept=kill"])
    try #require(killed.wasSignaled && killed.code == SIGKILL, "\(killed.code): \(killed.stderr)")
    let gameKey = "Software\\IO Interactive\\007 First Light"
    let merged = try WineRegistry.parse(Array(try #require(text(userReg)).utf8))
    try #require(
      merged.sections(under: gameKey).first?.values.first?.data == .dword(1), "merged before the kill")

    // The game runs on the restored keys and writes its own before savevault runs again.
    let written = try Self.userReg(slot: "0000000c", music: "loud", stamp: "2000000000")
    try writeFile(userReg, written)
    let status = try await sandbox.runAwaiting(["status", "--game", Self.title, "--json"])
    #expect(status.code == 0, "\(status.stderr)")
    let after = try WineRegistry.parse(Array(try #require(text(userReg)).utf8))
    #expect(
      after.sections(under: gameKey).first?.values.first?.data == .dword(12),
      "the game's later keys, not the restore's merged over them again: \(status.stderr)")
  }
}

extension RegistryEndToEndTests {
  @Test("wrap's sync after the game waits for Wine to write the registry as it ends in the prefix")
  func wrapWaitsForWine() async throws {
    let dir = TemporaryDirectory("registry-wrap-wait")
    let (sandbox, prefix, userReg) = try await Self.world(dir)
    try await sandbox.ok(["backup", "--game", Self.title])
    let later = dir.sub("later.reg")
    try writeFile(later, try Self.userReg(slot: "00000007", music: "on", stamp: "1950000000"))
    // The game ends at once; its wineserver (a process in the prefix) writes the keys 2 s later.
    let game = "(sleep 2; cp \"$1\" \"$2\") >/dev/null 2>&1 & exit 0"
    let wrap = try await sandbox.runAwaiting(
      [
        "wrap", "--game", Self.title, "--", "/usr/bin/env", "WINEPREFIX=" + prefix, "/bin/sh", "-c", game,
        "sh", later, userReg,
      ])
    #expect(wrap.code == 0, "\(wrap.stderr)")
    #expect(text(userReg) == text(later), "Wine wrote the keys")
    let status = try jsonObject(await sandbox.ok(["status", "--game", Self.title, "--json"]).stdout)
    #expect(
      status["state"] as? String == "in-sync", "the keys Wine wrote as it ended were backed up: \(status)")
  }
}

extension RegistryEndToEndTests {
  @Test("a winePrefix written with ~ is the player's home's")
  func winePrefixWithTilde() async throws {
    let sandbox = try Sandbox("registry-tilde")
    let prefix = sandbox.home + "/Games/pfx"
    try makeDirectory(prefix + "/drive_c/windows")
    try writeFile(prefix + "/user.reg", try Self.userReg(slot: "00000003", music: "on", stamp: "1700000000"))
    let config: [String: Any] = [
      "container": sandbox.cloud,
      "games": ["agent": ["winePrefix": "~/Games/pfx", "locations": ["registry:" + Self.key]]],
    ]
    try makeDirectory((sandbox.config as NSString).deletingLastPathComponent)
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: sandbox.config))
    let backup = try await sandbox.runAwaiting(["backup", "--game", "agent"])
    #expect(backup.code == 0, "\(backup.stderr)")
    #expect(sandbox.archives("agent").count == 1)
  }
}

extension RegistryEndToEndTests {
  /// `text` as a prefix of an older Wine holds it: no `#time=` lines, and a second number after
  /// each key's time (`[…] 1700000000 0`), which Wine's reader ignores.
  static func olderForm(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("#time=") }
      .map { line in line.hasPrefix("[") ? String(line) + " 0" : String(line) }.joined(separator: "\n")
  }

  @Test("a prefix whose key lines carry a second number backs up and restores its keys")
  func olderWineKeyLines() async throws {
    let dir = TemporaryDirectory("registry-older-wine")
    let (sandbox, _, userReg) = try await Self.world(dir)
    try writeFile(
      userReg, Self.olderForm(try Self.userReg(slot: "00000001", music: "on", stamp: "1700000000")))
    let backup = try await sandbox.runAwaiting(["backup", "--game", Self.title])
    try #require(backup.code == 0, "\(backup.code): \(backup.stderr)")
    let verify = try await sandbox.runAwaiting(["verify", "--game", Self.title, "--latest"])
    #expect(verify.code == 0, "\(verify.stderr)")

    let played = Self.olderForm(try Self.userReg(slot: "00000009", music: "loud", stamp: "1900000000"))
    try writeFile(userReg, played)
    let restore = try await sandbox.runAwaiting(["restore", "--game", Self.title, "--latest"])
    #expect(restore.code == 0, "\(restore.code): \(restore.stderr)")
    let restored = try WineRegistry.parse(Array(try #require(text(userReg)).utf8))
    let gameKey = "Software\\IO Interactive\\007 First Light"
    #expect(restored.sections(under: gameKey).first?.values.first?.data == .dword(1), "the archived value")
    let others = { (registry: WineRegistry) in
      registry.sections.filter { !WineRegistry.path($0.path, isAtOrUnder: gameKey) }.map(\.raw)
    }
    #expect(
      others(restored) == others(try WineRegistry.parse(Array(played.utf8))),
      "every other key byte for byte, its two numbers kept")
    let status = try jsonObject(await sandbox.ok(["status", "--game", Self.title, "--json"]).stdout)
    #expect(status["state"] as? String == "in-sync", "\(status)")
  }
}
