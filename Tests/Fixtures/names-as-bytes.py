# python3 names-as-bytes.py make|twins|change|dump|tarfile ...: file names handled as bytes
# (Tests/SaveVaultTests/EndToEnd/NonUTF8NameTests.swift).
import json, os, sys, tarfile
command, arg = sys.argv[1], os.fsencode(sys.argv[2])
if command == "make":
    folder = arg + b"/\x83Z\x81[\x83u"  # Shift-JIS for セーブ
    os.makedirs(folder)
    open(arg + b"/caf\xe9.sav", "wb").write(b"latin-1 name")
    open(folder + b"/slot1.dat", "wb").write(b"shift-jis folder")
    open(arg + b"/real \xf4\x8f\xbe\x80.sav", "wb").write(b"U+10FF80 in UTF-8")
    open(arg + b"/plain.txt", "wb").write(b"plain")
    os.symlink(b"caf\xe9.sav", arg + b"/current \xff")
elif command == "twins":
    # é as one code point (NFC, as Linux programs write it) and as e + U+0301 (NFD, as a
    # Mac writes it): two names on Linux.
    for name, content in ((b"\xc3\xa9", b"NFC"), (b"e\xcc\x81", b"NFD, longer")):
        os.makedirs(arg + b"/d" + name)
        open(arg + b"/" + name + b".sav", "wb").write(content)
        open(arg + b"/d" + name + b"/slot", "wb").write(content + b" in a folder")
    os.link(arg + b"/e\xcc\x81.sav", arg + b"/link-e\xcc\x81.sav")
elif command == "mac":
    # Names as a Mac writes them (NFD: e + U+0301), in a folder, a file and a link target.
    folder = arg + b"/Caf" + b"e\xcc\x81"
    os.makedirs(folder)
    open(folder + b"/r" + b"e\xcc\x81" + b"sum" + b"e\xcc\x81" + b".sav", "wb").write(b"mac")
    os.symlink(b"Caf" + b"e\xcc\x81", arg + b"/current")
elif command == "change":
    open(arg + b"/caf\xe9.sav", "wb").write(b"latin-1 name, changed")
elif command == "dump":
    tree = {}
    for folder, folders, files in os.walk(arg):
        relative = os.path.relpath(folder, arg)
        if relative == b".":
            relative = b""
            if b".savevault" in folders:
                folders.remove(b".savevault")
        for name in folders + files:
            full, path = os.path.join(folder, name), os.path.join(relative, name)
            if os.path.islink(full):
                tree[path.hex()] = "link " + os.readlink(full).hex()
            elif os.path.isdir(full):
                tree[path.hex()] = "folder"
            else:
                tree[path.hex()] = "file " + open(full, "rb").read().hex()
    print(json.dumps(tree, sort_keys=True))
elif command == "tarfile":
    with tarfile.open(arg, encoding="utf-8", errors="surrogateescape") as archive:
        archive.extractall(os.fsencode(sys.argv[3]).decode("utf-8", "surrogateescape"))
