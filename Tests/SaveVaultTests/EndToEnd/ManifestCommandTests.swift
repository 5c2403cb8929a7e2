import Foundation
import Testing

@testable import SaveVault

/// `savevault manifest update|status` through the built binary.
@Suite("manifest command through the binary", .tags(.large))
struct ManifestCommandTests {
  @Test("status --json says which copy is used, where and with how many games")
  func statusJSON() async throws {
    let player = try Sandbox("manifest-status")
    let file = player.path("manifest.yaml")
    try writeFile(file, LocationManifestFixture.realEntries)
    let result = try await player.ok(
      ["manifest", "status", "--json"], environment: ["SAVEVAULT_MANIFEST": file])
    let object = try #require(
      JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
    #expect(object["source"] as? String == "environment")
    #expect(object["path"] as? String == file)
    #expect(object["games"] as? Int == LocationManifestFixture.realTitles.count)
    #expect(FileManager.default.fileExists(atPath: player.home + "/.cache/savevault/manifest.index"))
  }

  @Test("update downloads, then says unchanged; offline it exits 4 and keeps the copy")
  func update() async throws {
    let player = try Sandbox("manifest-update")
    let server = try LocationManifestServer(in: player)
    let environment = server.environment
    let first = try await player.ok(["manifest", "update"], environment: environment)
    #expect(first.stdout.contains("Updated"), "\(first.stdout)")
    let second = try await player.ok(["manifest", "update"], environment: environment)
    #expect(second.stdout.contains("current"), "\(second.stdout)")
    server.stop()
    let offline = try await player.runAwaiting(["manifest", "update", "--json"], environment: environment)
    #expect(offline.code == 4, "\(offline.stderr)")
    let object = try #require(
      JSONSerialization.jsonObject(with: Data(offline.stdout.utf8)) as? [String: Any], "\(offline.stdout)")
    #expect(object["outcome"] as? String == "failed")
    let status = try await player.ok(["manifest", "status"], environment: environment)
    #expect(
      status.stdout.contains("games:   \(LocationManifestFixture.realTitles.count)"), "\(status.stdout)")
    #expect(status.stdout.contains("etag:"), "\(status.stdout)")
  }

  @Test("with no manifest anywhere and no network: exit 4 and how to get one")
  func nothing() async throws {
    let player = try Sandbox("manifest-none")
    let result = try await player.runAwaiting(
      ["manifest", "status"], environment: ["SAVEVAULT_MANIFEST_URL": "http://127.0.0.1:9/m.yaml"])
    #expect(result.code == 4)
    #expect(result.stderr.contains("savevault manifest update"), "\(result.stderr)")
    let usage = try await player.runAwaiting(["manifest", "refresh"])
    #expect(usage.code == 2)
  }
}
