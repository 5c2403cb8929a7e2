import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// A real HTTP server on 127.0.0.1 (Python's `http.server`) serving `<root>/manifest.yaml`
/// with an ETag and honouring `If-None-Match`, misbehaving as `<root>/mode` says: `ok`,
/// `garbage` (a 200 page that is not a manifest), `truncated` (closes halfway through the
/// announced length), `hang` (never answers), `missing` (404), `redirect` (a 302 to the
/// manifest itself, served whole to a client that follows it). Each request's `If-None-Match`
/// (or `-`) is appended to `<root>/requests`. Stopped when the value goes.
final class LocationManifestServer {
  let root: String
  let port: Int
  private let process: SpawnedProgram

  /// The server (Tests/Fixtures).
  static let script = fixture("manifest-server.py")

  init(root: String, manifest: String) throws {
    self.root = root
    try makeDirectory(root)
    try writeFile(root + "/manifest.yaml", manifest)
    try writeFile(root + "/mode", "ok")
    process = try SpawnedProgram(
      try #require(which("python3"), "python3 is needed"), [Self.script, root], stdout: .discarded,
      stderr: .discarded)
    let deadline = Date().addingTimeInterval(20)
    var port: Int?
    while port == nil && Date() < deadline && process.isRunning {
      port = (try? String(contentsOfFile: root + "/port", encoding: .utf8)).flatMap { Int($0) }
      if port == nil { usleep(50_000) }
    }
    guard let port else {
      process.terminate()
      throw ServerError(description: "the manifest server did not start")
    }
    self.port = port
  }

  /// A server of the real entries in `sandbox`'s folder.
  convenience init(in sandbox: Sandbox) throws {
    try self.init(root: sandbox.path("server"), manifest: LocationManifestFixture.realEntries)
  }

  deinit { stop() }

  /// The environment that has SaveVault download its copy from here.
  var environment: [String: String] { ["SAVEVAULT_MANIFEST_URL": url] }

  var url: String { "http://127.0.0.1:\(port)/data/manifest.yaml" }

  func set(mode: String) throws { try writeFile(root + "/mode", mode) }
  func serve(_ manifest: String) throws { try writeFile(root + "/manifest.yaml", manifest) }

  /// The `If-None-Match` of each request so far (`-` for none).
  var requests: [String] {
    ((try? String(contentsOfFile: root + "/requests", encoding: .utf8)) ?? "").split(separator: "\n").map(
      String.init)
  }

  func stop() {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  struct ServerError: Error, CustomStringConvertible {
    var description: String
  }
}
