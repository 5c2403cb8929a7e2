# python3 tarfile-read-zstd.py ARCHIVE OUTDIR: Python's tarfile extracts a .tar.zst
# (Tests/SaveVaultTests/EndToEnd/CompressionTests.swift).
import subprocess, sys, tarfile
path, out = sys.argv[1], sys.argv[2]
try:
    import compression.zstd
    t = tarfile.open(path, "r:zst")
except ImportError:
    p = subprocess.Popen(["zstd", "-dc", path], stdout=subprocess.PIPE)
    t = tarfile.open(fileobj=p.stdout, mode="r|")
with t:
    if hasattr(tarfile, "data_filter"):
        t.extractall(out, filter="data")
    else:
        t.extractall(out)
