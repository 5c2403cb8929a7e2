# python3 tar-bomb.py file|meta SIZE OUTPUT [COMPRESSOR]: a pax tar holding SIZE zero bytes in
# one entry, streamed through `zstd -3` (or COMPRESSOR: gzip, bzip2, xz) into OUTPUT
# (Tests/SaveVaultTests/EndToEnd/CompressionTests.swift, ForeignArchiveTests.swift).
import io, subprocess, sys, tarfile
kind, size, output = sys.argv[1], int(sys.argv[2]), sys.argv[3]
compressor = sys.argv[4] if len(sys.argv) > 4 else "zstd"
command = {"zstd": ["zstd", "-q", "-3", "-c"], "gzip": ["gzip", "-c"], "bzip2": ["bzip2", "-c"], "xz": ["xz", "-c"]}
class Zeros(io.RawIOBase):
    def __init__(self, n): self.left = n
    def readable(self): return True
    def readinto(self, buffer):
        n = min(len(buffer), self.left)
        buffer[:n] = bytes(n)
        self.left -= n
        return n
with open(output, "wb") as out:
    z = subprocess.Popen(command[compressor], stdin=subprocess.PIPE, stdout=out)
    with tarfile.open(fileobj=z.stdin, mode="w|", format=tarfile.PAX_FORMAT) as t:
        info = tarfile.TarInfo("zeros.bin" if kind == "file" else ".savevault/junk.bin")
        info.size = size
        t.addfile(info, io.BufferedReader(Zeros(size), 1 << 20))
    z.stdin.close()
    sys.exit(z.wait())
