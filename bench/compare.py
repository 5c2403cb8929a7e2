#!/usr/bin/env python3
"""Runs SaveVault and the reference tools side by side, alternating, and prints medians,
ratios and peak memory. Usage: compare.py [--quick] [--shapes typical,many,large] [--runs N]

Rows: backup --force vs tar -cf; restore --latest (after a small edit) vs tar -xf into an
empty folder; unchanged backup vs tar -cf; status vs tar -cf. Run from the repository root
after `swift build -c release`.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, ".build", "release", "savevault")


def timed(cmd, env, setup=None):
    if setup:
        setup()
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def peak_kib(cmd, env):
    if not os.path.exists("/usr/bin/time"):
        return None
    r = subprocess.run(["/usr/bin/time", "-v"] + cmd, env=env, capture_output=True, text=True)
    for line in r.stderr.splitlines():
        if "Maximum resident set size" in line:
            return int(line.split()[-1])
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="one small pass (CI smoke)")
    ap.add_argument("--shapes", default="typical,many,large", help="comma-separated; 'none' for only --s3")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--s3", action="store_true", help="also the S3 row: upload of `large` to rclone serve s3")
    args = ap.parse_args()
    shapes = ["typical"] if args.quick else [x for x in args.shapes.split(",") if x != "none"]
    runs = 2 if args.quick else args.runs
    work = tempfile.mkdtemp(prefix="savevault-bench-")
    env = dict(os.environ, HOME=work + "/home", SAVEVAULT_DEVICE="bench")
    env.pop("SAVEVAULT_CONTAINER", None)
    env.pop("XDG_DATA_HOME", None)
    env.pop("XDG_STATE_HOME", None)
    print(f"| shape | what | savevault ms | reference ms | ratio | peak RSS MiB |")
    print(f"| --- | --- | --- | --- | --- | --- |")
    try:
        for shape in shapes:
            save = f"{work}/{shape}/save"
            subprocess.run(["python3", f"{ROOT}/bench/generate.py", save, shape, "0.1" if args.quick else "1"], check=True)
            sv = [BIN, "--quiet"]
            tarfile = f"{work}/{shape}.tar"
            rows = {"backup --force": ([], []), "restore --latest": ([], []), "unchanged backup": ([], []),
                    "status": ([], [])}
            subprocess.run(sv + ["backup", "--save-dir", save], env=env, check=True)
            edit = f"{save}/.bench-edit"

            def touch():
                with open(edit, "w") as f:
                    f.write(str(time.time()))

            def fresh_dir():
                shutil.rmtree(f"{work}/x", ignore_errors=True)
                os.makedirs(f"{work}/x")

            for _ in range(runs):
                rows["backup --force"][0].append(timed(sv + ["backup", "--force", "--save-dir", save], env))
                rows["backup --force"][1].append(timed(["tar", "-cf", tarfile, "-C", save, "."], env))
                rows["restore --latest"][0].append(timed(sv + ["restore", "--latest", "--save-dir", save], env, touch))
                rows["restore --latest"][1].append(timed(["tar", "-xf", tarfile, "-C", f"{work}/x"], env, fresh_dir))
                rows["unchanged backup"][0].append(timed(sv + ["backup", "--save-dir", save], env))
                rows["unchanged backup"][1].append(timed(["tar", "-cf", tarfile, "-C", save, "."], env))
                rows["status"][0].append(timed(sv + ["status", "--save-dir", save], env))
                rows["status"][1].append(timed(["tar", "-cf", tarfile, "-C", save, "."], env))
                shutil.rmtree(f"{work}/home/.local/share/savevault/pre-restore", ignore_errors=True)
            memory = {
                "backup --force": peak_kib(sv + ["backup", "--force", "--save-dir", save], env),
                "restore --latest": peak_kib(sv + ["restore", "--latest", "--save-dir", save], env),
            }
            for what, (ours, ref) in rows.items():
                a, b = statistics.median(ours) * 1000, statistics.median(ref) * 1000
                mem = memory.get(what)
                mem_text = f"{mem / 1024:.0f}" if mem else ""
                print(f"| {shape} | {what} | {a:.1f} | {b:.1f} | {a / b:.2f} | {mem_text} |", flush=True)
            shutil.rmtree(f"{work}/home/.local/share/savevault/container", ignore_errors=True)
            shutil.rmtree(f"{work}/home/.local/state", ignore_errors=True)
        if args.s3:
            s3_row(work, env, runs, args.quick)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def s3_row(work, env, runs, quick):
    """Uploading `large` to `rclone serve s3` on loopback: savevault backup --force against
    rclone copyto of the same tar to the same server."""
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    root = f"{work}/s3root"
    os.makedirs(f"{root}/bench")
    key, secret = "BENCHKEY", "benchsecret"
    server = subprocess.Popen(["rclone", "serve", "s3", "--addr", f"127.0.0.1:{port}", "--auth-key",
                               f"{key},{secret}", "--config", "/dev/null", root],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        save = f"{work}/s3save"
        subprocess.run(["python3", f"{ROOT}/bench/generate.py", save, "large", "0.1" if quick else "1"], check=True)
        tarfile = f"{work}/s3.tar"
        subprocess.run(["tar", "-cf", tarfile, "-C", save, "."], check=True)
        s3env = dict(env, AWS_ACCESS_KEY_ID=key, AWS_SECRET_ACCESS_KEY=secret,
                     AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}")
        renv = dict(env, RCLONE_CONFIG_BENCHS3_TYPE="s3", RCLONE_CONFIG_BENCHS3_PROVIDER="Other",
                    RCLONE_CONFIG_BENCHS3_ACCESS_KEY_ID=key, RCLONE_CONFIG_BENCHS3_SECRET_ACCESS_KEY=secret,
                    RCLONE_CONFIG_BENCHS3_ENDPOINT=f"http://127.0.0.1:{port}")
        ours, ref = [], []
        for i in range(runs):
            ours.append(timed([BIN, "--quiet", "backup", "--force", "--save-dir", save, "--container",
                               "s3://bench/sv"], s3env))
            ref.append(timed(["rclone", "copyto", "--config", "/dev/null", tarfile, f"benchs3:bench/ref/{i}.tar"],
                             renv))
        mem = peak_kib([BIN, "--quiet", "backup", "--force", "--save-dir", save, "--container", "s3://bench/sv"],
                       s3env)
        a, b = statistics.median(ours) * 1000, statistics.median(ref) * 1000
        print(f"| large | S3 upload (rclone serve s3) | {a:.1f} | {b:.1f} | {a / b:.2f} | {mem / 1024:.0f} |",
              flush=True)
    finally:
        server.kill()


if __name__ == "__main__":
    main()
