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
  private let process: Process

  static let script = #"""
    import hashlib, http.server, os, sys, time
    root = sys.argv[1]
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        def do_GET(self):
            mode = open(os.path.join(root, "mode")).read().strip()
            sent = self.headers.get("If-None-Match")
            with open(os.path.join(root, "requests"), "a") as log:
                log.write((sent or "-") + "\n")
            if mode == "hang":
                time.sleep(60)
                return
            if mode == "redirect" and "followed" not in self.path:
                self.send_response(302); self.send_header("Location", self.path + "?followed")
                self.send_header("Content-Length", "0"); self.end_headers()
                return
            if mode == "missing":
                self.send_response(404); self.send_header("Content-Length", "0"); self.end_headers()
                return
            body = open(os.path.join(root, "manifest.yaml"), "rb").read()
            etag = '"' + hashlib.sha1(body).hexdigest() + '"'
            if mode == "garbage":
                body = b"<html><body>Rate limited</body></html>\n"
            if mode == "ok" and sent == etag:
                self.send_response(304); self.send_header("ETag", etag); self.end_headers()
                return
            self.send_response(200)
            self.send_header("ETag", etag)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if mode == "truncated":
                self.wfile.write(body[: len(body) // 2]); self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(body)
        def log_message(self, *args):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(os.path.join(root, "port.tmp"), "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(os.path.join(root, "port.tmp"), os.path.join(root, "port"))
    server.serve_forever()
    """#

  init(root: String, manifest: String) throws {
    self.root = root
    try makeDirectory(root)
    try writeFile(root + "/server.py", Self.script)
    try writeFile(root + "/manifest.yaml", manifest)
    try writeFile(root + "/mode", "ok")
    process = Process()
    process.executableURL = URL(fileURLWithPath: try #require(which("python3"), "python3 is needed"))
    process.arguments = [root + "/server.py", root]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
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

  deinit { stop() }

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
