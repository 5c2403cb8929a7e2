#!/usr/bin/env python3
"""Runs SaveVault and the reference tools side by side, alternating, and prints medians,
ratios and peak memory as a Markdown table.

Usage: compare.py [--smoke] [--shapes typical,many,large,small,mixed] [--scales 0.5,1,2] [--runs N]
                  [--status-archives N] [--s3] [--bin PATH]

Rows, per shape and scale (SaveVault first, then the reference, in every round):
  backup --force     savevault backup --force         tar -cf of the save
  restore --latest   savevault restore --latest       tar -xf into an empty folder
                     (after a small edit of the save)
  unchanged backup   savevault backup (nothing new)   tar -cf
  status             savevault status                 tar -cf
and, as SaveVault makes what it writes durable and tar does not, the first two again against
`tar -cf` + fsync of the tar and `tar -xf` + syncfs of the folder ("durable ref").
Once: status with N archives in the container against `rclone lsjson` of that folder (when
rclone is on PATH), and with --s3 the upload of `large` to `rclone serve s3` against
`rclone copyto` of the tar. Times come from hyperfine (one call per round, both commands,
`--runs 1`, no shell, `sync` before each command so none waits for the writeback another left)
when it is installed, else from Python's clock. Peak memory is the
maximum resident set size from `/usr/bin/time -v`. Run from anywhere after
`swift build -c release`; `bash bench/run.sh` does all of it.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HYPERFINE = shutil.which("hyperfine")
SHAPES = ["typical", "many", "large", "small", "mixed"]


def run_quiet(cmd, env):
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def round_times(pairs, env, work):
    """Times each (setup, command) in order, once, and returns the seconds of each."""
    if HYPERFINE:
        out = f"{work}/hyperfine.json"
        cmd = [HYPERFINE, "-N", "--runs", "1", "--style", "none", "--export-json", out]
        # Every command starts on a clean disk: `sync` first, so that no command waits for the
        # writeback of what the one before it left unflushed (tar's outputs are never flushed).
        for setup, _ in pairs:
            cmd += ["--prepare", "sh -c " + _quote(f"{setup} && sync" if setup else "sync")]
        cmd += [" ".join(_quote(word) for word in command) for _, command in pairs]
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as f:
            return [r["median"] for r in json.load(f)["results"]]
    seconds = []
    for setup, command in pairs:
        if setup:
            subprocess.run(setup, shell=True, env=env, check=True)
        subprocess.run(["sync"], check=True)
        start = time.perf_counter()
        run_quiet(command, env)
        seconds.append(time.perf_counter() - start)
    return seconds


def _quote(word):
    """hyperfine -N splits a command line like a shell; quote what needs it."""
    if word and all(c.isalnum() or c in "/._-:=,@+" for c in word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def peak_kib(cmd, env, setup=None):
    if not os.path.exists("/usr/bin/time"):
        return None
    if setup:
        subprocess.run(setup, shell=True, env=env, check=True)
    r = subprocess.run(["/usr/bin/time", "-v"] + cmd, env=env, capture_output=True, text=True)
    for line in r.stderr.splitlines():
        if "Maximum resident set size" in line:
            return int(line.split()[-1])
    return None


# The most each ratio may be, by (shape at scale 1, row); rows without one print "–".
TARGETS = {
    ("small", "status"): 0.75,
    ("small", "unchanged backup"): 0.75,
    ("small", "backup --force"): 2.0,
    ("typical", "backup --force"): 1.10,
    ("many", "backup --force"): 1.10,
    ("large", "backup --force"): 1.10,
    ("many", "backup --force (durable ref)"): 1.0,
    ("many", "unchanged backup"): 0.10,
    ("large", "unchanged backup"): 0.10,
    ("large", "restore --latest (durable ref)"): 1.25,
    ("many", "restore --latest (durable ref)"): 1.25,
    ("mixed", "restore --latest (durable ref)"): 1.25,
    ("typical", "status, archives (vs rclone lsjson)"): 0.5,
    ("large", "S3 upload (rclone serve s3)"): 1.10,
}


def row(label, what, ours, ref, mem=None):
    a, b = statistics.median(ours) * 1000, statistics.median(ref) * 1000
    mem_text = f"{mem / 1024:.0f}" if mem else ""
    target = TARGETS.get((label, re.sub(r"^status, \d+ archives", "status, archives", what)))
    met = "–" if target is None else ("yes" if a / b <= target else "no")
    target_text = "–" if target is None else f"≤ {target:.2f}×"
    print(f"| {label} | {what} | {a:.1f} | {b:.1f} | {a / b:.2f} | {target_text} | {met} | {mem_text} |",
          flush=True)


def generate(path, shape, scale):
    subprocess.run([sys.executable, f"{ROOT}/bench/generate.py", path, shape, str(scale)], check=True)


def shape_rows(work, env, sv, shape, scale, runs):
    label = shape if scale == 1 else f"{shape} ×{scale:g}"
    game = f"{shape}-{scale:g}".replace(".", "_")
    save = f"{work}/{game}/{game}"
    generate(save, shape, scale)
    tarfile = f"{work}/{game}.tar"
    empty = f"{work}/x"
    edit = f"{save}/.bench-edit"
    touch = f"date +%s%N > {edit}"
    fresh = f"rm -rf {empty} && mkdir {empty}"
    backup_force = sv + ["backup", "--force", "--save-dir", save]
    restore = sv + ["restore", "--latest", "--save-dir", save]
    backup = sv + ["backup", "--save-dir", save]
    status = sv + ["status", "--save-dir", save]
    tar_c = ["tar", "-cf", tarfile, "-C", save, "."]
    tar_x = ["tar", "-xf", tarfile, "-C", empty]
    pre_restore = f"{env['XDG_DATA_HOME']}/savevault/pre-restore/{game}"
    run_quiet(backup, env)
    # The same references made durable, as SaveVault's writes are: tar then fsync of the tar
    # (coreutils `sync FILE`), tar -xf then syncfs of the folder (`sync -f`).
    tar_c_sync = ["sh", "-c", f"tar -cf {tarfile} -C {save} . && sync {tarfile}"]
    tar_x_sync = ["sh", "-c", f"tar -xf {tarfile} -C {empty} && sync -f {empty}"]
    names = ("backup --force", "restore --latest", "unchanged backup", "status", "backup --force (durable ref)",
             "restore --latest (durable ref)")
    rows = {name: ([], []) for name in names}
    for _ in range(runs):
        times = round_times(
            [(None, backup_force), (None, tar_c), (touch, restore), (fresh, tar_x), (None, backup), (None, tar_c),
             (None, status), (None, tar_c), (None, tar_c_sync), (fresh, tar_x_sync)], env, work)
        for index, name in enumerate(names[:4]):
            rows[name][0].append(times[2 * index])
            rows[name][1].append(times[2 * index + 1])
        rows[names[4]][0].append(times[0])
        rows[names[4]][1].append(times[8])
        rows[names[5]][0].append(times[2])
        rows[names[5]][1].append(times[9])
        shutil.rmtree(pre_restore, ignore_errors=True)
    memory = {
        "backup --force": peak_kib(backup_force, env),
        "restore --latest": peak_kib(restore, env, touch),
        "unchanged backup": peak_kib(backup, env),
        "status": peak_kib(status, env),
    }
    for name, (ours, ref) in rows.items():
        row(label, name, ours, ref, memory.get(name))
    shutil.rmtree(f"{work}/{game}", ignore_errors=True)
    shutil.rmtree(pre_restore, ignore_errors=True)
    shutil.rmtree(f"{env['XDG_DATA_HOME']}/savevault/container/{game}", ignore_errors=True)
    for path in (tarfile,):
        if os.path.exists(path):
            os.unlink(path)


def status_row(work, env, sv, count, runs):
    """`status` of a game with `count` archives in its folder container, against
    `rclone lsjson` of that folder."""
    rclone = shutil.which("rclone")
    if not rclone:
        print(f"| typical | status, {count} archives | skipped: no rclone on PATH |  |  |  |  |  |", flush=True)
        return
    game = "archives"
    save = f"{work}/{game}/{game}"
    generate(save, "typical", 1)
    run_quiet(sv + ["backup", "--save-dir", save], env)
    folder = f"{env['XDG_DATA_HOME']}/savevault/container/{game}"
    [first] = [n for n in os.listdir(folder) if n.startswith("packsave-")]
    # Older archives by other devices: hard links to the real one, named 1 ms apart.
    for i in range(1, count):
        os.link(f"{folder}/{first}", f"{folder}/packsave-20200101T000000.{i % 1000:03d}Z-old{i // 1000}.tar")
    status = sv + ["status", "--save-dir", save]
    lsjson = [rclone, "lsjson", "--config", "/dev/null", folder]
    ours, ref = [], []
    for _ in range(runs):
        a, b = round_times([(None, status), (None, lsjson)], env, work)
        ours.append(a)
        ref.append(b)
    row("typical", f"status, {count} archives (vs rclone lsjson)", ours, ref, peak_kib(status, env))


def s3_row(work, env, bin_path, runs, scale):
    """Uploading `large` to `rclone serve s3` on loopback: savevault backup --force against
    rclone copyto of the same tar to the same server."""
    import socket
    rclone = shutil.which("rclone")
    if not rclone:
        print("| large | S3 upload | skipped: no rclone on PATH |  |  |  |  |  |", flush=True)
        return
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    root = f"{work}/s3root"
    os.makedirs(f"{root}/bench")
    key, secret = "BENCHKEY", "benchsecret"
    server = subprocess.Popen([rclone, "serve", "s3", "--addr", f"127.0.0.1:{port}", "--auth-key",
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
        generate(save, "large", scale)
        tarfile = f"{work}/s3.tar"
        subprocess.run(["tar", "-cf", tarfile, "-C", save, "."], check=True)
        s3env = dict(env, AWS_ACCESS_KEY_ID=key, AWS_SECRET_ACCESS_KEY=secret,
                     AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}")
        renv = dict(env, RCLONE_CONFIG_BENCHS3_TYPE="s3", RCLONE_CONFIG_BENCHS3_PROVIDER="Other",
                    RCLONE_CONFIG_BENCHS3_ACCESS_KEY_ID=key, RCLONE_CONFIG_BENCHS3_SECRET_ACCESS_KEY=secret,
                    RCLONE_CONFIG_BENCHS3_ENDPOINT=f"http://127.0.0.1:{port}")
        upload = [bin_path, "--quiet", "backup", "--force", "--save-dir", save, "--container", "s3://bench/sv"]
        ours, ref = [], []
        for i in range(runs):
            ours.append(round_times([(None, upload)], s3env, work)[0])
            ref.append(round_times([(None, [rclone, "copyto", "--config", "/dev/null", tarfile,
                                            f"benchs3:bench/ref/{i}.tar"])], renv, work)[0])
        row("large" if scale == 1 else f"large ×{scale:g}", "S3 upload (rclone serve s3)", ours, ref,
            peak_kib(upload, s3env))
    finally:
        server.kill()
        server.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smoke", action="store_true",
                    help="seconds-long pass of every row on tiny data (CI): checks the script, not speed")
    ap.add_argument("--shapes", default=",".join(SHAPES),
                    help=f"comma-separated, of {', '.join(SHAPES)} (bench/generate.py); 'none' for no shape rows")
    ap.add_argument("--scales", default="0.5,1,2", help="comma-separated sizes of each shape (1 = as specified)")
    ap.add_argument("--runs", type=int, default=5, help="alternating rounds per row (medians are printed)")
    ap.add_argument("--status-archives", type=int, default=1000,
                    help="archives in the container for the status-vs-lsjson row (0: no row)")
    ap.add_argument("--s3", action="store_true", help="also the S3 row: upload of `large` to rclone serve s3")
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build", "release", "savevault"),
                    help="the savevault binary (default: the release build)")
    args = ap.parse_args()
    if args.smoke:
        shapes, scales, runs, archives, s3_scale = SHAPES, [0.01], 1, 20, 0.01
    else:
        shapes = [x for x in args.shapes.split(",") if x and x != "none"]
        unknown = [x for x in shapes if x not in SHAPES]
        if unknown:
            ap.error(f"unknown shape {', '.join(unknown)}: the shapes are {', '.join(SHAPES)}")
        scales = [float(x) for x in args.scales.split(",")]
        runs, archives, s3_scale = args.runs, args.status_archives, 1
    if not os.access(args.bin, os.X_OK):
        sys.exit(f"no savevault binary at {args.bin}: run `swift build -c release` first (or bash bench/run.sh)")
    work = tempfile.mkdtemp(prefix="savevault-bench-")
    env = dict(os.environ, HOME=f"{work}/home", SAVEVAULT_DEVICE="bench", XDG_DATA_HOME=f"{work}/home/data",
               XDG_STATE_HOME=f"{work}/home/state", XDG_CONFIG_HOME=f"{work}/home/config")
    for name in ("SAVEVAULT_CONTAINER", "SAVEVAULT_CONFIG"):
        env.pop(name, None)
    sv = [args.bin, "--quiet"]
    print(f"timer: {'hyperfine' if HYPERFINE else 'python'}; {runs} alternating rounds per row, medians",
          flush=True)
    print("| shape | what | savevault ms | reference ms | ratio | target | met? | peak RSS MiB |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |", flush=True)
    try:
        for shape in shapes:
            for scale in scales:
                shape_rows(work, env, sv, shape, scale, runs)
        if archives > 0:
            status_row(work, env, sv, archives, runs)
        if args.s3 or args.smoke:
            s3_row(work, env, args.bin, runs, s3_scale)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
