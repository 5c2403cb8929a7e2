# python3 zstd-bomb.py file|meta SIZE OUTPUT: a pax tar holding SIZE zero bytes in one entry,
# streamed through `zstd -3` into OUTPUT (Tests/SaveVaultTests/EndToEnd/CompressionTests.swift).
import io, subprocess, sys, tarfile
kind, size, output = sys.argv[1], int(sys.argv[2]), sys.argv[3]
class Zeros(io.RawIOBase):
    def __init__(self, n): self.left = n
    def readable(self): return True
    def readinto(self, buffer):
        n = min(len(buffer), self.left)
        buffer[:n] = bytes(n)
        self.left -= n
        return n
with open(output, "wb") as out:
    z = subprocess.Popen(["zstd", "-q", "-3", "-c"], stdin=subprocess.PIPE, stdout=out)
    with tarfile.open(fileobj=z.stdin, mode="w|", format=tarfile.PAX_FORMAT) as t:
        info = tarfile.TarInfo("zeros.bin" if kind == "file" else ".savevault/junk.bin")
        info.size = size
        t.addfile(info, io.BufferedReader(Zeros(size), 1 << 20))
    z.stdin.close()
    sys.exit(z.wait())
