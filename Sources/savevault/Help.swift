import SaveVault

/// The help texts, one per command, and the version.
enum Help {
  static let version = "savevault 0.1.0"

  static let target = """
    Target:
      --game NAME          a game from the config file (its save directory and container)
      --save-dir DIR       a save directory; the game name defaults to DIR's last component
      --container URL      a folder (a path or file:///path), s3://bucket/prefix, or
                           rclone:REMOTE:path (default: $SAVEVAULT_CONTAINER, the config
                           file, or $XDG_DATA_HOME/savevault/container)
      --endpoint URL       the S3 endpoint for s3:// (MinIO, Garage, R2, B2; default
                           $AWS_ENDPOINT_URL, the config file, or AWS)
      --allow-insecure-http  allow plain http:// to an S3 endpoint on another machine
    """

  /// The line that says what a command does with no --game and no --save-dir, after `target`.
  static func noTarget(_ meaning: String) -> String {
    "  (none)               " + meaning
  }

  /// What `restore`, `list`, `verify` and `prune` do with no target.
  static let targetRequired = noTarget("a usage error (exit 2): name the game with --game or --save-dir")

  /// The conflict policies of --on-conflict; `unresolved` is what happens when a conflict is
  /// left as it is (nobody to ask, or `fail`), and `skipped` what `skip` leads to.
  static func policies(unresolved: String, skipped: String) -> String {
    """
      --on-conflict POLICY   what to do when both sides changed since they last agreed:
          prompt    ask (the default): a terminal prompt, or a zenity or kdialog dialog
                    when there is no terminal but a desktop; with nobody to ask (or
                    at end of input), \(unresolved)
          upload    upload the local save (the cloud's archive stays in the container)
          restore   restore the cloud's latest (the local save is kept)
          newer     the larger millisecond timestamp wins (local newest change vs archive time)
          skip      change nothing, \(skipped)
          fail      change nothing, \(unresolved)
    """
  }

  static let global = """
    Global options:
      --config FILE        config file (default: $SAVEVAULT_CONFIG or
                           $XDG_CONFIG_HOME/savevault/config.json)
      -q, --quiet          print only errors
      -v, --verbose        explain each decision on stderr
      -h, --help           show help
          --version        show the version
    """

  static let main = """
    savevault: cloud saves for any game, with the player in charge.

    Usage: savevault COMMAND [TARGET] [OPTIONS]

    Commands:
      backup    pack the save directory into a packsave-*.tar archive and upload it
      status    compare the local save, the container and the last agreement
      restore   restore an archive over the save directory (the current save is kept)
      sync      upload or restore, whichever way the save changed; ask when both changed
      wrap      sync, run the game, back up after it (for launch scripts)
      list      list a game's archives, newest first
      verify    check archives in the container, every byte, without touching the save
      prune     delete old archives, never the newest of any device
      add       add a game to the config file (its save directory, container, Steam app id)
      games     list the config file's games with their state
      remove    forget a game in the config file (deletes nothing)
      doctor    check the config, save directories, containers, credentials and tools
      completions  print a bash, zsh or fish completion script
      manpage   print the manual page savevault(1)

    \(target)
      (none)               backup, status, sync and doctor: every game of the config file;
                           wrap: the game of $SteamAppId; the others need a target

    \(global)

    Exit codes: 0 done, 1 runtime error, 2 usage error, 3 conflict unresolved,
    4 container unavailable, 5 archive refused, 6 busy (another savevault holds the game).

    Run 'savevault COMMAND --help' for a command's options.
    """

