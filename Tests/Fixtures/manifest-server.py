# python3 manifest-server.py ROOT: the test manifest server (Tests/SaveVaultTests/Harness/ManifestServer.swift).
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
