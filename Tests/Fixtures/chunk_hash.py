#!/usr/bin/env python3
"""The hash by chunks of a file, as docs/containers.md defines it, written apart from
SaveVault's own code: the file is cut into 64 KiB chunks from its start (the last may be
shorter); the hash is the SHA-256 of one record per chunk with a non-zero byte (the byte 01,
the chunk's length as 8 bytes big-endian, its bytes) and one per maximal run of all-zero chunks
(00, the run's length in bytes as 8 bytes big-endian), in file order. Only the file's data
regions are read (SEEK_DATA/SEEK_HOLE); a hole is zeros.

Usage: chunk_hash.py FILE    prints the hash as 64 hex digits
"""
import hashlib
import os
import sys

CHUNK = 64 << 10


def data_regions(fd, size):
    regions, offset = [], 0
    while offset < size:
        try:
            start = os.lseek(fd, offset, os.SEEK_DATA)
        except OSError:
            break
        end = min(os.lseek(fd, start, os.SEEK_HOLE), size)
        regions.append((start, end))
        offset = end
    return regions


def chunk_hash(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        # Every chunk that meets a data region is read (zeros where it meets a hole); the others are zeros.
        touched = sorted({c for start, end in data_regions(fd, size) for c in range(start // CHUNK, (end - 1) // CHUNK + 1)})
        digest, zero_run, position = hashlib.sha256(), 0, 0
        for index in touched:
            zero_run += index * CHUNK - position
            chunk = os.pread(fd, min(CHUNK, size - index * CHUNK), index * CHUNK)
            position = index * CHUNK + len(chunk)
            if chunk.count(0) == len(chunk):
                zero_run += len(chunk)
                continue
            if zero_run:
                digest.update(b"\0" + zero_run.to_bytes(8, "big"))
                zero_run = 0
            digest.update(b"\1" + len(chunk).to_bytes(8, "big") + chunk)
        zero_run += size - position
        if zero_run:
            digest.update(b"\0" + zero_run.to_bytes(8, "big"))
        return digest.hexdigest()
    finally:
        os.close(fd)


if __name__ == "__main__":
    print(chunk_hash(sys.argv[1]))
