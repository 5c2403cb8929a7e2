import Foundation
import Testing

@testable import SaveVault

// release/install.sh, run by dash from a release folder built like the real one: the script,
// VERSION, the built binary as bin/savevault, lib/, the manual page and the completions.

/// The manual page and completions, by their place in a release folder and under share/.
private let sharedFiles = [
  "man/man1/savevault.1", "bash-completion/completions/savevault", "zsh/site-functions/_savevault",
  "fish/vendor_completions.d/savevault.fish",
]

/// A release folder `savevault-VERSION-linux-x86_64` inside `parent`; returns its path. Its
/// runs of the binary wait for a `ProgramGate` slot unless `gated` is false.
private func makeRelease(in parent: String, version: String, gated: Bool = true) async throws -> String {
  let folder = parent + "/savevault-\(version)-linux-x86_64"
  try makeDirectory(folder + "/bin")
  try FileManager.default.copyItem(atPath: savevaultBinary, toPath: folder + "/bin/savevault")
  try writeFile(folder + "/lib/libplaceholder.so.1", "not a library\n")
  try writeFile(folder + "/VERSION", version + "\n")
  try FileManager.default.copyItem(
    atPath: repositoryRoot + "/release/install.sh", toPath: folder + "/install.sh")
  let generated = [
    ["manpage"], ["completions", "bash"], ["completions", "zsh"], ["completions", "fish"],
  ]
  for (file, arguments) in zip(sharedFiles, generated) {
    let result = try await runProgramAwaiting(
      savevaultBinary, arguments, environment: ["HOME": "/tmp", "PATH": "/usr/bin:/bin"], gated: gated)
    try #require(result.code == 0, "savevault \(arguments): \(result.stderr)")
    try writeFile(folder + "/share/" + file, result.stdout)
  }
  return folder
}

/// Runs `script` with dash and only HOME, PATH, LANG and `extra` in the environment (once a
/// `ProgramGate` slot is free, unless `gated` is false).
@discardableResult
private func runScript(
  _ script: String, _ arguments: [String] = [], home: String, path: String = "/usr/bin:/bin",
  environment extra: [String: String] = [:], gated: Bool = true
) async throws -> RunResult {
  let dash = try #require(which("dash"), "dash is not installed (scripts/install-deps.sh --test)")
  var environment = ["HOME": home, "PATH": path, "LANG": "C.UTF-8"]
  environment.merge(extra) { $1 }
  return try await runProgramAwaiting(dash, [script] + arguments, environment: environment, gated: gated)
}

/// Installs from `release` and expects success (`gated`: as `runScript`).
@discardableResult
private func install(
  _ release: String, home: String, environment: [String: String] = [:], gated: Bool = true,
  sourceLocation: SourceLocation = #_sourceLocation
) async throws -> RunResult {
  let result = try await runScript(
    release + "/install.sh", home: home, environment: environment, gated: gated)
  #expect(
    result.code == 0, "install.sh: exit \(result.code): \(result.stderr)", sourceLocation: sourceLocation)
  return result
}

/// The target of a symlink, nil when `path` is not one.
private func linkTarget(_ path: String) -> String? {
  try? FileManager.default.destinationOfSymbolicLink(atPath: path)
}

/// The entries of a folder, sorted.
private func entries(_ folder: String) -> [String] {
  ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
}

@Suite("release/install.sh: install, upgrade and uninstall from a release folder", .tags(.medium))
struct InstallScriptTests {
  @Test("a default install puts the program, a link, the page and the completions under ~/.local")
  func defaultInstall() async throws {
    let dir = TemporaryDirectory("install-default")
    let home = dir.sub("home")
    try makeDirectory(home)
    let release = try await makeRelease(in: dir.path, version: "0.1.0-3-gabc1234")
    let result = try await install(release, home: home)

    let versionFolder = home + "/.local/lib/savevault/0.1.0-3-gabc1234"
    #expect(linkTarget(home + "/.local/bin/savevault") == "../lib/savevault/0.1.0-3-gabc1234/bin/savevault")
    #expect(FileManager.default.isExecutableFile(atPath: versionFolder + "/bin/savevault"))
    #expect(text(versionFolder + "/VERSION") == "0.1.0-3-gabc1234\n")
    #expect(entries(versionFolder + "/lib") == ["libplaceholder.so.1"])
    #expect(entries(home + "/.local/lib/savevault") == ["0.1.0-3-gabc1234", "install.sh", "installed"])
    #expect(FileManager.default.isExecutableFile(atPath: home + "/.local/lib/savevault/install.sh"))
    for file in sharedFiles {
      #expect(
        FileManager.default.contents(atPath: home + "/.local/share/" + file)
          == FileManager.default.contents(atPath: release + "/share/" + file), "\(file)")
    }
    // Nothing goes onto the system's library path or next to the link.
    #expect(entries(home + "/.local/bin") == ["savevault"])
    #expect(entries(home + "/.local/lib") == ["savevault"])

