#!/usr/bin/env python3
"""Generates save shapes for the bench: typical, many, large (each at scale 0.5, 1, 2).

typical: ~24 files, ~3 MiB, nested; many: 10,000 files of 4 KiB in 100 folders;
large: 4 files of 128 MiB, half incompressible. Deterministic content.
Usage: generate.py OUTDIR SHAPE [SCALE]
"""
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
    else:
        sys.exit(f"unknown shape {shape}")


if __name__ == "__main__":
    main()
