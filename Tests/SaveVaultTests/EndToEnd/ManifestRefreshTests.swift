import Foundation
import Testing

/// A stale copy of the manifest is refreshed by a process of its own once the game runs, never
/// in front of the launch: the built binary, a real HTTP server on 127.0.0.1.
@Suite("Manifest refreshed in the background", .tags(.large))
struct ManifestRefreshTests {
  @Test("wrap starts the game before any download; the stale copy is replaced while the game runs")
  func afterTheGameStarts() async throws {
    let player = try Sandbox("manifest-refresh")
    let server = try LocationManifestServer(in: player)
    let environment = server.environment
    try await player.ok(["manifest", "update"], environment: environment)
    #expect(server.requests.count == 1)
    // The copy was checked two days ago; a new manifest is published since.
    let stateFile = player.home + "/.cache/savevault/manifest.yaml.state.json"
    var state = try #require(
      JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stateFile))) as? [String: Any])
    let twoDaysAgo = Int64(Date().timeIntervalSince1970 * 1000) - 2 * 24 * 3600 * 1000
    state["checkedMs"] = twoDaysAgo
    state["updatedMs"] = twoDaysAgo
    try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: stateFile))
    try server.serve(LocationManifestFixture.realEntries + "\nNew Game:\n  steam:\n    id: 31337\n")
    try writeFile(player.save + "/slot.sav", "v1")

    // The game notes how many requests the server had when it started, then waits (at most
    // 20 s) for one more, which only a process running beside it can make.
    let requests = player.path("server/requests")
    let marker = player.path("game")
    let game = """
      wc -l < "$0" > "$1.start"; i=0
      while [ "$(wc -l < "$0")" -lt 2 ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done
      wc -l < "$0" > "$1.during"
      """
    let wrap = try await player.runAwaiting(
      ["wrap"] + player.target() + ["--", "/bin/sh", "-c", game, requests, marker], environment: environment)
    #expect(wrap.code == 0, "\(wrap.stderr)")
    #expect(
      try String(contentsOfFile: marker + ".start", encoding: .utf8).trimmingCharacters(
        in: .whitespacesAndNewlines) == "1")
    #expect(
      try String(contentsOfFile: marker + ".during", encoding: .utf8).trimmingCharacters(
        in: .whitespacesAndNewlines) == "2")

    // The download ends on its own: the copy is replaced whole, and used from then on.
    let copy = player.home + "/.cache/savevault/manifest.yaml"
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline,
      !((try? String(contentsOfFile: copy, encoding: .utf8))?.contains("New Game") ?? false)
    {
      try await Task.sleep(nanoseconds: 100_000_000)
    }
    let status = try await player.ok(["manifest", "status", "--json"], environment: environment)
    let object = try #require(
      JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], "\(status.stdout)")
    #expect(object["games"] as? Int == LocationManifestFixture.realTitles.count + 1)
    #expect(server.requests.count == 2)
    let log = try String(contentsOfFile: player.home + "/.local/state/savevault/wrap.log", encoding: .utf8)
    #expect(log.contains("refreshed in the background"), "\(log)")

    // Checked now: the next wrap starts no refresh.
    try await player.ok(["wrap"] + player.target() + ["--", "/bin/true"], environment: environment)
    try await Task.sleep(nanoseconds: 500_000_000)
    #expect(server.requests.count == 2)
  }
}
