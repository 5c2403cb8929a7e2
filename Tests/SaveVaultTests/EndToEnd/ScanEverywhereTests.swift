import Foundation
import Testing

/// `scan --everywhere` through the built binary: games of the whole manifest that are not
/// installed, found by the saves they left, beside the installed ones. Real manifest entries.
@Suite("Scan everywhere", .tags(.medium))
struct ScanEverywhereTests {
  @Test("a save left in a Proton prefix of an uninstalled game and a native one are listed as not installed")
  func leftBehind() async throws {
    let player = try Sandbox("scan-everywhere")
    let steam = player.home + "/.local/share/Steam"
    let compatdata = steam + "/steamapps/compatdata"
    try writeFile(
      steam + "/steamapps/libraryfolders.vdf",
      "\"libraryfolders\"\n{\n\t\"0\"\n\t{\n\t\t\"path\"\t\t\"\(steam)\"\n\t}\n}\n")
    // Installed: 0rbitalis, its save in its own prefix.
    try writeFile(
      steam + "/steamapps/appmanifest_278440.acf",
      "\"AppState\"\n{\n\t\"appid\"\t\t\"278440\"\n\t\"name\"\t\t\"0rbitalis\"\n\t\"installdir\"\t\t\"0rbitalis\"\n}\n"
    )
    try makeDirectory(steam + "/steamapps/common/0rbitalis")
    try writeFile(compatdata + "/278440/pfx/drive_c/users/steamuser/AppData/Roaming/0RBITALIS/save.dat", "o")
    // Uninstalled: 1001 Spikes (app 260790) left its prefix, with the save in `my games` (the
    // manifest says `My Games`: a prefix is read case-insensitively, and the portable form
    // keeps the names found).
    let spikes = compatdata + "/260790/pfx/drive_c/users/steamuser/Documents/my games/1001 Spikes/Saves"
    try writeFile(spikes + "/Common.dat", "spikes")
    try writeFile(spikes + "/Profile1.sav", "profile")
    // A DRM-free game never installed through a launcher: Sticky Paws, natively.
    try writeFile(player.home + "/.config/Sticky_Paws_DX/save.ini", "paws")
    // Not saves of any game: a prefix of an app the manifest does not know, a folder of no game.
    try writeFile(compatdata + "/999999/pfx/drive_c/users/steamuser/Documents/My Games/Nothing/x.sav", "x")
    try writeFile(player.home + "/.local/share/NotAGame/x", "x")
    let environment = ["SAVEVAULT_MANIFEST": fixture("manifest-real-games.yaml")]

    let installedOnly = try jsonList(
      try await player.ok(["scan", "--json"], environment: environment).stdout)
    #expect(installedOnly.map { $0["game"] as? String } == ["0rbitalis"])

    let everywhere = try jsonList(
      try await player.ok(["scan", "--everywhere", "--json"], environment: environment).stdout)
    #expect(everywhere.map { $0["game"] as? String } == ["0rbitalis", "1001 Spikes", "Sticky Paws"])
    let byName = Dictionary(uniqueKeysWithValues: everywhere.map { ($0["game"] as? String ?? "", $0) })
    #expect(byName["0rbitalis"]?["installed"] as? Bool == true)
    let spikesGame = try #require(byName["1001 Spikes"])
    #expect(spikesGame["installed"] as? Bool == false)
    #expect(spikesGame["store"] as? String == "steam")
    #expect(spikesGame["storeGameId"] as? String == "260790")
    #expect(spikesGame["installFolder"] == nil)
    #expect(spikesGame["files"] as? Int == 2)
    let spikesLocations = try #require(spikesGame["locations"] as? [[String: Any]])
    #expect(
      Set(spikesLocations.compactMap { $0["portable"] as? String }) == [
        "<winDocuments>/my games/1001 Spikes/Saves/Common.dat",
        "<winDocuments>/my games/1001 Spikes/Saves/Profile1.sav",
      ])
    #expect(spikesLocations.allSatisfy { ($0["path"] as? String ?? "").hasPrefix(spikes + "/") })
    let paws = try #require(byName["Sticky Paws"])
    #expect(paws["installed"] as? Bool == false)
    #expect(paws["store"] as? String == "other")
    let pawsLocations = try #require(paws["locations"] as? [[String: Any]])
    #expect(pawsLocations.map { $0["portable"] as? String } == ["<xdgConfig>/Sticky_Paws_DX"])
    #expect(pawsLocations.map { $0["path"] as? String } == [player.home + "/.config/Sticky_Paws_DX"])

    let text = try await player.ok(["scan", "--everywhere"], environment: environment).stdout
    #expect(text.contains("1001 Spikes: steam 260790, 2 files"), "\(text)")
    #expect(text.contains("not installed"), "\(text)")
    #expect(!text.contains("0rbitalis: steam 278440, 1 file, 1 B, not installed"), "\(text)")

    // What it lists is backed up and added as its help says, by name, though not installed.
    let pawsBackup = try await player.runAwaiting(
      ["backup", "--game", "Sticky Paws", "--json"], environment: environment)
    #expect(pawsBackup.code == 0, "\(pawsBackup.stderr)")
    #expect(try jsonObject(pawsBackup.stdout)["files"] as? Int == 1, "\(pawsBackup.stdout)")
    let added = try await player.runAwaiting(["add", "1001 Spikes", "--detect"], environment: environment)
    #expect(added.code == 0, "\(added.stderr)")
    let spikesBackup = try await player.ok(
      ["backup", "--game", "1001 Spikes", "--json"], environment: environment)
    #expect(try jsonObject(spikesBackup.stdout)["files"] as? Int == 2, "\(spikesBackup.stdout)")
  }

  private func jsonList(_ text: String) throws -> [[String: Any]] {
    try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], "\(text)")
  }
}
