#!/usr/bin/env python3
"""Sparse files: SaveVault on one large sparse file of a few KiB of data, next to `tar` in the
same run, so that the time is seen to follow the data, not the size.

Usage: sparse.py [--size 60G] [--runs 3] [--bin PATH] [--dir DIR]

Makes a save holding a file of SIZE (default 60 GiB) with 12 KiB of data (`truncate`, then
`dd conv=notrunc` at three places) and a small file, and archives of it made by GNU tar
(`tar --sparse`, GNU and pax formats) put in a folder container. Rows (median of RUNS, each
after `sync`):
  verify      savevault verify --latest of each archive       tar -xf of it into an empty folder
  restore     savevault restore --latest of each archive      tar -xf of it into an empty folder
  status      savevault status after a touch of the large file (its hash is taken again)
                                                              tar --sparse -cf of the save
  backup      savevault backup --force                        tar --sparse -cf of the save
  sync        savevault sync after 4 KiB written into the large file (an upload)
                                                              tar --sparse -cf of the save
and the blocks the restored file takes. Run from anywhere after `swift build -c release`;
DIR (default: a new folder in /tmp) must be on a filesystem that keeps holes.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    return int(text[:-1]) * units[text[-1].upper()] if text[-1].upper() in units else int(text)


def timed(cmd, env, setup=None):
    if setup:
        setup()
    subprocess.run(["sync"], check=True)
    start = time.perf_counter()
    result = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {result.returncode}: {result.stderr.strip()}")
    return seconds


def make_save(save, size):
    os.makedirs(save)
    big = f"{save}/disk.img"
    subprocess.run(["truncate", "-s", str(size), big], check=True)
    for offset in (1 << 30, size // 2 - 4096, size - 4096):
        with open(big, "r+b") as f:
            f.seek(min(offset, size - 4096))
            f.write(os.urandom(4096))
    with open(f"{save}/small.sav", "w") as f:
        f.write("small")
    return big


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="60G")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bin", default=f"{ROOT}/.build/release/savevault")
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    size = parse_size(args.size)
    work = tempfile.mkdtemp(prefix="savevault-sparse-", dir=args.dir)
    try:
        home = f"{work}/home"
        env = dict(os.environ, HOME=home, SAVEVAULT_DEVICE="bench", XDG_DATA_HOME=f"{home}/data",
                   XDG_STATE_HOME=f"{home}/state", XDG_CONFIG_HOME=f"{home}/config")
        save = f"{work}/game"
        big = make_save(save, size)
        blocks = os.stat(big).st_blocks
        if blocks * 512 >= 1 << 20:
            raise SystemExit(f"{work} does not keep holes ({blocks} blocks)")
        container = f"{work}/container"
        folder = f"{container}/game"
        os.makedirs(folder)
        sv = [args.bin, "--quiet"]
        where = ["--save-dir", save, "--container", container]
        archives = {}
        for index, fmt in enumerate(["gnu", "pax"]):
            name = f"packsave-2026010{index + 1}T000000.000Z-tar{fmt}.tar"
            subprocess.run(["tar", "--sparse", f"--format={fmt}", "-cf", f"{work}/{name}", "-C", save, "."],
                           check=True)
            archives[f"tar --format={fmt}"] = name
        scratch = f"{work}/scratch"

        def fresh_scratch():
            shutil.rmtree(scratch, ignore_errors=True)
            os.makedirs(scratch)

        def only(name):
            def setup():
                for old in os.listdir(folder):
                    os.remove(f"{folder}/{old}")
                shutil.copy(f"{work}/{name}", f"{folder}/{name}")
            return setup

        rows = []

        def row(title, ours, reference, reference_name):
            o, r = statistics.median(ours), statistics.median(reference)
            rows.append((title, o, r, reference_name))
            print(f"{title:<34} {o * 1000:9.1f} ms   {reference_name:<22} {r * 1000:8.1f} ms   {o / r:7.1f}× tar",
                  flush=True)

        print(f"a {size / (1 << 30):.0f} GiB sparse file with 12 KiB of data, and a small file; median of {args.runs}")
        for label, name in archives.items():
            tar_x = [timed(["tar", "-xf", f"{work}/{name}", "-C", scratch], env, fresh_scratch)
                     for _ in range(args.runs)]
            row(f"verify ({label})", [timed(sv + ["verify", "--latest"] + where, env, only(name))
                                      for _ in range(args.runs)], tar_x, "tar -xf")
            row(f"restore ({label})", [timed(sv + ["restore", "--latest"] + where, env, only(name))
                                       for _ in range(args.runs)], tar_x, "tar -xf")
            restored = os.stat(big)
            print(f"  restored: {restored.st_size} bytes in {restored.st_blocks} blocks of 512")
        tar_c = [timed(["tar", "--sparse", "-cf", f"{scratch}/out.tar", "-C", save, "."], env, fresh_scratch)
                 for _ in range(args.runs)]
        row("status (after a touch)", [timed(sv + ["status"] + where, env, lambda: os.utime(big))
                                       for _ in range(args.runs)], tar_c, "tar --sparse -cf")
        row("backup --force", [timed(sv + ["backup", "--force"] + where, env) for _ in range(args.runs)],
            tar_c, "tar --sparse -cf")

        def write_data():
            with open(big, "r+b") as f:
                f.seek(size // 3)
                f.write(os.urandom(4096))
        row("sync (4 KiB written: an upload)", [timed(sv + ["sync"] + where, env, write_data)
                                                 for _ in range(args.runs)], tar_c, "tar --sparse -cf")
        newest = sorted(n for n in os.listdir(folder) if n.endswith(".tar"))[-1]
        print(f"  SaveVault's archive: {os.path.getsize(f'{folder}/{newest}')} bytes")
        print(json.dumps({"size": size, "rows": [{"command": t, "ms": o * 1000, "tarMs": r * 1000}
                                                 for t, o, r, _ in rows]}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
