#!/usr/bin/env python3
"""A loopback TCP proxy that adds a fixed delay each way and logs the HTTP requests through it.

It stands between SaveVault and a local S3 server (moto_server, rclone serve s3) to show what
each command costs against a remote container: every request is a round trip, and the log
says which requests a command made; the delay turns them into time, as a distant server would.

Usage: latency_proxy.py --target 127.0.0.1:9000 [--listen-port 0] [--delay-ms 50] [--log FILE]

  --listen-port N  the port to listen on, on 127.0.0.1 (0: a free one); the port is printed
                   as the first line on stdout either way
  --target H:P     the server, on loopback
  --delay-ms D     each chunk of bytes is delivered D ms after it arrived, in both directions
                   and in order (a delay, not a bandwidth limit); 0: none
  --log FILE       appends one line per HTTP request the client sends, `METHOD path?query`,
                   flushed as soon as the request's header has arrived (so before the server
                   sees it); requests are found by parsing each connection's client-to-server
                   stream as HTTP/1.1: a header up to CRLFCRLF, then a Content-Length or a
                   chunked body

The TCP handshake itself is not delayed (the kernel completes it before the proxy sees the
connection), so a new connection costs one round trip less than on a real network. SIGTERM
or SIGINT stops it: the listener closes, open connections are dropped, it exits 0.
"""
import argparse
import asyncio
import ipaddress
import signal
import socket
import sys

CHUNK = 1 << 16


class RequestLog:
    """Finds the requests in one connection's client-to-server bytes and logs each one.

    States: `head` (up to CRLFCRLF), `body` (`remaining` bytes of a Content-Length body),
    `size` (a chunk-size line), `data` (`remaining` bytes of a chunk), `data-end` (the CRLF
    after a chunk), `trailer` (lines up to an empty one), `lost` (unparseable: the bytes still
    pass, nothing more is logged on this connection).
    """

    def __init__(self, log):
        self.log = log
        self.buffer = b""
        self.state = "head"
        self.remaining = 0

    def feed(self, data):
        self.buffer += data
        while self.state != "lost" and self._step():
            pass

    def _step(self):
        """Consumes one piece of the buffer; False when it needs more bytes."""
        if self.state in ("body", "data"):
            if not self.buffer:
                return False
            taken = min(self.remaining, len(self.buffer))
            self.buffer = self.buffer[taken:]
            self.remaining -= taken
            if self.remaining == 0:
                self.state = "head" if self.state == "body" else "data-end"
            return True
        mark = b"\r\n\r\n" if self.state == "head" else b"\r\n"
        end = self.buffer.find(mark)
        if end < 0:
            return False
        text = self.buffer[:end].decode("latin-1")
        self.buffer = self.buffer[end + len(mark):]
        try:
            if self.state == "head":
                self._head(text)
            elif self.state == "data-end":
                if text:
                    raise ValueError(f"no CRLF after a chunk: {text[:40]!r}")
                self.state = "size"
            elif self.state == "size":
                self.remaining = int(text.split(";")[0].strip(), 16)
                self.state = "data" if self.remaining > 0 else "trailer"
            elif not text:  # the empty line that ends the trailer
                self.state = "head"
        except ValueError as error:
            self.state = "lost"
            self._write(f"? {error}")
        return True

    def _head(self, text):
        lines = text.lstrip("\r\n").split("\r\n")  # CRLFs between requests are allowed
        words = lines[0].split(" ")
        if len(words) != 3 or not words[2].startswith("HTTP/"):
            raise ValueError(f"not a request line: {lines[0][:80]!r}")
        self._write(f"{words[0]} {words[1]}")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip().lower()
        if "chunked" in headers.get("transfer-encoding", ""):
            self.state = "size"
        elif int(headers.get("content-length", "0")) > 0:
            self.state, self.remaining = "body", int(headers["content-length"])

    def _write(self, line):
        if self.log:
            self.log.write(line + "\n")
            self.log.flush()


async def pump(reader, writer, delay, requests=None):
    """Copies reader to writer, each chunk delivered `delay` s after it arrived; EOF likewise."""
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def deliver():
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if data is None:
                if writer.can_write_eof():
                    writer.write_eof()
                return
            writer.write(data)
            await writer.drain()

    sender = asyncio.ensure_future(deliver())
    try:
        while True:
            data = await reader.read(CHUNK)
            if requests is not None and data:
                requests.feed(data)
            queue.put_nowait((loop.time() + delay, data or None))
            if not data:
                break
        await sender
    finally:
        sender.cancel()


async def serve(args):
    host, _, port = args.target.rpartition(":")
    log = open(args.log, "a") if args.log else None
    delay = args.delay_ms / 1000
    connections = set()

    async def handle(client_reader, client_writer):
        connections.add(asyncio.current_task())
        server_writer = None
        try:
            server_reader, server_writer = await asyncio.open_connection(host, int(port))
            pumps = [
                asyncio.ensure_future(pump(client_reader, server_writer, delay, RequestLog(log))),
                asyncio.ensure_future(pump(server_reader, client_writer, delay)),
            ]
            try:
                await asyncio.gather(*pumps)
            finally:
                for task in pumps:
                    task.cancel()
        except (ConnectionError, OSError, asyncio.CancelledError):
            pass  # a reset, an unreachable server or the proxy stopping: the connection ends
        finally:
            for writer in (client_writer, server_writer):
                if writer is not None:
                    writer.close()
            connections.discard(asyncio.current_task())

    server = await asyncio.start_server(handle, "127.0.0.1", args.listen_port)
    print(server.sockets[0].getsockname()[1], flush=True)
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(signum, stop.set)
    await stop.wait()
    server.close()
    for task in list(connections):
        task.cancel()
    await asyncio.gather(*connections, return_exceptions=True)
    if log:
        log.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--listen-port", type=int, default=0)
    ap.add_argument("--target", required=True, help="HOST:PORT of the server, on loopback")
    ap.add_argument("--delay-ms", type=float, default=0)
    ap.add_argument("--log")
    args = ap.parse_args()
    host = args.target.rpartition(":")[0].strip("[]")
    try:
        loopback = all(ipaddress.ip_address(a[4][0]).is_loopback for a in socket.getaddrinfo(host, None))
    except (OSError, ValueError):
        loopback = False
    if not loopback:
        sys.exit(f"latency_proxy: --target {args.target} is not a loopback address")
    if args.delay_ms < 0:
        sys.exit("latency_proxy: --delay-ms must be 0 or more")
    # A launcher may hand its blocked signals down (a test runner's threads block SIGTERM).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    asyncio.run(serve(args))


if __name__ == "__main__":
    main()
