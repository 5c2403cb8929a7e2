# Builds hostile tars with Python's tarfile: python3 hostile-tar.py CASE OUTPUT [ARG]
# (Tests/SaveVaultTests/EndToEnd/CLIEndToEndTests.swift, HostileArchive).
import io, sys, tarfile, time
case, out = sys.argv[1], sys.argv[2]
arg = sys.argv[3] if len(sys.argv) > 3 else ""
def make(name, kind=tarfile.REGTYPE, data=b"", link=""):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mtime = int(time.time())
    info.mode = 0o644
    info.linkname = link
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    return info, (io.BytesIO(data) if kind == tarfile.REGTYPE else None)
with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as t:
    def add(*a, **k):
        info, data = make(*a, **k)
        t.addfile(info, data)
    add("save.dat", data=b"benign entry before the hostile one\n")
    if case == "dotDotEscape":
        add("../" + arg, data=b"escaped\n")
    elif case == "absolutePath":
        add(arg, data=b"absolute\n")
    elif case == "tmpDotDot":
        add("tmp/../../" + arg, data=b"escaped\n")
    elif case == "symlinkAbsoluteThenFile":
        add("link", kind=tarfile.SYMTYPE, link=arg)
        add("link/pwned", data=b"written through a symlink\n")
    elif case == "symlinkEscaping":
        add("escape", kind=tarfile.SYMTYPE, link="../../outside")
    elif case == "characterDevice":
        info, _ = make("dev-null", kind=tarfile.CHRTYPE)
        info.devmajor, info.devminor = 1, 3
        t.addfile(info)
    elif case == "fifo":
        add("pipe", kind=tarfile.FIFOTYPE)
    elif case == "fileThenFolder":
        add("dup.dat", data=b"first\n")
        add("dup.dat", kind=tarfile.DIRTYPE)
    elif case == "doubleSlashAbsolute":
        add("/" + arg, data=b"absolute\n")
    elif case == "hardlinkOutsideWithData":
        info, _ = make("hl", kind=tarfile.LNKTYPE, link=arg)
        data = b"overwritten through a hardlink\n"
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    elif case == "directoryThenSymlink":
        add("d", kind=tarfile.DIRTYPE)
        add("d", kind=tarfile.SYMTYPE, link=arg)
        add("d/pwned", data=b"written through a symlink\n")
    elif case == "symlinkChainEscaping":
        add("sub", kind=tarfile.DIRTYPE)
        add("sub/up", kind=tarfile.SYMTYPE, link="..")
        add("chain", kind=tarfile.SYMTYPE, link="sub/up/..")
        add("chain/pwned", data=b"written through a chain of symlinks\n")
    elif case == "emptySymlinkTarget":
        add("empty-link", kind=tarfile.SYMTYPE, link="")
    elif case == "hugeDeclaredSize":
        info, _ = make("huge.bin")
        info.size = 1 << 40
        t.fileobj.write(info.tobuf(tarfile.PAX_FORMAT, "utf-8", "surrogateescape"))
        t.fileobj.write(b"\0" * 4096)
    elif case == "tooDeep":
        add("/".join(["d"] * 5000) + "/f.sav", data=b"deep\n")
    elif case == "blockDevice":
        info, _ = make("sda", kind=tarfile.BLKTYPE)
        info.devmajor, info.devminor = 8, 0
        t.addfile(info)
    elif case == "hardlinkThroughSymlink":
        add("real.sav", data=b"inside\n")
        add("dirlink", kind=tarfile.SYMTYPE, link=".")
        add("hl", kind=tarfile.LNKTYPE, link="dirlink/real.sav")
    elif case in ("sparseMapOverlapping", "sparseMapPastEnd"):
        # GNU's pax sparse format 1.0: the map (count, then offset and size of each region)
        # leads the data; the regions here overlap, or lie past the declared size.
        regions = "0\n512\n256\n512\n" if case == "sparseMapOverlapping" else "0\n512\n2048\n512\n"
        body = ("2\n" + regions).encode().ljust(512, b"\0") + b"x" * 1024
        info, data = make("GNUSparseFile.0/sparse.img", data=body)
        info.pax_headers = {"GNU.sparse.major": "1", "GNU.sparse.minor": "0",
                            "GNU.sparse.name": "sparse.img", "GNU.sparse.realsize": "1024"}
        t.addfile(info, data)
    elif case == "tooManyEntries":
        for i in range(200000):
            add("e/%06d" % i)
    else:
        sys.exit("unknown case " + case)
