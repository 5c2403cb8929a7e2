"""Lists a tar archive as Python's tarfile reads it, for the corpus tests.

`python3 tarfile-list.py ARCHIVE` prints one JSON object: {"ok": true, "files": {name: size}}
with every regular file's size (the last entry of a name wins, as extraction does; names as
tarfile gives them, with leading "./" and "/" removed; names that are not UTF-8 are left
out), or {"ok": false, "error": text} when
tarfile refuses the archive (any compression tarfile detects by content is read).
"""

import json
import sys
import tarfile


def main(path):
    files = {}
    try:
        with tarfile.open(path) as archive:
            for member in archive:
                name = member.name
                while name.startswith("./") or name.startswith("/"):
                    name = name[2:] if name.startswith("./") else name[1:]
                try:
                    name.encode("utf-8")
                except UnicodeEncodeError:  # not UTF-8: JSON cannot carry it
                    continue
                if member.isreg():
                    files[name] = member.size
                else:
                    files.pop(name, None)
    except Exception as error:  # every refusal is an answer here
        print(json.dumps({"ok": False, "error": f"{type(error).__name__}: {error}"}))
        return
    print(json.dumps({"ok": True, "files": files}))


main(sys.argv[1])
