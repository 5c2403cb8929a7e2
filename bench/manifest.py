#!/usr/bin/env python3
"""Times the save-location manifest with the release binary on a synthetic manifest of the
published one's size (about 17 MB, 50,000 entries, its shapes: files with tags and when,
launch, installDir, registry, ids, aliases, id-only entries).

Rows: `manifest status` with SAVEVAULT_MANIFEST pointing at it and no index (the first run:
the whole YAML parsed and the index written), then with the index there (a later run: the
index opened and checked, no YAML read); a lookup by Steam app id and by title in a later
command (`scan` in a home with one installed Steam game and one game folder of a config
root, the index there), as that command's time minus the same command's with a one-game
manifest (what the full-size index adds); `scan --everywhere` over the whole manifest in a
home with a few Proton prefixes (one holding the save of a game that is not installed), a
Wine prefix and a native save, the index there. Medians of --runs rounds, peak memory from
`/usr/bin/time -v` when it is there. Run after `swift build -c release`.

Usage: manifest.py [--runs N] [--entries N] [--bin PATH]
"""
import argparse
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def quoted(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def manifest(entries, seed=7):
    """A manifest shaped like the published one, as its emitter writes it."""
    rng = random.Random(seed)
    words = ["Dark", "Legend", "Star", "Quest", "Tales", "of", "the", "Lost", "Kingdom", "Racing", "Simulator",
             "Zero", "Hero", "Night", "Ultimate", "Edition", "II", "III", "Remastered", "VR"]
    out = ["---\n"]
    titles = []
    for number in range(entries):
        title = " ".join(rng.choice(words) for _ in range(rng.randint(1, 4))) + f" {number}"
        titles.append(title)
        out.append(f"{quoted(title) if rng.random() < 0.3 else title}:\n")
        kind = rng.random()
        if kind < 0.05 and number > 0:
            out.append(f"  alias: {titles[rng.randrange(number)]}\n")
            continue
        if kind < 0.45:
            out.append(f"  steam:\n    id: {200000 + number}\n")
            continue
        out.append("  files:\n")
        for index in range(rng.randint(1, 5)):
            place = rng.choice(["<winDocuments>/My Games", "<winAppData>", "<xdgData>", "<base>", "<root>/userdata/<storeUserId>/" + str(200000 + number) + "/remote"])
            out.append(f"    {quoted(place + '/' + title.replace(' ', '') + f'/save{index}/*.sav')}:\n")
            out.append("      tags:\n        - save\n      when:\n        - os: windows\n")
            if rng.random() < 0.4:
                out.append("          store: steam\n")
        if rng.random() < 0.3:
            out.append(f"  id:\n    steamExtra:\n      - {900000 + number}\n")
        out.append(f"  installDir:\n    {quoted(title)}: {{}}\n")
        if rng.random() < 0.5:
            out.append(f"  launch:\n    \"<base>/{title.replace(' ', '')}.exe\":\n      - when:\n"
                       "          - bit: 64\n            os: windows\n            store: steam\n")
        if rng.random() < 0.2:
            out.append(f"  registry:\n    \"HKEY_CURRENT_USER/Software/{title}\":\n      tags:\n        - config\n")
        if rng.random() < 0.3:
            out.append(f"  gog:\n    id: {1000000000 + number}\n")
        out.append(f"  steam:\n    id: {200000 + number}\n")
    return "".join(out)


def entries(text):
    """(title, steam id, files) of each entry of a manifest `manifest` wrote."""
    found = []
    for block in ("\n" + text).split("\n")[1:]:
        if block and not block.startswith(" ") and block != "---":
            found.append([block[:-1].strip('"'), None, []])
        elif block.startswith("    \"") and block.endswith(":") and found:
            found[-1][2].append(block.strip()[1:-2])
        elif block.startswith("    id: ") and found:
            found[-1][1] = block.split()[-1]
    return found


def write(path, text="save"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def fake_home(home, text):
    """A Steam library with one installed game and a few Proton prefixes (one of them of a game
    that is not installed, holding its save), a config root with one game folder and a Wine
    prefix, and a native save of another game that is not installed."""
    games = entries(text)
    steam = os.path.join(home, ".local/share/Steam")
    write(os.path.join(steam, "steamapps/libraryfolders.vdf"),
          f'"libraryfolders"\n{{\n\t"0"\n\t{{\n\t\t"path"\t\t"{steam}"\n\t}}\n}}\n')
    with_files = [g for g in games if g[1] and g[2]]
    installed, left, native = with_files[10], None, None
    for game in with_files[20:]:
        if left is None and game[2][0].startswith("<winDocuments>/My Games/"):
            left = game
        elif native is None and game[2][0].startswith("<xdgData>/"):
            native = game
    write(os.path.join(steam, f"steamapps/appmanifest_{installed[1]}.acf"),
          f'"AppState"\n{{\n\t"appid"\t\t"{installed[1]}"\n\t"name"\t\t"{installed[0]}"\n'
          f'\t"installdir"\t\t"{installed[0]}"\n}}\n')
    os.makedirs(os.path.join(steam, "steamapps/common", installed[0]), exist_ok=True)
    for game in [installed] + with_files[30:40]:
        users = os.path.join(steam, f"steamapps/compatdata/{game[1]}/pfx/drive_c/users/steamuser")
        os.makedirs(os.path.join(users, "Documents/My Games"), exist_ok=True)
        os.makedirs(os.path.join(users, "AppData/Roaming"), exist_ok=True)
    users = os.path.join(steam, f"steamapps/compatdata/{left[1]}/pfx/drive_c/users/steamuser")
    write(os.path.join(users, "Documents", left[2][0][len("<winDocuments>/"):].replace("*", "slot")))
    write(os.path.join(home, ".local/share", native[2][0][len("<xdgData>/"):].replace("*", "slot")))
    root = os.path.join(home, "games")
    os.makedirs(os.path.join(root, with_files[50][0]), exist_ok=True)
    wine = os.path.join(home, "wine")
    os.makedirs(os.path.join(wine, "drive_c/users/player/Documents/My Games"), exist_ok=True)
    write(os.path.join(home, ".config/savevault/config.json"),
          '{"roots": ["%s"], "winePrefixes": ["%s"]}' % (root, wine))
    return left[0], native[0]


def timed(cmd, env):
    started = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def peak_mib(cmd, env):
    gnu_time = "/usr/bin/time"
    if not os.path.exists(gnu_time):
        return None
    result = subprocess.run([gnu_time, "-v"] + cmd, env=env, check=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    for line in result.stderr.splitlines():
        if "Maximum resident set size" in line:
            return int(line.split()[-1]) / 1024
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--entries", type=int, default=50000)
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build/release/savevault"))
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="savevault-bench-manifest-")
    try:
        path = os.path.join(work, "manifest.yaml")
        with open(path, "w") as f:
            f.write(manifest(args.entries))
        home = os.path.join(work, "home")
        os.makedirs(home)
        env = {"HOME": home, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SAVEVAULT_MANIFEST": path}
        index = os.path.join(home, ".cache/savevault/manifest.index")
        cmd = [args.bin, "manifest", "status"]
        cold, warm = [], []
        for _ in range(args.runs):
            if os.path.exists(index):
                os.remove(index)
            cold.append(timed(cmd, env))
            warm.append(timed(cmd, env))
        size = os.path.getsize(path)
        print(f"synthetic manifest: {size / 1e6:.1f} MB, {args.entries} entries; index {os.path.getsize(index) / 1e6:.1f} MB")
        print("| what is measured | median | min |")
        print("| --- | --- | --- |")
        print(f"| first run: parse + index (`manifest status`, no index) | {statistics.median(cold) * 1000:.0f} ms | {min(cold) * 1000:.0f} ms |")
        print(f"| later run: index only (`manifest status`, index there) | {statistics.median(warm) * 1000:.1f} ms | {min(warm) * 1000:.1f} ms |")
        left, native = fake_home(home, open(path).read())
        tiny = os.path.join(work, "tiny.yaml")
        with open(tiny, "w") as f:
            f.write("---\nOne Game:\n  steam:\n    id: 1\n")
        tiny_env = dict(env, SAVEVAULT_MANIFEST=tiny, XDG_CACHE_HOME=os.path.join(work, "tiny-cache"))
        scan = [args.bin, "scan", "--json"]
        everywhere = [args.bin, "scan", "--everywhere", "--json"]
        for command, environment in [(scan, env), (scan, tiny_env)]:
            subprocess.run(command, env=environment, check=True, stdout=subprocess.DEVNULL)  # the index made
        found = subprocess.run(everywhere, env=env, check=True, capture_output=True, text=True).stdout
        assert left in found and native in found, "scan --everywhere missed the saves left behind"
        full, small, anywhere = [], [], []
        for _ in range(args.runs):
            full.append(timed(scan, env))
            small.append(timed(scan, tiny_env))
            anywhere.append(timed(everywhere, env))
        print(f"| later command with lookups (`scan`, full-size index) | {statistics.median(full) * 1000:.1f} ms | {min(full) * 1000:.1f} ms |")
        print(f"| the same with a one-game manifest | {statistics.median(small) * 1000:.1f} ms | {min(small) * 1000:.1f} ms |")
        print(f"| lookup's share (full minus one-game) | {(statistics.median(full) - statistics.median(small)) * 1000:.1f} ms | |")
        print(f"| `scan --everywhere`, whole manifest (index there) | {statistics.median(anywhere) * 1000:.0f} ms | {min(anywhere) * 1000:.0f} ms |")
        os.remove(index)
        cold_peak = peak_mib(cmd, env)
        warm_peak = peak_mib(cmd, env)
        if cold_peak is not None:
            print(f"| peak memory, first / later run | {cold_peak:.0f} / {warm_peak:.0f} MiB | |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
