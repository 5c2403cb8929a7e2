import Foundation
import Testing

@testable import SaveVault

/// Where the manifest comes from, against a real HTTP server on 127.0.0.1.
@Suite("Manifest source", .tags(.large))
struct LocationManifestSourceTests {
  static let day: Int64 = 24 * 3600 * 1000
  let dir = TemporaryDirectory("manifest-source")
  var home: String { dir.sub("home") }
  var copy: String { home + "/.cache/savevault/manifest.yaml" }

  func vault(
    _ server: LocationManifestServer?, at startMs: Int64 = 1_795_968_000_000, _ more: [String: String] = [:]
  )
    throws
    -> Vault
  {
    var environment = ["SAVEVAULT_MANIFEST_URL": server?.url ?? "http://127.0.0.1:9/none.yaml"]
    environment.merge(more) { $1 }
    return try Vault(context: testContext(home: home, startMs: startMs, environment: environment))
  }

  func server() throws -> LocationManifestServer {
    try LocationManifestServer(root: dir.sub("server"), manifest: LocationManifestFixture.realEntries)
  }

  @Test("downloads once, then at most daily with If-None-Match; 304 only marks it checked")
  func etag() throws {
    let server = try server()
    let index = try vault(server).manifest(refresh: .launch)
    #expect(index.game(steamAppID: 746970)?.title == ".hack//G.U. Last Recode")
    let first = try vault(server).manifestStatus()
    #expect(first.source == .download)
    #expect(first.path == copy)
    #expect(first.url == server.url)
    #expect(first.games == LocationManifestFixture.realTitles.count)
    let etag = try #require(first.etag)
    _ = try vault(server, at: 1_795_968_000_000 + Self.day / 2).manifest(refresh: .ifStale(deadline: 2))
    #expect(server.requests == ["-"])
    // A command about to start a game uses the stale copy as it is, and says a refresh is due.
    let later = try vault(server, at: 1_795_968_000_000 + Self.day + 1)
    #expect(try later.manifest(refresh: .launch).game(steamAppID: 746970) != nil)
    #expect(server.requests == ["-"])
    #expect(later.isManifestRefreshDue())
    #expect(try !vault(server, at: 1_795_968_000_000 + Self.day / 2).isManifestRefreshDue())
    #expect(try later.updateManifest(refresh: .background).outcome == .unchanged)
    #expect(server.requests == ["-", etag])
    #expect(!later.isManifestRefreshDue())
    #expect(try later.updateManifest(refresh: .background).outcome == .notDue)
    let checked = try vault(server).manifestStatus()
    #expect(checked.checkedMs ?? 0 > 1_795_968_000_000 + Self.day)
    #expect(checked.etag == etag)

    try server.serve(LocationManifestFixture.realEntries + "\nNew Game:\n  steam:\n    id: 31337\n")
    let update = try vault(server).updateManifest()
    #expect(update.outcome == .updated)
    #expect(try vault(server).manifest(refresh: .never).game(steamAppID: 31337)?.title == "New Game")
    #expect(try vault(server).updateManifest().outcome == .unchanged)
  }

  @Test(
    "a garbage, truncated, missing or unreachable download never replaces the copy",
    arguments: ["garbage", "truncated", "missing", "offline"])
  func badDownload(mode: String) throws {
    let server = try server()
    _ = try vault(server).manifest(refresh: .launch)
    let good = try Data(contentsOf: URL(fileURLWithPath: copy))
    try server.serve(LocationManifestFixture.realEntries + "\nNew Game:\n  steam:\n    id: 31337\n")
    if mode == "offline" { server.stop() } else { try server.set(mode: mode) }
    let update = try vault(server).updateManifest()
    guard case .failed = update.outcome else {
      Issue.record("\(update.outcome)")
      return
    }
    #expect(update.status?.path == copy)
    #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == good)
    let index = try vault(server, at: 1_795_968_000_000 + 2 * Self.day).manifest(refresh: .launch)
    #expect(index.game(steamAppID: 525480) != nil)
    #expect(index.game(steamAppID: 31337) == nil)
  }

  @Test("a manifest published behind a redirect is followed to it")
  func redirect() throws {
    let server = try server()
    _ = try vault(server).manifest(refresh: .launch)
    try server.serve(LocationManifestFixture.realEntries + "\nNew Game:\n  steam:\n    id: 31337\n")
    try server.set(mode: "redirect")
    #expect(try vault(server).updateManifest().outcome == .updated)
    #expect(server.requests.count == 3, "the first download, the redirect, and where it led")
    #expect(try vault(server).manifest(refresh: .never).game(steamAppID: 31337)?.title == "New Game")
  }

