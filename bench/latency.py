#!/usr/bin/env python3
"""The requests each command makes to an S3 container, and what they cost at a distance.

Starts moto_server and `rclone serve s3` on loopback and puts bench/latency_proxy.py in front
of each, first without delay, then with DELAY ms added each way (a round trip of 2×DELAY, as to
a server far away). For each server and delay, with a one-file save, a fresh HOME and a fresh
prefix (whose first upload, not counted, also makes the container's one-time checks), it runs:

  status            in sync
  sync              in sync
  wrap -- true      in sync, the game (`true`) changes nothing
  sync, uploading   the one file changed before each run

and prints, per command, the requests it made (from the proxy's log, as `LIST, PUT, LIST`: GET
?list-type=2 is LIST, GET ?uploads is LIST uploads, the rest by method) with their count, and
its wall time (median of --runs runs). wrap's requests are split into before and after the game
(a separate run whose game writes the log's length), and a row per server and delay gives what
wrap adds to a launch: its wall time minus `true`'s own.

Usage: latency.py [--bin PATH] [--runs N] [--delay-ms 50] [--servers moto,rclone]
Run from anywhere after `swift build -c release`; `bash bench/run.sh --latency` does all of it.
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROXY = os.path.join(ROOT, "bench", "latency_proxy.py")
KEY, SECRET, BUCKET = "BENCHKEY", "benchsecret", "bench"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_listening(port, process, what):
    for _ in range(300):
        if process.poll() is not None:
            sys.exit(f"{what} exited with {process.returncode} before it listened")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"{what} did not listen on 127.0.0.1:{port} within 30 s")


def start_server(kind, work):
    """Starts a server with the bucket `bench` and returns (process, port)."""
    port = free_port()
    if kind == "moto":
        process = subprocess.Popen([shutil.which("moto_server"), "-H", "127.0.0.1", "-p", str(port)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_listening(port, process, "moto_server")
        # moto takes an unsigned CreateBucket.
        urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/{BUCKET}", method="PUT")).close()
    else:
        root = f"{work}/rclone-s3"
        os.makedirs(f"{root}/{BUCKET}")  # rclone serve s3 serves folders as buckets
        process = subprocess.Popen([shutil.which("rclone"), "serve", "s3", "--addr", f"127.0.0.1:{port}",
                                    "--auth-key", f"{KEY},{SECRET}", "--config", "/dev/null", root],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_listening(port, process, "rclone serve s3")
    return process, port


class Proxy:
    """bench/latency_proxy.py in front of 127.0.0.1:`port`, logging to `log`."""

    def __init__(self, port, delay_ms, log):
        self.log = log
        self.process = subprocess.Popen([sys.executable, PROXY, "--listen-port", "0", "--target",
                                         f"127.0.0.1:{port}", "--delay-ms", str(delay_ms), "--log", log],
                                        stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line.strip().isdigit():
            sys.exit(f"{PROXY} did not start")
        self.port = int(line)

    def count(self):
        if not os.path.exists(self.log):
            return 0
        with open(self.log) as f:
            return sum(1 for _ in f)

    def since(self, mark):
        """The requests logged after the first `mark`, by name."""
        with open(self.log) as f:
            return [name(line) for line in f.read().splitlines()[mark:]]

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


def name(line):
    """`GET /bench?list-type=2&prefix=…` → `LIST`, and so on."""
    method, _, target = line.partition(" ")
    keys = set(urllib.parse.parse_qs(urllib.parse.urlsplit(target).query, keep_blank_values=True))
    for wanted_method, key, label in (("GET", "list-type", "LIST"), ("GET", "uploads", "LIST uploads"),
                                      ("POST", "uploads", "POST uploads"), ("POST", "uploadId", "POST uploadId"),
                                      ("PUT", "partNumber", "PUT part")):
        if method == wanted_method and key in keys:
            return label
    return method


def timed(cmd, env):
    """Runs `cmd`; returns (seconds, stdout). A failure stops the bench."""
    started = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {done.returncode}: {done.stderr.strip()}")
    return seconds, done.stdout


def measure(server, port, delay_ms, bin_path, runs, work, env):
    """Prints the rows of one server (on `port`) at one delay."""
    tag = f"{server}-{delay_ms}ms"
    proxy = Proxy(port, delay_ms, f"{work}/{tag}.log")
    try:
        home, save = f"{work}/{tag}/home", f"{work}/{tag}/save/game"
        os.makedirs(home)
        os.makedirs(save)
        with open(f"{save}/slot.sav", "w") as f:
            f.write("level 1\n")
        env = dict(env, HOME=home, XDG_DATA_HOME=f"{home}/data", XDG_STATE_HOME=f"{home}/state",
                   XDG_CONFIG_HOME=f"{home}/config", AWS_ENDPOINT_URL=f"http://127.0.0.1:{proxy.port}")
        target = ["--save-dir", save, "--container", f"s3://{BUCKET}/{tag}"]

        def row(what, cmd, check=None, before=None):
            seconds, lists = [], []
            for i in range(runs):
                if before:
                    before(i)
                mark = proxy.count()
                elapsed, out = timed(cmd, env)
                if check:
                    check(out)
                seconds.append(elapsed)
                lists.append(proxy.since(mark))
            same = all(made == lists[0] for made in lists)
            made = ", ".join(lists[0]) + ("" if same else " (varies between runs)")
            ms = statistics.median(seconds) * 1000
            print(f"| {server} | {delay_ms} | {what} | {made} | {len(lists[0])} | {ms:.0f} |", flush=True)
            return ms

        def expect(field, expected):
            """A check that the command's JSON has `expected` in `field`."""
            def check(out):
                found = json.loads(out).get(field)
                if found != expected:
                    sys.exit(f"expected {field} {expected}, found {found}: {out}")
            return check

        def state(expected):
            return expect("state", expected)

        def action(expected):
            return expect("action", expected)

        def change(i):
            with open(f"{save}/slot.sav", "w") as f:
                f.write(f"level {i + 2}, changed for run {i}\n")

        mark = proxy.count()
        timed([bin_path, "backup"] + target, env)
        first = proxy.since(mark)
        print(f"| {server} | {delay_ms} | first upload to the container (not timed) | {', '.join(first)} | "
              f"{len(first)} |  |", flush=True)
        row("status, in sync", [bin_path, "status", "--json"] + target, state("in-sync"))
        row("sync, in sync", [bin_path, "sync", "--json"] + target, action("none"))
        wrap_ms = row("wrap -- true, in sync", [bin_path, "wrap"] + target + ["--", "true"])
        # One more wrap, whose game writes how many requests the log holds, splits them.
        marker = f"{work}/{tag}/at-game"
        mark = proxy.count()
        timed([bin_path, "wrap"] + target + ["--", "sh", "-c", 'wc -l < "$0" > "$1"', proxy.log, marker], env)
        with open(marker) as f:
            split = int(f.read().strip()) - mark
        made = proxy.since(mark)
        for part, requests in (("before the game", made[:split]), ("after the game", made[split:])):
            print(f"| {server} | {delay_ms} | wrap, {part} | {', '.join(requests)} | {len(requests)} |  |", flush=True)
        game_ms = statistics.median(timed(["true"], env)[0] for _ in range(runs)) * 1000
        print(f"| {server} | {delay_ms} | wrap's added time (before + after the game; wall minus `true`'s "
              f"{game_ms:.0f} ms) |  | {len(made)} | {wrap_ms - game_ms:.0f} |", flush=True)
        row("sync, uploading a changed one-file save", [bin_path, "sync", "--json"] + target, action("uploaded"),
            before=change)
    finally:
        proxy.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build", "release", "savevault"),
                    help="the savevault binary (default: the release build)")
    ap.add_argument("--runs", type=int, default=5, help="runs per command (the median is printed)")
    ap.add_argument("--delay-ms", type=int, default=50, help="the delay each way besides 0 (default 50)")
    ap.add_argument("--servers", default="moto,rclone", help="comma-separated, of moto, rclone")
    args = ap.parse_args()
    if not os.access(args.bin, os.X_OK):
        sys.exit(f"no savevault binary at {args.bin}: run `swift build -c release` first (or bash bench/run.sh --latency)")
    servers = [s for s in args.servers.split(",") if s]
    for server in servers:
        program = {"moto": "moto_server", "rclone": "rclone"}.get(server)
        if program is None:
            ap.error(f"unknown server {server}: the servers are moto, rclone")
        if not shutil.which(program):
            sys.exit(f"{program} is not on PATH: bash scripts/install-deps.sh --test installs it")
    work = tempfile.mkdtemp(prefix="savevault-latency-")
    env = dict(os.environ, SAVEVAULT_DEVICE="bench", AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY=SECRET)
    for variable in ("SAVEVAULT_CONTAINER", "SAVEVAULT_CONFIG", "SAVEVAULT_S3_PART_MIB", "AWS_PROFILE"):
        env.pop(variable, None)
    processes, ports = [], {}
    try:
        for server in servers:
            process, ports[server] = start_server(server, work)
            processes.append(process)
        print(f"{args.runs} runs per command, medians; delays are added each way (a round trip costs twice)")
        print("| server | delay ms | command | requests | count | wall ms |")
        print("| --- | --- | --- | --- | --- | --- |", flush=True)
        for server in servers:
            for delay_ms in (0, args.delay_ms):
                measure(server, ports[server], delay_ms, args.bin, args.runs, work, env)
    finally:
        for process in processes:
            process.kill()
            process.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
