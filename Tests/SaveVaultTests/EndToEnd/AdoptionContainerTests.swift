import Foundation
import Testing

/// `savevault wrap -- %command%` under Steam for an installed game the config file lacks: it is
/// adopted into the container the player already chose (`--container`, the config file's, the
/// one every configured game names, `SAVEVAULT_CONTAINER`), never into the embedded default by
/// omission; with no such choice it is not adopted, and the game runs unsynced after one warning.
@Suite("wrap adopts a Steam game into the player's container, or not at all", .tags(.medium))
struct AdoptionContainerTests {
  /// Installed on the Deck with a save, and in no config file.
  static let appID = "231430"
  static let game = "Company of Heroes 2"

  /// The Deck, its games installed and the manifest known; no container in the environment.
  static func deck(_ label: String) async throws -> Sandbox {
    let dir = TemporaryDirectory("adopt-" + label.replacingOccurrences(of: " ", with: "_"))
    let fake = try FakeDeck(dir)
    let manifest = dir.sub("manifest.yaml")
    try writeFile(manifest, LocationManifestFixture.yaml(InMemoryManifest.saves.games))
    var deck = try Sandbox(in: dir, device: "deck", environment: ["SAVEVAULT_MANIFEST": manifest])
    deck.home = fake.device.home
    return deck
  }

  /// Steam's launch: `wrap` with no TARGET, the app id in the environment, a game that exits 7.
  func launch(_ deck: Sandbox, flags: [String] = [], environment: [String: String] = [:]) async throws
    -> RunResult
  {
    try await deck.runAwaiting(
      ["wrap"] + flags + ["--", "/bin/sh", "-c", "echo playing; exit 7"],
      environment: environment.merging(["SteamAppId": Self.appID]) { $1 })
  }

  /// The adopted game's config entry.
  func entry(_ deck: Sandbox) async throws -> [String: Any]? {
    (try deck.configObject()["games"] as? [String: Any])?[Self.game] as? [String: Any]
  }

  @Test("the README's set-up: the container every game names takes the adopted game, and its entry keeps it")
  func everyGamesContainer() async throws {
    let deck = try await Self.deck("every-game")
    let sync = deck.path("Sync/saves")
    try makeDirectory(sync)
    try await deck.ok(["add", "Hades", "--detect", "--container", sync])
    let launched = try await launch(deck)
    #expect(launched.code == 7, "the game's exit code: \(launched.stderr)")
    #expect(launched.stdout == "playing\n")
    #expect(launched.stderr.contains("Steam app 231430 is '\(Self.game)'"), "\(launched.stderr)")
    #expect(!launched.stderr.contains("warning:"), "\(launched.stderr)")
    #expect(deck.archives(Self.game, in: sync).count == 1, "uploaded into the player's container")
    #expect(deck.archives(Self.game, in: deck.defaultContainer).isEmpty, "not into the embedded default")
    await #expect(try entry(deck)?["container"] as? String == sync, "the entry keeps the game where it went")

    let rows = try await jsonList(deck.ok(["games", "--json"]).stdout)
    let row = try #require(rows.first { $0["game"] as? String == Self.game }, "\(rows)")
    #expect(row["container"] as? String == sync && row["state"] as? String == "in-sync", "\(row)")
  }

  @Test(
    "the config file's container takes the adopted game, over the one its games name; the entry names none")
  func fileContainer() async throws {
    let deck = try await Self.deck("file")
    let nas = deck.path("nas")
    let sync = deck.path("Sync/saves")
    try makeDirectory(nas)
    try makeDirectory(sync)
    try writeFile(deck.config, #"{"container": "\#(nas)"}"#)
    try await deck.ok(["add", "Hades", "--detect", "--container", sync])
    let launched = try await launch(deck)
    #expect(launched.code == 7, "\(launched.stderr)")
    #expect(
      launched.stderr.contains("Steam app 231430 is '\(Self.game)'") && launched.stderr.contains(nas),
      "the note says where its backups go: \(launched.stderr)")
    #expect(deck.archives(Self.game, in: nas).count == 1)
    #expect(
      deck.archives(Self.game, in: sync).isEmpty
        && deck.archives(Self.game, in: deck.defaultContainer).isEmpty)
    let written = try await #require(try entry(deck), "adopted")
    #expect(written["container"] == nil, "the file's container needs no copy: \(written)")
  }

  @Test(
    "--container or SAVEVAULT_CONTAINER is the player's choice: the game is adopted there, and its entry keeps it",
    arguments: ["flag", "environment"])
  func chosenForThisRun(_ how: String) async throws {
    let deck = try await Self.deck("chosen-\(how)")
    for folder in ["a", "b", "chosen"] { try makeDirectory(deck.path(folder)) }
    try await deck.ok(["add", "Hades", "--detect", "--container", deck.path("a")])
    try await deck.ok(["add", "Old Game", "--detect", "--container", deck.path("b")])
    // A relative folder is the current folder's (wrap runs in the test's folder), stored absolute.
    let launched =
      await how == "flag"
      ? try launch(deck, flags: ["--container", "chosen"])
      : try launch(deck, environment: ["SAVEVAULT_CONTAINER": "chosen"])
    #expect(launched.code == 7, "\(launched.stderr)")
    #expect(!launched.stderr.contains("warning:"), "\(launched.stderr)")
    #expect(deck.archives(Self.game, in: deck.path("chosen")).count == 1, "\(launched.stderr)")
    await #expect(try entry(deck)?["container"] as? String == deck.path("chosen"))
    for other in [deck.path("a"), deck.path("b"), deck.defaultContainer] {
      #expect(deck.archives(Self.game, in: other).isEmpty, "\(other)")
    }
  }

  @Test(
    "with no container chosen, the game is not adopted: it runs with its exit code, after one warning saying what to add",
    arguments: ["two containers", "one game with a container, one without", "no game and no container"])
  func notAdopted(_ setup: String) async throws {
    let deck = try await Self.deck("refused-\(setup.prefix(3))")
    for folder in ["a", "b"] { try makeDirectory(deck.path(folder)) }
    if setup != "no game and no container" {
      try await deck.ok(["add", "Hades", "--detect", "--container", deck.path("a")])
      try await deck.ok(
        ["add", "Old Game", "--detect"] + (setup == "two containers" ? ["--container", deck.path("b")] : []))
    }
    let config = deck.configBytes()
    let launched = try await launch(deck)
    #expect(launched.code == 7, "the game's exit code: \(launched.stderr)")
    #expect(launched.stdout == "playing\n", "the game ran")
    let warnings = launched.stderr.split(separator: "\n").filter { $0.contains("warning:") }
    #expect(warnings.count == 1, "one line: \(launched.stderr)")
    let warning = String(warnings.first ?? "")
    #expect(
      warning.contains(Self.game) && warning.contains("--container") && warning.contains("\"container\"")
        && warning.contains("running it without syncing"), "what to add: \(warning)")
    #expect(deck.configBytes() == config, "not added to the config file")
    for container in [deck.path("a"), deck.path("b"), deck.cloud, deck.defaultContainer] {
      #expect(deck.archives(Self.game, in: container).isEmpty, "nothing synced into \(container)")
    }
  }
}
