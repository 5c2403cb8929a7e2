import Foundation
import Testing

@testable import SaveVault

/// A Windows game's folder in a Wine prefix spelled two ways (`My Games` and `my games`, made by
/// the game and by another program): one folder to the game, which Wine reads whatever the
/// case. Backed up as two locations where both exist, it comes back as that one folder on a
/// machine that has neither, and both spellings stay in the cloud.
@Suite("Letter case: one prefix folder in two spellings", .tags(.medium))
struct LetterCaseTests {
  static let game = LocationManifestGame(
    title: "Hades", files: ["<winDocuments>/My Games/Hades"], steamID: 1_145_360)

  @Test("both spellings' files come back in one folder, none lost, and the cloud keeps both")
  func twoSpellings() async throws {
    let dir = TemporaryDirectory("letter-case")
    let (deck, desktop, onDeck, onDesktop) = try FakeDeck.withDesktop(dir, manifest: [Self.game])
    let deckDocuments = deck.device.protonUser(1_145_360, in: deck.card) + "/Documents"
    try writeFile(deckDocuments + "/My Games/Hades/Profile1.sav", "profile one\n")
    try writeFile(deckDocuments + "/my games/Hades/Settings.ini", "settings\n")
    try await onDeck.ok(["add", "Hades", "--detect"])
    try await onDeck.ok(["backup", "--game", "Hades"])

    let restored = try await onDesktop.runAwaiting(["restore", "--game", "Hades", "--latest"])
    #expect(restored.code == 0, "\(restored.stderr)")
    let documents = desktop.device.protonUser(1_145_360, in: desktop.steam) + "/Documents"
    let folders = ((try? Platform.directoryNames(documents)) ?? []).filter { $0.lowercased() == "my games" }
    #expect(folders.count == 1, "one folder for the game: \(folders)")
    let folder = documents + "/" + (folders.first ?? "My Games") + "/Hades"
    #expect(text(folder + "/Profile1.sav") == "profile one\n")
    #expect(text(folder + "/Settings.ini") == "settings\n")

    // The desktop plays on; its upload keeps the other spelling for the Deck.
    try writeFile(folder + "/Profile1.sav", "profile one, desktop\n")
    let synced = try await onDesktop.runAwaiting(["sync", "--game", "Hades", "--on-conflict", "fail"])
    #expect(synced.code == 0, "\(synced.stderr)")
    let deckSynced = try await onDeck.runAwaiting(["sync", "--game", "Hades", "--on-conflict", "fail"])
    #expect(deckSynced.code == 0, "\(deckSynced.stderr)")
    #expect(text(deckDocuments + "/My Games/Hades/Profile1.sav") == "profile one, desktop\n")
    #expect(text(deckDocuments + "/my games/Hades/Settings.ini") == "settings\n")
    for device in [onDeck, onDesktop] {
      let verified = try await device.runAwaiting(["verify", "--game", "Hades"])
      #expect(verified.code == 0, "\(verified.stdout) \(verified.stderr)")
    }
  }
}
