#!/usr/bin/env python3
"""Times the save-location manifest with the release binary on a synthetic manifest of the
published one's size (about 17 MB, 50,000 entries, its shapes: files with tags and when,
launch, installDir, registry, ids, aliases, id-only entries).

Rows: `manifest status` with SAVEVAULT_MANIFEST pointing at it and no index (the first run:
the whole YAML parsed and the index written), then with the index there (a later run: the
index opened and checked, no YAML read). Medians of --runs rounds, peak memory from
`/usr/bin/time -v` when it is there. Run after `swift build -c release`.

Usage: manifest.py [--runs N] [--entries N] [--bin PATH]
"""
import argparse
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def quoted(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def manifest(entries, seed=7):
    """A manifest shaped like the published one, as its emitter writes it."""
    rng = random.Random(seed)
    words = ["Dark", "Legend", "Star", "Quest", "Tales", "of", "the", "Lost", "Kingdom", "Racing", "Simulator",
             "Zero", "Hero", "Night", "Ultimate", "Edition", "II", "III", "Remastered", "VR"]
    out = ["---\n"]
    titles = []
    for number in range(entries):
        title = " ".join(rng.choice(words) for _ in range(rng.randint(1, 4))) + f" {number}"
        titles.append(title)
        out.append(f"{quoted(title) if rng.random() < 0.3 else title}:\n")
        kind = rng.random()
        if kind < 0.05 and number > 0:
            out.append(f"  alias: {titles[rng.randrange(number)]}\n")
            continue
        if kind < 0.45:
            out.append(f"  steam:\n    id: {200000 + number}\n")
            continue
        out.append("  files:\n")
        for index in range(rng.randint(1, 5)):
            place = rng.choice(["<winDocuments>/My Games", "<winAppData>", "<xdgData>", "<base>", "<root>/userdata/<storeUserId>/" + str(200000 + number) + "/remote"])
            out.append(f"    {quoted(place + '/' + title.replace(' ', '') + f'/save{index}/*.sav')}:\n")
            out.append("      tags:\n        - save\n      when:\n        - os: windows\n")
            if rng.random() < 0.4:
                out.append("          store: steam\n")
        if rng.random() < 0.3:
            out.append(f"  id:\n    steamExtra:\n      - {900000 + number}\n")
        out.append(f"  installDir:\n    {quoted(title)}: {{}}\n")
        if rng.random() < 0.5:
            out.append(f"  launch:\n    \"<base>/{title.replace(' ', '')}.exe\":\n      - when:\n"
                       "          - bit: 64\n            os: windows\n            store: steam\n")
        if rng.random() < 0.2:
            out.append(f"  registry:\n    \"HKEY_CURRENT_USER/Software/{title}\":\n      tags:\n        - config\n")
        if rng.random() < 0.3:
            out.append(f"  gog:\n    id: {1000000000 + number}\n")
        out.append(f"  steam:\n    id: {200000 + number}\n")
    return "".join(out)


def timed(cmd, env):
    started = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def peak_mib(cmd, env):
    gnu_time = "/usr/bin/time"
    if not os.path.exists(gnu_time):
        return None
    result = subprocess.run([gnu_time, "-v"] + cmd, env=env, check=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    for line in result.stderr.splitlines():
        if "Maximum resident set size" in line:
            return int(line.split()[-1]) / 1024
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--entries", type=int, default=50000)
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build/release/savevault"))
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="savevault-bench-manifest-")
    try:
        path = os.path.join(work, "manifest.yaml")
        with open(path, "w") as f:
            f.write(manifest(args.entries))
        home = os.path.join(work, "home")
        os.makedirs(home)
        env = {"HOME": home, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SAVEVAULT_MANIFEST": path}
        index = os.path.join(home, ".cache/savevault/manifest.index")
        cmd = [args.bin, "manifest", "status"]
        cold, warm = [], []
        for _ in range(args.runs):
            if os.path.exists(index):
                os.remove(index)
            cold.append(timed(cmd, env))
            warm.append(timed(cmd, env))
        size = os.path.getsize(path)
        print(f"synthetic manifest: {size / 1e6:.1f} MB, {args.entries} entries; index {os.path.getsize(index) / 1e6:.1f} MB")
        print("| what is measured | median | min |")
        print("| --- | --- | --- |")
        print(f"| first run: parse + index (`manifest status`, no index) | {statistics.median(cold) * 1000:.0f} ms | {min(cold) * 1000:.0f} ms |")
        print(f"| later run: index only (`manifest status`, index there) | {statistics.median(warm) * 1000:.1f} ms | {min(warm) * 1000:.1f} ms |")
        os.remove(index)
        cold_peak = peak_mib(cmd, env)
        warm_peak = peak_mib(cmd, env)
        if cold_peak is not None:
            print(f"| peak memory, first / later run | {cold_peak:.0f} / {warm_peak:.0f} MiB | |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
