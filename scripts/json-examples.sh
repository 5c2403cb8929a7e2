#!/usr/bin/env bash
# Runs every command with --json in a fresh home and writes what each prints to OUT/NAME.json
# (OUT/wrap.jsonl: wrap's JSON lines on stderr). docs/json.md shows these outputs; the tests
# run this script and check that the document's examples have exactly the real fields.
#   bash scripts/json-examples.sh SAVEVAULT HOME OUT
# HOME must be an empty folder; the examples in docs/json.md were made with HOME=/home/deck.
set -euo pipefail
savevault=$1 home=$2 out=$3
export HOME=$home SAVEVAULT_DEVICE=steamdeck PATH=/usr/bin:/bin
unset SSL_CERT_FILE SSL_CERT_DIR SAVEVAULT_CONFIG SAVEVAULT_CONTAINER XDG_CONFIG_HOME XDG_DATA_HOME XDG_STATE_HOME DISPLAY WAYLAND_DISPLAY
sv() { "$savevault" "$@"; }
mkdir -p "$home/saves/celeste" "$home/saves/hollow-knight" "$home/.config/savevault" "$home/Dropbox/savevault" "$out"
printf 'chapter=3\ndeaths=412\n' > "$home/saves/celeste/slot1.sav"
printf 'vsync=1\n' > "$home/saves/celeste/settings.cfg"
printf 'geo=1200\n' > "$home/saves/hollow-knight/user1.dat"
cat > "$home/.config/savevault/config.json" <<JSON
{"device": "steamdeck", "container": "$home/Dropbox/savevault",
 "games": {"celeste": {"saveDir": "~/saves/celeste"}, "hollow-knight": {"saveDir": "~/saves/hollow-knight"}}}
JSON
sv backup --game celeste --json > "$out/backup.json"
sv status --game celeste --json > "$out/status.json"
sv status --json > "$out/status-all.json"
sv list --game celeste --json > "$out/list.json"
sv verify --game celeste --json > "$out/verify.json"
printf 'chapter=4\n' > "$home/saves/celeste/slot1.sav"
sv restore --game celeste --latest --json > "$out/restore.json"
sv restore --game celeste --undo --json > "$out/undo.json"
sv restore --game celeste --undo --json > /dev/null  # back to the restored save
sv list --game celeste --pre-restore --json > "$out/list-pre-restore.json"
sv sync --game hollow-knight --json > "$out/sync.json"
printf 'geo=1300\n' > "$home/saves/hollow-knight/user1.dat"
sv backup --json > "$out/backup-all.json"  # every game: one list
sv sync --json > "$out/sync-all.json"
# Another device (its own home) uploads while this one plays on: a conflict, settled by a policy.
mkdir -p "$home/pc/celeste"
printf 'chapter=5\n' > "$home/pc/celeste/slot1.sav"
HOME=$home/pc SAVEVAULT_DEVICE=pc sv backup --force --save-dir "$home/pc/celeste" --container "$home/Dropbox/savevault" > /dev/null
printf 'chapter=4, golden strawberry\n' > "$home/saves/celeste/slot1.sav"
sv sync --game celeste --on-conflict upload --json > "$out/sync-conflict.json"
sv prune --game celeste --keep 1 --keep-pre-restore 1 --json > "$out/prune.json"
sv wrap --game celeste --json -- sh -c 'echo "chapter=6" > "$HOME/saves/celeste/slot1.sav"' 2> "$out/wrap.jsonl"
sv wrap --game celeste --container "$home/unmounted-nas" --json -- true 2> "$out/wrap-offline.jsonl"
mkdir -p "$home/saves/hades"
sv add hades --save-dir "$home/saves/hades" --steam-app-id 1145360 --json > "$out/add.json"
sv games --json > "$out/games.json"
sv remove hades --json > "$out/remove.json"
sv doctor --json > "$out/doctor.json"
sv doctor --game celeste --container /run/media/deck/NAS/saves --json > "$out/doctor-problem.json" || true
# Discovery: a Steam library with Hades in its Proton prefix, and a manifest that knows it.
steam=$home/.local/share/Steam
mkdir -p "$steam/steamapps/common/Hades" "$steam/userdata/1111"
printf '"libraryfolders"\n{\n\t"0"\n\t{\n\t\t"path"\t\t"%s"\n\t}\n}\n' "$steam" > "$steam/steamapps/libraryfolders.vdf"
printf '"AppState"\n{\n\t"appid"\t\t"1145360"\n\t"name"\t\t"Hades"\n\t"installdir"\t\t"Hades"\n}\n' > "$steam/steamapps/appmanifest_1145360.acf"
hades=$steam/steamapps/compatdata/1145360/pfx/drive_c/users/steamuser/Documents/Saved\ Games/Hades
mkdir -p "$hades"
printf 'run=12\n' > "$hades/Profile1.sav"
printf -- '---\nHades:\n  files:\n    "<winDocuments>/Saved Games/Hades":\n      tags:\n        - save\n  installDir:\n    Hades: {}\n  steam:\n    id: 1145360\n' > "$home/manifest.yaml"
SAVEVAULT_MANIFEST=$home/manifest.yaml sv scan --json > "$out/scan.json"
SAVEVAULT_MANIFEST=$home/manifest.yaml sv add Hades --detect --json > "$out/add-detect.json"
