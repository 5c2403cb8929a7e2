#!/usr/bin/env python3
"""Plain .tar against zstd .tar.zst on the bench shapes: archive size, backup --force time
and restore time (medians), next to GNU tar writing the same two kinds.

Usage: compress.py [--quick] [--shapes typical,many,large] [--runs N] [--bin PATH]
Run from the repository root after `swift build -c release`; needs the `zstd` program for
`tar --zstd`.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(cmd, env):
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def newest(folder, suffix):
    """The newest archive ending in exactly `suffix` (a `.tar.zst` name does not end in `.tar`)."""
    return sorted(n for n in os.listdir(folder) if n.endswith(suffix))[-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="one small pass (CI smoke)")
    ap.add_argument("--shapes", default="typical,many,large")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build", "release", "savevault"))
    args = ap.parse_args()
    shapes = ["typical"] if args.quick else args.shapes.split(",")
    runs = 1 if args.quick else args.runs
    work = tempfile.mkdtemp(prefix="savevault-compress-")
    env = dict(os.environ, HOME=work + "/home", SAVEVAULT_DEVICE="bench")
    for name in ("SAVEVAULT_CONTAINER", "SAVEVAULT_CONFIG", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        env.pop(name, None)
    print("| shape | content MiB | kind | archive MiB | ratio | backup --force ms | restore ms | GNU tar -c ms |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    try:
        for shape in shapes:
            save = f"{work}/{shape}/save"
            subprocess.run(["python3", f"{ROOT}/bench/generate.py", save, shape, "0.1" if args.quick else "1"],
                           check=True)
            content = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(save) for f in fs)
            cloud = f"{work}/cloud"
            folder = f"{cloud}/{shape}"
            os.makedirs(cloud, exist_ok=True)
            sv = [args.bin, "--quiet"]
            common = ["--game", shape, "--save-dir", save, "--container", cloud]
            times = {kind: {"backup": [], "restore": [], "tar": []} for kind in ("none", "zstd")}
            reference = {"none": ["tar", "-cf"], "zstd": ["tar", "--zstd", "-cf"]}
            suffix = {"none": ".tar", "zstd": ".tar.zst"}
            for _ in range(runs):
                for kind in ("none", "zstd"):
                    t = times[kind]
                    t["backup"].append(timed(sv + ["backup", "--force", "--compress", kind] + common, env))
                    name = newest(folder, suffix[kind])
                    t["restore"].append(timed(sv + ["restore", "--archive", name] + common, env))
                    shutil.rmtree(f"{work}/home/.local/share/savevault/pre-restore", ignore_errors=True)
                    out = f"{work}/ref{suffix[kind]}"
                    t["tar"].append(timed(reference[kind] + [out, "-C", save, "."], env))
            for kind in ("none", "zstd"):
                size = os.path.getsize(os.path.join(folder, newest(folder, suffix[kind])))
                t = times[kind]
                ms = {k: statistics.median(v) * 1000 for k, v in t.items()}
                print(f"| {shape} | {content / 2**20:.1f} | {suffix[kind]} | {size / 2**20:.2f} | "
                      f"{size / content:.2f} | {ms['backup']:.0f} | {ms['restore']:.0f} | {ms['tar']:.0f} |",
                      flush=True)
            shutil.rmtree(folder, ignore_errors=True)
            shutil.rmtree(f"{work}/home/.local/state", ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