  static let commands: [String: String] = [
    "doctor": """
    Usage: savevault doctor [TARGET] [--json]

    Checks what the other commands rely on and says how to fix what is wrong: the config
    file (it parses; each game's fields; unknown keys), each save directory (exists, every
    file and folder in it readable), each container (reachable, and writable: a probe object is written and
    removed, never under a packsave- name), S3 credentials (present, accepted) and this
    machine's clock against the S3 server's, rclone for rclone: containers, and zenity or
    kdialog in a desktop session. With no TARGET, every game of the config file.

    Each check is ok, warning or problem. Exits 0 when there is no problem (warnings
    allowed), else with the code of the first problem: 2 settings (config file,
    credentials missing, a tool missing), 1 a save directory, 4 a container (unreachable,
    not writable, credentials refused, clock too far off).

      --json     print the checks as a JSON list

    \(target)
    \(noTarget("every game of the config file (with none, the container a --save-dir"))
                           command would use)
    """,
    "completions": """
    Usage: savevault completions bash|zsh|fish

    Prints a completion script for the shell: commands, their options, the games of the
    config file as game names, folders as save directories. 'make install' installs all
    three; by hand, for example:

      savevault completions bash > ~/.local/share/bash-completion/completions/savevault
      savevault completions zsh > ~/.zfunc/_savevault      (with ~/.zfunc in $fpath)
      savevault completions fish > ~/.config/fish/completions/savevault.fish
    """,
    "manpage": """
    Usage: savevault manpage

    Prints the manual page savevault(1) in roff, made from these help texts
    (man -l <(savevault manpage) shows it).
    """,
    "backup": """
    Usage: savevault backup [TARGET] [--force] [--compress KIND] [--json]

    Packs the save directory into packsave-<UTC time>-<device>.tar (.tar.zst with zstd)
    and uploads it to the container, then records the agreement on this device. When the
    save has not changed since this device's last backup or restore, nothing is uploaded.
    When the cloud changed too (another device's save this device never agreed on), it
    asks whether to upload over it, as sync does (no terminal and no dialog: exit 3,
    nothing uploaded); the archive gone over stays in the container. A missing or empty
    save directory is refused.

      --force    upload without asking: even when unchanged, over a conflict, and a missing
                 or empty save directory (to make a deletion the cloud's latest)
    \(compress)
      --json     print the result as JSON (with no TARGET: a list, one object per game)

    \(target)
    \(noTarget("every game of the config file, one after the other"))
    """,
    "status": """
    Usage: savevault status [TARGET] [--json]

    Shows the local save (newest modification in ms, files, bytes), the container's latest
    archive (time in ms, device, count) and the state: in-sync, local-changed,
    cloud-changed, conflict, cloud-empty or local-missing. Changes nothing, except to finish
    or undo what a killed savevault left (listed under "repaired") when no other savevault
    is working on the game. With no TARGET, one line per game of the config file: game,
    state, local newest change, cloud latest and the device that made it.

      --json     print one JSON object (with no TARGET: a list, one object per game)

    \(target)
    \(noTarget("every game of the config file, one line each"))
    """,
    "restore": """
    Usage: savevault restore [TARGET] (--latest | --archive NAME | --undo) [--json]

    Verifies the archive, extracts it into a staging folder beside the save directory,
    keeps the current save as a pre-restore copy under
    $XDG_DATA_HOME/savevault/pre-restore/<game>/ (the folder itself, moved there, when it is
    on the same filesystem; else packed into a .tar), then swaps the folders. A corrupt or
    hostile archive is refused (exit 5) before anything in the save directory changes.
    Symlinks leading outside the save and FIFOs, which no archive holds, stay in the save.
    When the current save cannot be kept first (no room for its copy), or the save
    directory is a mount point, nothing is restored (exit 1).

    An --archive older than the cloud's latest is a rollback: the restored save is your
    choice, so the next sync (or backup) uploads it as the latest; the newer archive stays.

    --undo puts back the save as it was just before the last restore (by restore, sync or
    wrap), from its pre-restore copy, the same verified way; the save it replaces is kept
    as a new pre-restore copy, so a second --undo puts that back again. This device's
    agreement with the cloud returns to what it was before the restore, so status says
    what it said then (a conflict stays a conflict, local-changed stays local-changed);
    when the restore had brought a newer cloud save over an unchanged local one, the
    agreement is forgotten instead, so the next sync asks instead of restoring it again.
    With nothing to put back, exits 1.

      --latest         restore the newest archive
      --archive NAME   restore the named archive (see 'savevault list')
      --undo           put back the save the last restore replaced
      --json           print the result as JSON

    \(target)
    \(targetRequired)
    """,
    "sync": """
    Usage: savevault sync [TARGET] [--on-conflict POLICY] [--compress KIND] [--json]

    Compares the local save, the container and this device's last agreement, and acts:
    in-sync does nothing; local-changed and cloud-empty upload; cloud-changed and
    local-missing restore (the local save is kept as a pre-restore copy), except that a save
    deleted since the last agreement is asked about like a conflict. When both sides
    changed since they last agreed, the player chooses, or POLICY decides. A conflict or
    deletion left unanswered (or skipped) stays one, whatever the save does meanwhile, until
    it is settled. No choice uploads a missing or empty save (backup --force does), and no
    policy uploads a save that came back after it was seen missing (a drive mounted again
    over a new game's save): only the player, at the question.

    \(policies(unresolved: "exit 3", skipped: "exit 0"))
      --json                 print the state found and the action taken as JSON (with no
                             TARGET: a list, one object per game)
    \(compress)

    \(target)
    \(noTarget("every game of the config file, one after the other"))
    """,
    "wrap": """
    Usage: savevault wrap [TARGET] [--on-conflict POLICY] [--compress KIND] [--json] -- COMMAND [ARG...]

    For launch scripts (Steam: savevault wrap --game celeste -- %command%). With no TARGET,
    the game is the one of the config file whose steamAppId is $SteamAppId (or
    $STEAM_COMPAT_APP_ID), so 'savevault wrap -- %command%' serves every Steam game; with
    no match the game runs without syncing, after a warning.

    Syncs like 'savevault sync', runs COMMAND with the same stdin, stdout, stderr and
    environment (forwarding SIGINT, SIGTERM and SIGHUP), then uploads what the session
    changed and exits with the game's exit code. It never blocks play: if the container is
    unreachable, a conflict cannot be settled, or another savevault is busy, the game starts
    anyway with a warning; a save that cannot be uploaded after the game is kept on this
    device and uploaded at the next run. wrap's own messages go to stderr, since stdout
    belongs to the game.

    \(policies(unresolved: "start the game unsynced", skipped: "start the game"))
      --json                 wrap's messages as JSON, one object per line on stderr: each
                             sync's phase (before, after), state, action and archive, and
                             each warning as {"warning": "..."}
    \(compress)

    \(target)
    \(noTarget("the game whose steamAppId is $SteamAppId (see above); with no match,"))
                           the game runs without syncing
    """,
    "verify": """
    Usage: savevault verify [TARGET] [--latest | --archive NAME | --all] [--json]

    Reads archives from the container and runs every check a restore runs: the tar
    structure, the entry rules (no paths outside, no devices, limits) and, for SaveVault's
    archives, every byte against the manifest. Nothing is written anywhere. Exits 5 if any
    archive fails, naming it.

      --latest         the newest archive (the default)
      --archive NAME   one archive
      --all            every archive of the game
      --json           print the results as JSON

    \(target)
    \(targetRequired)
    """,
    "list": """
    Usage: savevault list [TARGET] [--pre-restore] [--json]

    Lists the game's archives in the container, newest first: name, size, time (local
    time and ms since the epoch) and the device that made it. packsave- files whose names
    SaveVault did not make are listed apart: never the latest, never pruned, restorable by
    name.

      --pre-restore  list this device's pre-restore copies instead (the saves restores
                     replaced), newest first, marking the one an undo puts back
      --json         print the list as JSON

    \(target)
    \(targetRequired)
    """,
    "add": """
    Usage: savevault add NAME --save-dir DIR [--container URL] [--steam-app-id N] [--replace] [--json]

    Adds the game NAME to the config file (creating the file if needed; every other game
    and setting is kept), so that --game NAME is enough. NAME is the game's folder in the
    container: \(Target.gameNameRule). DIR is stored as an absolute path and
    need not exist yet. A name already in the config file is refused unless --replace, and so
    is a DIR that overlaps another game's save directory, holds the container or SaveVault's
    own folders, or is a mount point. Bad input exits 2 and writes nothing.

      --save-dir DIR       where the game keeps its saves
      --container URL      this game's container (default: the config file's, then
                           $SAVEVAULT_CONTAINER, then $XDG_DATA_HOME/savevault/container)
      --steam-app-id N     the game's Steam app id, for 'savevault wrap -- %command%'
      --replace            replace the game's entry if it is already there
      --json               print what was written as JSON
    """,
    "games": """
    Usage: savevault games [--json]

    Lists the games of the config file: name, state (as 'savevault status' finds it), save
    directory, container and Steam app id. A game whose container cannot be reached is
    listed as unavailable, with why; the others are still listed. As 'savevault status',
    it then exits with that game's code (4 for an unavailable container).

      --json     print a list, one object per game
    """,
    "remove": """
    Usage: savevault remove NAME [--json]

    Removes the game NAME from the config file and forgets this device's agreements about
    it, so that its folder and name are free for another game. No save is deleted: the save
    directory, the archives in the container and the pre-restore copies stay as they are,
    and 'savevault add' brings the game back (its next sync compares the save with the
    cloud by content). A game used with --save-dir alone is forgotten the same way. An
    unknown NAME exits 2.

      --json     print what was removed as JSON
    """,
    "prune": """
    Usage: savevault prune [TARGET] (--keep N | --keep-pre-restore N) [--json]

    Deletes archives older than the newest N, but never the newest archive of any device,
    and never the last one that holds a save while only empty ones would be kept.

      --keep N               how many of the newest archives to keep (at least 1)
      --keep-pre-restore N   also (or only) delete this device's pre-restore copies but the
                             newest N (at least 1) and the one an undo puts back
      --json                 print what was kept and deleted as JSON

    \(target)
    \(targetRequired)
    """,
  ]
}
