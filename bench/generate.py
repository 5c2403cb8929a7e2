#!/usr/bin/env python3
"""Generates save shapes for the bench: typical, many, large, small, mixed (each at scale 0.5,
1, 2).

typical: ~24 files, ~3 MiB, nested; many: 10,000 files of 4 KiB in 100 folders;
large: 4 files of 128 MiB, half incompressible; small: 30 files, 2 MiB, in two slot folders
beside a few top-level files (a small game's save); mixed: 1,500 files whose sizes are
log-uniform from 200 B to 6 MiB (about 850 MiB), in folders nested two and three deep.
Deterministic content and sizes; SCALE multiplies the number of files (of `large`, their size).
Usage: generate.py OUTDIR SHAPE [SCALE]
"""
import math
import os
import random
import sys


def write(path, size, rng, compressible):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        left = size
        while left > 0:
            n = min(left, 1 << 20)
            f.write(b"save-data " * (n // 10) + b"x" * (n % 10) if compressible else rng.randbytes(n))
            left -= n


def main():
    out, shape = sys.argv[1], sys.argv[2]
    scale = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    rng = random.Random(42)
    if shape == "typical":
        for i in range(max(1, int(24 * scale))):
            write(f"{out}/slot{i % 3}/area{i % 5}/file{i}.sav", int(128 * 1024 * (1 + i % 3) / 2), rng, i % 2 == 0)
    elif shape == "many":
        for i in range(max(1, int(10000 * scale))):
            write(f"{out}/dir{i % 100:03d}/f{i:05d}.dat", 4096, rng, i % 2 == 0)
    elif shape == "large":
        for i in range(4):
            write(f"{out}/big{i}.bin", int(128 * scale * (1 << 20)), rng, i % 2 == 0)
    elif shape == "small":
        # Sizes 1 to 5 units in turn: 30 files hold 90 units, 2 MiB.
        for i in range(max(1, int(30 * scale))):
            folder = "" if i % 5 == 0 else f"slot{i % 2}/"
            write(f"{out}/{folder}file{i:02d}.sav", (2 << 20) * (1 + i % 5) // 90, rng, i % 2 == 0)
    elif shape == "mixed":
        # Sizes from their own generator, so that they do not depend on the content drawn.
        sizes = random.Random(7)
        low, high = math.log(200), math.log(6 << 20)
        for i in range(max(1, int(1500 * scale))):
            size = int(math.exp(sizes.uniform(low, high)))
            deeper = f"/part{i % 3}" if i % 4 == 0 else ""
            write(f"{out}/region{i % 6}/map{i % 25:02d}{deeper}/f{i:04d}.dat", size, rng, i % 2 == 0)
    else:
        sys.exit(f"unknown shape {shape}")


if __name__ == "__main__":
    main()