    let version = try await runProgramAwaiting(
      home + "/.local/bin/savevault", ["--version"], environment: ["HOME": home])
    #expect(version.code == 0, "\(version.stderr)")
    #expect(version.stdout.hasPrefix("savevault "), "\(version.stdout)")
    #expect(result.stdout.contains("Steam launch options: \(home)/.local/bin/savevault wrap -- %command%\n"))
    #expect(result.stdout.contains("\(home)/.local/bin is not on PATH"))
    #expect(result.stdout.contains("\(home)/.local/share/zsh/site-functions on fpath"))
  }

  @Test(
    "XDG_DATA_HOME moves the page and completions, and a file left by make install is replaced by the link")
  func dataHomeAndEarlierFile() async throws {
    let dir = TemporaryDirectory("install-xdg")
    let home = dir.sub("home")
    try writeFile(home + "/.local/bin/savevault", "#!/bin/sh\necho old\n", mode: 0o755)
    let release = try await makeRelease(in: dir.path, version: "0.1.0")
    let result = try await install(
      release, home: home,
      environment: ["XDG_DATA_HOME": dir.sub("data"), "PATH": home + "/.local/bin:/usr/bin:/bin"])
    for file in sharedFiles {
      #expect(FileManager.default.fileExists(atPath: dir.sub("data/" + file)), "\(file)")
    }
    #expect(!FileManager.default.fileExists(atPath: home + "/.local/share"))
    #expect(linkTarget(home + "/.local/bin/savevault") == "../lib/savevault/0.1.0/bin/savevault")
    #expect(result.stdout.contains("Replaced the file \(home)/.local/bin/savevault"), "\(result.stdout)")
    #expect(!result.stdout.contains("is not on PATH"), "\(result.stdout)")
  }

  @Test("man finds the installed page through PATH and fish completes from ~/.local/share")
  func manAndFishFindTheFiles() async throws {
    let dir = TemporaryDirectory("install-found")
    let home = dir.sub("home")
    let empty = dir.sub("empty")
    try makeDirectory(home)
    try makeDirectory(empty)
    let release = try await makeRelease(in: dir.path, version: "0.1.0")
    let man = try #require(which("man"), "man is not installed (scripts/install-deps.sh --test)")
    let fish = try #require(which("fish"), "fish is not installed (scripts/install-deps.sh --test)")
    let withBin = ["HOME": home, "PATH": home + "/.local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"]
    let fishComplete = { () async throws -> RunResult in
      try await runProgramAwaiting(
        fish, ["-c", "complete -C 'savevault sta'"], environment: withBin, currentDirectory: empty)
    }
    // Before the install neither finds anything, so what follows is the install's doing.
    #expect(try await runProgramAwaiting(man, ["-w", "savevault"], environment: withBin).code != 0)
    #expect(!(try await fishComplete().stdout.contains("status")))

    try await install(release, home: home)
    let found = try await runProgramAwaiting(man, ["-w", "savevault"], environment: withBin)
    #expect(found.code == 0, "man -w: \(found.stderr)")
    #expect(found.stdout == home + "/.local/share/man/man1/savevault.1\n")
    let completed = try await fishComplete()
    #expect(completed.code == 0, "\(completed.stderr)")
    #expect(
      completed.stdout.split(separator: "\n").contains { $0 == "status" || $0.hasPrefix("status\t") },
      "\(completed.stdout)")
  }

  @Test("an upgrade while the installed savevault runs leaves it running and removes the old version")
  func upgradeWhileRunning() async throws {
    let dir = TemporaryDirectory("install-upgrade")
    let home = dir.sub("home")
    try makeDirectory(home)
    try await install(try await makeRelease(in: dir.sub("one"), version: "0.1.0"), home: home)

    // wrap runs the command after it started; the command waits until the upgrade is done.
    let ready = dir.sub("ready")
    let proceed = dir.sub("proceed")
    let wrap = try SpawnedProgram(
      home + "/.local/bin/savevault",
      [
        "wrap", "--", "/bin/sh", "-c",
        "touch '\(ready)'; i=0; while [ ! -e '\(proceed)' ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; [ -e '\(proceed)' ]",
      ], environment: ["HOME": home, "PATH": "/usr/bin:/bin"], stdout: .discarded, stderr: .discarded)
    defer { if wrap.isRunning { wrap.terminate() } }
    var waited = 0
    while !FileManager.default.fileExists(atPath: ready) && waited < 300 {
      try? await Task.sleep(for: .milliseconds(100))
      waited += 1
    }
    try #require(FileManager.default.fileExists(atPath: ready), "wrap did not start its command")
    #expect(
      Platform.resolvedPath("/proc/\(wrap.processIdentifier)/exe")
        == home + "/.local/lib/savevault/0.1.0/bin/savevault")

    // Ungated: the upgrade must be done while wrap's command waits (30 s at most).
    let result = try await install(
      try await makeRelease(in: dir.sub("two"), version: "0.2.0", gated: false), home: home, gated: false)
    #expect(result.stdout.contains("Removed the previous version 0.1.0"), "\(result.stdout)")
    #expect(wrap.isRunning)
    try writeFile(proceed, "")
    await wrap.waitAwaiting()
    #expect(wrap.terminationReason == .exit && wrap.terminationStatus == 0)

    #expect(linkTarget(home + "/.local/bin/savevault") == "../lib/savevault/0.2.0/bin/savevault")
    #expect(entries(home + "/.local/lib/savevault") == ["0.2.0", "install.sh", "installed"])
    #expect(text(home + "/.local/lib/savevault/0.2.0/VERSION") == "0.2.0\n")
    let version = try await runProgramAwaiting(
      home + "/.local/bin/savevault", ["--version"], environment: ["HOME": home])
    #expect(version.code == 0 && version.stdout.hasPrefix("savevault "), "\(version.stderr)")
  }

  @Test("installing the same version again replaces it and keeps one version folder")
  func reinstallSameVersion() async throws {
    let dir = TemporaryDirectory("install-again")
    let home = dir.sub("home")
    try makeDirectory(home)
    let release = try await makeRelease(in: dir.path, version: "0.1.0")
    try await install(release, home: home)
    try writeFile(release + "/lib/libplaceholder.so.1", "second copy\n")
    try await install(release, home: home)
    #expect(entries(home + "/.local/lib/savevault") == ["0.1.0", "install.sh", "installed"])
    #expect(text(home + "/.local/lib/savevault/0.1.0/lib/libplaceholder.so.1") == "second copy\n")
    #expect(linkTarget(home + "/.local/bin/savevault") == "../lib/savevault/0.1.0/bin/savevault")
    let version = try await runProgramAwaiting(
      home + "/.local/bin/savevault", ["--version"], environment: ["HOME": home])
    #expect(version.code == 0 && version.stdout.hasPrefix("savevault "), "\(version.stderr)")
  }

  @Test("uninstall from the installed copy leaves HOME as before, with the player's files kept")
  func uninstallRestoresHome() async throws {
    let dir = TemporaryDirectory("install-uninstall")
    let home = dir.sub("home")
    try writeFile(home + "/.local/bin/other-tool", "#!/bin/sh\n", mode: 0o755)
    try writeFile(home + "/.profile", "# mine\n")
    let before = tree(home)
    try await install(try await makeRelease(in: dir.sub("one"), version: "0.1.0"), home: home)
    try await install(try await makeRelease(in: dir.sub("two"), version: "0.2.0"), home: home)
    let player = [
      ".config/savevault/config.json": #"{"games": {}}"#, ".local/share/savevault/device-id": "deck\n",
      ".local/state/savevault/log": "line\n", ".cache/savevault/manifest.yaml": "x: 1\n",
    ]
    for (file, content) in player { try writeFile(home + "/" + file, content) }
    // The download is gone: the installed copy uninstalls.
    try FileManager.default.removeItem(atPath: dir.sub("one"))
    try FileManager.default.removeItem(atPath: dir.sub("two"))

    let result = try await runScript(home + "/.local/lib/savevault/install.sh", ["--uninstall"], home: home)
    #expect(result.code == 0, "--uninstall: \(result.stderr)")
    var after = tree(home)
    for (file, content) in player {
      #expect(text(home + "/" + file) == content, "\(file)")
      // The player's files and the folders made for them; every other entry must be as before.
      var path = file
      while !path.isEmpty && before[path] == nil {
        after[path] = nil
        path = (path as NSString).deletingLastPathComponent
      }
    }
    #expect(after == before)
  }

  @Test("a file changed since the install is left and named by uninstall")
  func uninstallKeepsChangedFile() async throws {
    let dir = TemporaryDirectory("install-changed")
    let home = dir.sub("home")
    try makeDirectory(home)
    try await install(try await makeRelease(in: dir.path, version: "0.1.0"), home: home)
    let page = home + "/.local/share/man/man1/savevault.1"
    try writeFile(page, ".TH MINE 1\n")
    let result = try await runScript(home + "/.local/lib/savevault/install.sh", ["--uninstall"], home: home)
    #expect(result.code == 0, "--uninstall: \(result.stderr)")
    #expect(text(page) == ".TH MINE 1\n")
    #expect(result.stdout.contains("Left \(page)"), "\(result.stdout)")
    #expect(!FileManager.default.fileExists(atPath: home + "/.local/bin/savevault"))
    #expect(!FileManager.default.fileExists(atPath: home + "/.local/lib"))
    #expect(!FileManager.default.fileExists(atPath: home + "/.local/share/zsh"))
  }

  @Test("PREFIX installs everything under it, and uninstall from the release folder with it cleans up")
  func prefixInstall() async throws {
    let dir = TemporaryDirectory("install-prefix")
    let home = dir.sub("home")
    try makeDirectory(home)
    let prefix = dir.sub("opt/savevault")
    let release = try await makeRelease(in: dir.path, version: "0.1.0")
    let result = try await install(
      release, home: home, environment: ["PREFIX": prefix, "XDG_DATA_HOME": dir.sub("data")])
    #expect(linkTarget(prefix + "/bin/savevault") == "../lib/savevault/0.1.0/bin/savevault")
    #expect(FileManager.default.isExecutableFile(atPath: prefix + "/lib/savevault/0.1.0/bin/savevault"))
    for file in sharedFiles {
      #expect(FileManager.default.fileExists(atPath: prefix + "/share/" + file), "\(file)")
    }
    #expect(entries(home).isEmpty)
    #expect(!FileManager.default.fileExists(atPath: dir.sub("data")))
    #expect(result.stdout.contains("Steam launch options: \(prefix)/bin/savevault wrap -- %command%\n"))

    let removed = try await runScript(
      release + "/install.sh", ["--uninstall"], home: home, environment: ["PREFIX": prefix])
    #expect(removed.code == 0, "--uninstall: \(removed.stderr)")
    #expect(entries(dir.sub("opt")).isEmpty, "\(tree(dir.sub("opt")).keys.sorted())")
    #expect(entries(home).isEmpty)
  }

  @Test(
    "an unknown option exits 2; no bin/savevault beside the script or an unwritable PREFIX exits 1, creating nothing"
  )
  func badUsage() async throws {
    let dir = TemporaryDirectory("install-usage")
    let home = dir.sub("home")
    try makeDirectory(home)
    let release = try await makeRelease(in: dir.path, version: "0.1.0")
    let unknown = try await runScript(release + "/install.sh", ["--prefix=/usr"], home: home)
    #expect(unknown.code == 2)
    #expect(unknown.stderr.contains("unknown option: --prefix=/usr"), "\(unknown.stderr)")

    let help = try await runScript(release + "/install.sh", ["--help"], home: home)
    #expect(help.code == 0 && help.stdout.contains("--uninstall") && help.stdout.contains("PREFIX="))

    try makeDirectory(dir.sub("alone"))
    try FileManager.default.copyItem(atPath: release + "/install.sh", toPath: dir.sub("alone/install.sh"))
    let alone = try await runScript(dir.sub("alone/install.sh"), home: home)
    #expect(alone.code == 1)
    #expect(alone.stderr.contains("no bin/savevault"), "\(alone.stderr)")
    #expect(entries(home).isEmpty)

    // Nothing can be made in /proc, even as root.
    let unwritable = try await runScript(
      release + "/install.sh", home: home, environment: ["PREFIX": "/proc/savevault-prefix"])
    #expect(unwritable.code == 1)
    #expect(unwritable.stderr.contains("cannot create /proc/savevault-prefix"), "\(unwritable.stderr)")
    #expect(entries(home).isEmpty)
  }

  @Test("busybox sh with only busybox's commands installs, upgrades and uninstalls")
  func busybox() async throws {
    let dir = TemporaryDirectory("install-busybox")
    let home = dir.sub("home")
    try writeFile(home + "/.local/bin/other-tool", "#!/bin/sh\n", mode: 0o755)
    let before = tree(home)
    let busybox = try #require(which("busybox"), "busybox is not installed (scripts/install-deps.sh --test)")
    // A PATH of busybox's applets alone, so no GNU tool stands in for a missing one.
    let tools = dir.sub("tools")
    try makeDirectory(tools)
    let list = try await runProgramAwaiting(busybox, ["--list"])
    for applet in list.stdout.split(separator: "\n") {
      try FileManager.default.createSymbolicLink(atPath: tools + "/" + applet, withDestinationPath: busybox)
    }
    let environment = ["HOME": home, "PATH": tools, "LANG": "C.UTF-8"]
    for version in ["0.1.0", "0.2.0"] {
      let release = try await makeRelease(in: dir.sub(version), version: version)
      let result = try await runProgramAwaiting(
        busybox, ["sh", release + "/install.sh"], environment: environment)
      #expect(result.code == 0 && result.stderr.isEmpty, "install.sh \(version): \(result.stderr)")
    }
    #expect(linkTarget(home + "/.local/bin/savevault") == "../lib/savevault/0.2.0/bin/savevault")
    #expect(entries(home + "/.local/lib/savevault") == ["0.2.0", "install.sh", "installed"])
    let version = try await runProgramAwaiting(
      home + "/.local/bin/savevault", ["--version"], environment: ["HOME": home])
    #expect(version.code == 0 && version.stdout.hasPrefix("savevault "), "\(version.stderr)")
    let removed = try await runProgramAwaiting(
      busybox, ["sh", home + "/.local/lib/savevault/install.sh", "--uninstall"], environment: environment)
    #expect(removed.code == 0 && removed.stderr.isEmpty, "--uninstall: \(removed.stderr)")
    #expect(tree(home) == before)
  }

  @Test("a failure part-way removes the folders and temporary files it made")
  func failureLeavesNothing() async throws {
    let dir = TemporaryDirectory("install-failure")
    let home = dir.sub("home")
    try writeFile(home + "/.local/bin/other-tool", "#!/bin/sh\n", mode: 0o755)
    // The data folder is a file, so creating the completions' folders fails after lib/ and bin/.
    try writeFile(home + "/not-a-folder", "")
    let before = tree(home)
    let release = try await makeRelease(in: dir.path, version: "0.1.0")
    let result = try await runScript(
      release + "/install.sh", home: home, environment: ["XDG_DATA_HOME": home + "/not-a-folder"])
    #expect(result.code == 1)
    #expect(result.stderr.contains("not-a-folder"), "\(result.stderr)")
    #expect(tree(home) == before)
  }
}

