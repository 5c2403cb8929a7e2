#!/usr/bin/env python3
"""Compares two builds of SaveVault on one row of the bench, with `tar -cf` in the same rounds:
for deciding whether a change is faster before it is kept. Each round is one hyperfine call
running the old build, the new build and tar, `--runs 3` each, with the container emptied and
`sync` before every command; the script prints each round's medians and the median of the
rounds.

Usage: ab.py OLD_BIN NEW_BIN [--shape many] [--scale 1] [--rounds 10] [--command backup-force]
--command status or backup (unchanged) times an in-sync status or an unchanged backup instead,
each build with a HOME of its own (its own ledger) backed up once before the rounds; tar -cf
stays the reference.
(build the old one from a worktree: `git worktree add /tmp/old HEAD~1`, then
`swift build -c release --static-swift-stdlib --product savevault` in each.)
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--shape", default="many")
    parser.add_argument("--scale", default="1")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--command", default="backup-force", choices=["backup-force", "status", "backup"])
    args = parser.parse_args()
    if not shutil.which("hyperfine"):
        raise SystemExit("ab.py needs hyperfine (bash bench/run.sh --smoke installs it)")
    work = tempfile.mkdtemp(prefix="savevault-ab-")
    try:
        save = f"{work}/{args.shape}"
        subprocess.run(["python3", f"{HERE}/generate.py", save, args.shape, args.scale],
                       check=True, stdout=subprocess.DEVNULL)
        env = dict(os.environ, HOME=f"{work}/home", SAVEVAULT_DEVICE="bench",
                   XDG_DATA_HOME=f"{work}/home/data", XDG_STATE_HOME=f"{work}/home/state",
                   XDG_CONFIG_HOME=f"{work}/home/config")
        container = f"{work}/home/data/savevault/container/{args.shape}"
        tar = f"tar -cf {work}/out.tar -C {work} {args.shape}"
        if args.command == "backup-force":
            prepare = f"sh -c 'rm -f {container}/*.tar {work}/out.tar; sync'"
            commands = [f"{args.old} --quiet backup --force --save-dir {save}",
                        f"{args.new} --quiet backup --force --save-dir {save}", tar]
        else:
            prepare = "sync"
            commands = []
            for build, binary in (("old", args.old), ("new", args.new)):
                home = f"{work}/home-{build}"
                os.makedirs(home)
                subprocess.run([binary, "--quiet", "backup", "--save-dir", save],
                               env=dict(os.environ, HOME=home, SAVEVAULT_DEVICE="bench"), check=True)
                commands.append(f"env HOME={home} SAVEVAULT_DEVICE=bench {binary} --quiet {args.command} --save-dir {save}")
            commands.append(tar)
        medians = [[], [], []]
        title = "backup --force" if args.command == "backup-force" else args.command
        print(f"{title} of {args.shape} ×{args.scale}: old, new, tar -cf (ms, median of 3)")
        for _ in range(args.rounds):
            subprocess.run(["hyperfine", "-N", "--runs", "3", "--style", "none", "--export-json",
                            f"{work}/round.json", "--prepare", prepare, *commands],
                           env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(f"{work}/round.json") as f:
                results = json.load(f)["results"]
            for column, result in zip(medians, results):
                column.append(result["median"] * 1000)
            print("  ".join(f"{result['median'] * 1000:7.1f}" for result in results))
        old, new, tar = (statistics.median(column) for column in medians)
        print(f"median of rounds: old {old:.1f} ms ({old / tar:.2f}× tar), "
              f"new {new:.1f} ms ({new / tar:.2f}× tar), tar {tar:.1f} ms")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