  @Test("a download waits at most its deadline for a server that never answers")
  func hangingServer() throws {
    let server = try server()
    _ = try vault(server).manifest(refresh: .launch)
    try server.set(mode: "hang")
    let started = Date()
    let index = try vault(server, at: 1_795_968_000_000 + 2 * Self.day).manifest(
      refresh: .ifStale(deadline: 2))
    #expect(Date().timeIntervalSince(started) < 3.5)
    #expect(index.game(steamAppID: 525480) != nil)
    // With no copy at all, the launch still gives up in time, with an error saying what to do.
    try FileManager.default.removeItem(atPath: home + "/.cache")
    let again = Date()
    #expect(throws: LocationManifestError.self) { try vault(server).manifest(refresh: .launch) }
    #expect(Date().timeIntervalSince(again) < 3.5)
  }

  @Test("SAVEVAULT_MANIFEST is used as it is, never downloaded over")
  func environmentFile() throws {
    let server = try server()
    let file = dir.sub("mine.yaml")
    try writeFile(file, "Mine:\n  steam:\n    id: 5\n")
    let mine = try vault(server, ["SAVEVAULT_MANIFEST": file])
    #expect(try mine.manifest(refresh: .force).game(steamAppID: 5)?.title == "Mine")
    #expect(try mine.updateManifest().outcome == .notDownloaded)
    #expect(try mine.manifestStatus().source == .environment)
    #expect(server.requests.isEmpty)
    #expect(try String(contentsOfFile: file, encoding: .utf8) == "Mine:\n  steam:\n    id: 5\n")
    let missing = try vault(server, ["SAVEVAULT_MANIFEST": dir.sub("none.yaml")])
    #expect(throws: LocationManifestError.self) { try missing.manifest(refresh: .never) }
    #expect(ExitStatus(for: LocationManifestError.unreadable(path: "", setting: "", reason: "")) == .usage)
  }

  @Test("Ludusavi's copy is used when SaveVault has none and cannot download one")
  func ludusaviCopy() throws {
    #expect(throws: LocationManifestError.self) { try vault(nil).manifest(refresh: .launch) }
    try writeFile(home + "/.config/ludusavi/manifest.yaml", LocationManifestFixture.realEntries)
    let offline = try vault(nil)
    #expect(try offline.manifest(refresh: .launch).game(lutrisSlug: "klaus")?.title == "Klaus")
    #expect(try offline.manifestStatus().source == .ludusavi)
    let update = try offline.updateManifest()
    #expect(update.status?.source == .ludusavi)
    if case .failed = update.outcome {} else { Issue.record("\(update.outcome)") }
  }

  @Test("secondary manifests (a file, a URL, an install folder's .ludusavi.yaml) are merged in")
  func secondary() throws {
    let server = try server()
    try server.serve("Klaus:\n  id:\n    steamExtra:\n      - 777\nFrom URL:\n  steam:\n    id: 8\n")
    let primary = dir.sub("primary.yaml")
    try writeFile(primary, LocationManifestFixture.realEntries)
    try writeFile(dir.sub("extra.yaml"), "Klaus:\n  files:\n    \"<home>/klaus-extra\": {}\n")
    try writeFile(
      home + "/.config/savevault/config.json",
      #"{"manifest": "\#(primary)", "secondaryManifests": ["\#(dir.sub("extra.yaml"))", "\#(server.url)"]}"#)
    let folder = dir.sub("games/Klaus Deluxe")
    try writeFile(folder + "/.ludusavi.yaml", "Klaus:\n  files:\n    \"./Saves\": {}\n")
    let index = try vault(nil).manifest(refresh: .launch, installFolders: [folder])
    let klaus = try #require(index.game(steamAppID: 777))
    #expect(klaus.title == "Klaus")
    #expect(klaus.files.suffix(2) == ["<home>/klaus-extra", "<base>/Saves"])
    #expect(klaus.installDirs == ["KLAUS", "Klaus Deluxe"])
    #expect(index.game(steamAppID: 8)?.title == "From URL")
    #expect(index.games(installDir: "klaus deluxe").map(\.title) == ["Klaus"])
    let status = try vault(nil).manifestStatus()
    #expect(status.source == .config)
    #expect(status.secondary.count == 2)
  }
}