@Suite("release/install.sh: one install at a time", .tags(.medium))
struct InstallLockTests {
  @Test(
    "an install while another holds the lock refuses and changes nothing; a killed run's lock is taken over")
  func lock() async throws {
    let dir = TemporaryDirectory("install-lock")
    let home = dir.sub("home")
    try makeDirectory(home)
    let release = try await makeRelease(in: dir.path, version: "0.1.0")
    let lock = home + "/.local/lib/savevault/.lock"

    // A live owner: this test process.
    try makeDirectory(lock)
    try writeFile(lock + "/pid", "\(getpid())\n")
    let refused = try await runScript(release + "/install.sh", home: home)
    #expect(refused.code == 1, "exit \(refused.code): \(refused.stdout)")
    #expect(refused.stderr.contains("another install.sh"), "\(refused.stderr)")
    #expect(linkTarget(home + "/.local/bin/savevault") == nil)
    #expect(entries(home + "/.local/lib/savevault") == [".lock"])

    // A dead owner: a process that has exited.
    let gone = try await runProgramAwaiting("/bin/sh", ["-c", "echo $$"]).stdout.trimmingCharacters(
      in: .whitespacesAndNewlines)
    try writeFile(lock + "/pid", gone + "\n")
    let taken = try await install(release, home: home)
    #expect(taken.code == 0, "exit \(taken.code): \(taken.stderr)")
    #expect(linkTarget(home + "/.local/bin/savevault") == "../lib/savevault/0.1.0/bin/savevault")
    #expect(entries(home + "/.local/lib/savevault") == ["0.1.0", "install.sh", "installed"])
  }
}
