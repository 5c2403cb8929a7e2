import Foundation
import Testing

@testable import SaveVault

/// A game whose save folder is named by the player's Steam account (`<storeUserId>` outside
/// `userdata`), through the built binary, on a desktop where the game never ran: with two
/// Steam accounts, which one's folder it is cannot be told, so the command names the location
/// and the accounts and says how to choose; `--steam-user` chooses, and the restore goes there.
@Suite("Steam accounts: <storeUserId> on a machine where the game never ran", .tags(.medium))
struct SteamAccountTests {
  static let hades = LocationManifestGame(
    title: "Hades", files: ["<winDocuments>/Saved Games/Hades/<storeUserId>"], steamID: 1_145_360)

  @Test(
    "two accounts: refused before anything changes, naming the location; --steam-user restores into its folder"
  )
  func twoAccounts() async throws {
    let dir = TemporaryDirectory("steam-accounts")
    let (deck, desktop, onDeck, onDesktop) = try FakeDeck.withDesktop(dir, manifest: [Self.hades])
    let deckSaves = deck.device.protonUser(1_145_360, in: deck.card) + "/Documents/Saved Games/Hades"
    try writeFile(deckSaves + "/76561197960266839/Profile1.sav", "deck save\n")
    try await onDeck.ok(["backup", "--game", "Hades"])

    try makeDirectory(desktop.steam + "/userdata/3333")
    let refused = try await onDesktop.runAwaiting(["restore", "--game", "Hades", "--latest"])
    #expect(refused.code == 2, "\(refused.stderr)")
    #expect(refused.stderr.contains("<winDocuments>/Saved Games/Hades/<storeUserId>"), "\(refused.stderr)")
    #expect(refused.stderr.contains("76561197960267950, 76561197960269061"), "\(refused.stderr)")
    #expect(refused.stderr.contains("--steam-user"), "\(refused.stderr)")
    #expect(!refused.stderr.contains("--save-dir"), "\(refused.stderr)")
    let desktopSaves = desktop.device.protonUser(1_145_360, in: desktop.steam) + "/Documents/Saved Games"
    #expect(!FileManager.default.fileExists(atPath: desktopSaves), "nothing made before the refusal")

    try await onDesktop.ok(["restore", "--game", "Hades", "--latest", "--steam-user", "3333"])
    let restored = desktopSaves + "/Hades/76561197960269061/Profile1.sav"
    #expect((try? String(contentsOfFile: restored, encoding: .utf8)) == "deck save\n")
  }

  @Test(
    "two accounts and a native folder placed: the restore is refused with nothing made, not even the sandbox's .config"
  )
  func refusedWithNothingMade() async throws {
    let dir = TemporaryDirectory("steam-accounts-nothing-made")
    let game = LocationManifestGame(
      title: "Hades",
      files: ["<winDocuments>/Saved Games/Hades/<storeUserId>", "<home>/.config/hadesnative"],
      steamID: 1_145_360)
    let (deck, desktop, onDeck, onDesktop) = try FakeDeck.withDesktop(dir, manifest: [game])
    let deckSaves = deck.device.protonUser(1_145_360, in: deck.card) + "/Documents/Saved Games/Hades"
    try writeFile(deckSaves + "/76561197960266839/Profile1.sav", "deck save\n")
    try writeFile(deck.device.home + "/.config/hadesnative/settings.ini", "native\n")
    try await onDeck.ok(["add", "Hades", "--detect"])
    try await onDeck.ok(["backup", "--game", "Hades"])

    try makeDirectory(desktop.steam + "/userdata/3333")
    #expect(!FileManager.default.fileExists(atPath: desktop.sandbox + "/.config"))
    let refused = try await onDesktop.runAwaiting(["restore", "--game", "Hades", "--latest"])
    #expect(refused.code == 2, "\(refused.stderr)")
    #expect(refused.stderr.contains("--steam-user"), "\(refused.stderr)")
    #expect(!refused.stderr.contains("Install the game"), "\(refused.stderr)")
    #expect(
      !FileManager.default.fileExists(atPath: desktop.sandbox + "/.config"), "a folder made by a refusal")

    try await onDesktop.ok(["restore", "--game", "Hades", "--latest", "--steam-user", "2222"])
    #expect(
      (try? String(contentsOfFile: desktop.sandbox + "/.config/hadesnative/settings.ini", encoding: .utf8))
        == "native\n")
  }

  @Test(
    "an archive of two accounts' folders on a machine of one: its account's restored, the other kept in the cloud by every upload"
  )
  func twoAccountsOnOne() async throws {
    let dir = TemporaryDirectory("steam-accounts-two-on-one")
    let (deck, desktop, onDeck, onDesktop) = try FakeDeck.withDesktop(dir, manifest: [Self.hades])
    let deckSaves = deck.device.protonUser(1_145_360, in: deck.card) + "/Documents/Saved Games/Hades"
    // The deck's own account (1111), and one of the desktop's (2222) that played there too.
    try writeFile(deckSaves + "/76561197960266839/Profile1.sav", "account 1111\n")
    try writeFile(deckSaves + "/76561197960267950/Profile1.sav", "account 2222 on the deck\n")
    try await onDeck.ok(["backup", "--game", "Hades"])

    let restored = try await onDesktop.runAwaiting(["restore", "--game", "Hades", "--latest"])
    #expect(restored.code == 0, "\(restored.stderr)")
    let desktopSaves =
      desktop.device.protonUser(1_145_360, in: desktop.steam) + "/Documents/Saved Games/Hades"
    #expect(text(desktopSaves + "/76561197960267950/Profile1.sav") == "account 2222 on the deck\n")
    #expect(!FileManager.default.fileExists(atPath: desktopSaves + "/76561197960266839"))
    #expect(
      restored.stderr.contains("76561197960266839"), "the account not restored is named: \(restored.stderr)")

    try writeFile(desktopSaves + "/76561197960267950/Profile1.sav", "account 2222 on the desktop\n")
    let synced = try await onDesktop.runAwaiting(["sync", "--game", "Hades", "--on-conflict", "fail"])
    #expect(synced.code == 0, "\(synced.stderr)")
    #expect(synced.stderr.contains("kept"), "the upload says what it kept: \(synced.stderr)")
    let deckSynced = try await onDeck.runAwaiting(["sync", "--game", "Hades", "--on-conflict", "fail"])
    #expect(deckSynced.code == 0, "\(deckSynced.stderr)")
    #expect(text(deckSaves + "/76561197960266839/Profile1.sav") == "account 1111\n")
    #expect(text(deckSaves + "/76561197960267950/Profile1.sav") == "account 2222 on the desktop\n")
    for device in [onDeck, onDesktop] {
      let verified = try await device.runAwaiting(["verify", "--game", "Hades"])
      #expect(verified.code == 0, "\(verified.stdout) \(verified.stderr)")
    }
  }
}
