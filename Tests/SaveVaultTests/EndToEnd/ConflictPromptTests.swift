import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

// A real conflict between two devices, "pc" and "deck", sharing one folder container, settled
// through the built `savevault` binary: by the player at a real pseudo-terminal (util-linux
// `script`), by the player in a real zenity dialog under Xvfb (buttons pressed with xdotool),
// by nobody (exit 3, nothing changed), and by each `--on-conflict` policy.

@Suite("ConflictPrompt: the player's answer to a real conflict is carried out", .tags(.large))
struct ConflictPromptTests {
  // MARK: - Terminal prompt

  /// "" is Enter alone: skip, the same safe default as the dialog's.
  @Test(
    "terminal prompt through a real pseudo-terminal shows both sides; u, r, s and Enter (skip) are carried out",
    arguments: ["u", "r", "s", ""])
  func terminalPrompt(_ answer: String) async throws {
    let world = try await Devices.inConflict("tty-\(answer)")
    let before = try await world.snapshotBefore()

    let session = try world.on(.deck).startAtTerminal(["sync"] + world.deckSyncArguments)
    // Answer only once the question is on the screen, as a player would.
    let asked = await session.waitForOutputAwaiting(containing: "[u]", timeout: 30)
    session.type(answer + "\n")
    session.closeInput()
    let result = try #require(
      await session.waitAwaiting(timeout: 30), "sync at a terminal did not finish: \(session.output)")
    let screen = result.stdout
    #expect(asked, "no prompt appeared on the terminal: \(screen)")

    // The prompt shows both sides, each with its time in ms, the cloud archive and its device.
    #expect(
      screen.contains(String(before.localMs)), "local ms \(before.localMs) not in the prompt: \(screen)")
    #expect(
      screen.contains(String(before.cloudMs)), "cloud ms \(before.cloudMs) not in the prompt: \(screen)")
    #expect(screen.contains(before.cloudArchive), "cloud archive not in the prompt: \(screen)")
    var rest = screen.replacingOccurrences(of: before.cloudArchive, with: "")
    rest = rest.replacingOccurrences(of: world.tmp.path, with: "")
    #expect(
      rest.range(of: #"\bpc\b"#, options: .regularExpression) != nil, "device 'pc' not named: \(screen)")

    #expect(result.code == 0, "exit \(result.code); terminal: \(screen)")
    try await world.expectOutcome(Self.choice(forAnswer: answer), before: before, log: screen)
  }

  // MARK: - No terminal, no desktop

  @Test("no terminal and no desktop: exit 3, says how to resolve, nothing changed")
  func nobodyToAsk() async throws {
    let world = try await Devices.inConflict("nobody")
    let before = try await world.snapshotBefore()
    let result = try await world.run(.deck, ["sync"] + world.deckSyncArguments)
    #expect(result.code == 3, "exit \(result.code), stderr: \(result.stderr)")
    #expect(result.stderr.contains("--on-conflict"), "stderr does not say how to resolve: \(result.stderr)")
    try world.expectNothingChanged(before: before, log: result.stdout + result.stderr)
  }

  /// A desktop variable that names no running desktop (a stale DISPLAY exported into a launch
  /// script, a WAYLAND_DISPLAY without its socket) means there is nobody to ask either.
  /// zenity then fails to open the display and exits 1, as for its Skip button: that must not
  /// be read as the player's choice.
  @Test(
    "a desktop variable naming no reachable desktop is nobody to ask: exit 3, nothing changed",
    arguments: ["DISPLAY", "WAYLAND_DISPLAY"])
  func unreachableDesktop(_ variable: String) async throws {
    try #require(which("zenity") != nil, "zenity is needed: scripts/install-deps.sh --test")
    let world = try await Devices.inConflict("nodesktop-\(variable)")
    let before = try await world.snapshotBefore()
    var environment = world.environment(.deck)
    environment["NO_AT_BRIDGE"] = "1"
    if variable == "DISPLAY" {
      // Above the dialog tests' 90...150, so that none of their servers can be this one.
      let free = (160...199).first {
        !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\($0)")
          && !FileManager.default.fileExists(atPath: "/tmp/.X\($0)-lock")
      }
      environment["DISPLAY"] = ":\(free ?? 199)"
    } else {
      environment["XDG_RUNTIME_DIR"] = world.tmp.path
      environment["WAYLAND_DISPLAY"] = "no-such-wayland"
    }
    let sync = try Spawned(
      savevaultBinary, ["sync"] + world.deckSyncArguments, environment: environment, interactive: false)
    let result = try #require(
      await sync.waitAwaiting(timeout: 30), "sync did not finish: \(sync.output) \(sync.errorOutput)")
    #expect(result.code == 3, "exit \(result.code); stdout: \(result.stdout) stderr: \(result.stderr)")
    #expect(!result.stdout.contains("chosen by player"), "nobody was asked: \(result.stdout)")
    try world.expectNothingChanged(before: before, log: result.stdout + result.stderr)
  }

  // MARK: - Policies

  @Test(
    "--on-conflict with no terminal does what it says",
    arguments: ["upload", "restore", "newer", "skip", "fail"])
  func policy(_ policy: String) async throws {
    let world = try await Devices.inConflict("policy-\(policy)")
    let before = try await world.snapshotBefore()
    let status = try await world.status(.deck)
    let localMs = try #require(integer(lookup(status, "local.modifiedMs")), "\(status)")
    let cloudMs = try #require(integer(lookup(status, "cloud.modifiedMs")), "\(status)")

    let result = try await world.run(.deck, ["sync"] + world.deckSyncArguments + ["--on-conflict", policy])
    let log = "stdout: \(result.stdout)\nstderr: \(result.stderr)"
    switch policy {
    case "fail":
      #expect(result.code == 3, "exit \(result.code); \(log)")
      try world.expectNothingChanged(before: before, log: log)
    case "newer":
      let expected: Choice = localMs > cloudMs ? .upload : localMs < cloudMs ? .restore : .skip
      #expect(result.code == 0, "exit \(result.code); \(log)")
      try await world.expectOutcome(
        expected, before: before, log: "local \(localMs) ms, cloud \(cloudMs) ms; \(log)")
    default:
      #expect(result.code == 0, "exit \(result.code); \(log)")
      try await world.expectOutcome(try #require(Choice(rawValue: policy)), before: before, log: log)
    }
  }

  @Test("an invalid --on-conflict policy is a usage error (exit 2), nothing changed")
  func invalidPolicy() async throws {
    let world = try await Devices.inConflict("policy-bad")
    let before = try await world.snapshotBefore()
    let result = try await world.run(
      .deck, ["sync"] + world.deckSyncArguments + ["--on-conflict", "sometimes"])
    #expect(result.code == 2, "exit \(result.code), stderr: \(result.stderr)")
    try world.expectNothingChanged(before: before, log: result.stdout + result.stderr)
  }
}

// MARK: - Desktop dialog

extension ConflictPromptTests {
  /// The dialog's buttons, and the keys that press each: the keyboard focus starts on the
  /// default button, Skip, between Restore cloud (left) and Upload local (right); Left and
  /// Right move it, and Return presses the focused button.
  enum DialogButton: String, CaseIterable, CustomStringConvertible {
    case upload, restore, skip

    var keys: [String] {
      switch self {
      case .upload: ["Right", "Return"]
      case .skip: ["Return"]
      case .restore: ["Left", "Return"]
      }
    }
    var choice: Choice { Choice(rawValue: rawValue) ?? .skip }
    var description: String { rawValue }
  }

  /// One at a time: each starts its own X server, and a dialog needs the CPU to show up soon.
  @Suite("ConflictPrompt: the desktop dialog (zenity under Xvfb, driven by xdotool)", .serialized)
  struct Dialog {
    @Test(
      "with no terminal but a desktop, a zenity dialog asks; each button is carried out",
      arguments: DialogButton.allCases)
    func desktopDialog(_ button: DialogButton) async throws {
      try await press(button.keys, expecting: button.choice, label: "dialog-\(button)")
    }

    /// Enter, the Steam Deck's A button, on a dialog nobody moved the focus in: the terminal's
    /// default (skip, nothing changed), never an upload over the cloud's save.
    @Test("Enter on the dialog as it opens is Skip, the terminal prompt's default: nothing changed")
    func enterIsSkip() async throws {
      try await press(["Return"], expecting: .skip, label: "dialog-enter")
    }

    /// Escape closes the dialog: Skip too.
    @Test("Escape on the dialog is Skip: nothing changed")
    func escapeIsSkip() async throws {
      try await press(["Escape"], expecting: .skip, label: "dialog-escape")
    }

    /// Starts `sync` in a conflict with a desktop and no terminal, presses `keys` in its dialog
    /// and checks that `expected` was carried out.
    func press(_ keys: [String], expecting expected: Choice, label: String) async throws {
      let xdotool = try #require(which("xdotool"), "xdotool is needed: scripts/install-deps.sh --test")
      try #require(which("zenity") != nil, "zenity is needed: scripts/install-deps.sh --test")
      let world = try await Devices.inConflict(label)
      let before = try await world.snapshotBefore()

      let server = try VirtualDisplay.start()
      defer { server.stop() }
      var environment = world.environment(.deck)
      environment["DISPLAY"] = server.display
      environment["NO_AT_BRIDGE"] = "1"  // no accessibility bus to wait for
      var xEnvironment = ["DISPLAY": server.display, "PATH": environment["PATH"] ?? "/usr/bin:/bin"]
      xEnvironment["HOME"] = world.tmp.path

      let sync = try Spawned(
        savevaultBinary, ["sync"] + world.deckSyncArguments, environment: environment,
        interactive: false)
      defer { sync.killNow() }

      // Wait for the dialog to be mapped.
      func visibleDialog() async throws -> String? {
        let found = try await runProgramAwaiting(
          xdotool, ["search", "--onlyvisible", "--name", "SaveVault"], environment: xEnvironment)
        return found.stdout.split(separator: "\n").first.map(String.init)
      }
      func dialogShowing() async throws -> Bool { try await visibleDialog() != nil }
      var window: String?
      let deadline = Date().addingTimeInterval(60)
      while window == nil && Date() < deadline && sync.isRunning {
        window = try await visibleDialog()
        if window == nil { try? await Task.sleep(for: .milliseconds(100)) }
      }
      let dialog = try #require(
        window, "no SaveVault dialog appeared; sync: \(sync.output) \(sync.errorOutput)")
      let name = try await runProgramAwaiting(xdotool, ["getwindowname", dialog], environment: xEnvironment)
      #expect(name.stdout.contains("game"), "the dialog's title does not name the game: \(name.stdout)")
      await Self.screenshot(environment: xEnvironment)

      // Focus the dialog and press the button with the keyboard. Should the keys arrive before
      // the dialog listens (it is still there 15 s later), press again, at most three times.
      var xdotoolLog = ""
      for _ in 0..<3 {
        let focus = try await runProgramAwaiting(
          xdotool, ["windowfocus", "--sync", dialog], environment: xEnvironment)
        try? await Task.sleep(for: .milliseconds(150))
        let press = try await runProgramAwaiting(
          xdotool, ["key", "--delay", "60"] + keys, environment: xEnvironment)
        xdotoolLog += "windowfocus: \(focus.code) \(focus.stderr); key: \(press.code) \(press.stderr)\n"
        let gone = Date().addingTimeInterval(15)
        while try await dialogShowing() && Date() < gone { try? await Task.sleep(for: .milliseconds(50)) }
        if try await !dialogShowing() { break }
      }

      let result = try #require(
        await sync.waitAwaiting(timeout: 30),
        "sync did not finish after pressing \(keys): \(sync.output) \(sync.errorOutput) \(xdotoolLog)")
      let log = "keys \(keys); stdout: \(result.stdout)\nstderr: \(result.stderr)"
      #expect(result.code == 0, "exit \(result.code); \(log)")
      try await world.expectOutcome(expected, before: before, log: log)
    }

    /// Saves the screen to /tmp/savevault-dialog.png for a person to look at; not an assertion.
    static func screenshot(environment: [String: String]) async {
      let target = "/tmp/savevault-dialog.png"
      let partial = target + ".partial.png"
      if let magick = which("import") {
        _ = try? await runProgramAwaiting(magick, ["-window", "root", partial], environment: environment)
      } else if let xwd = which("xwd"), which("convert") != nil {
        _ = try? await runProgramAwaiting(
          "/bin/sh", ["-c", "'\(xwd)' -root -silent | convert xwd:- 'png:\(partial)'"],
          environment: environment)
      }
      if FileManager.default.fileExists(atPath: partial) { _ = rename(partial, target) }
    }
  }

  /// A private X server (Xvfb) on a free display number from 90 to 150.
  final class VirtualDisplay {
    let process: SpawnedProgram
    let number: Int
    var display: String { ":\(number)" }
    var socket: String { "/tmp/.X11-unix/X\(number)" }
    var lockFile: String { "/tmp/.X\(number)-lock" }

    private init(process: SpawnedProgram, number: Int) {
      self.process = process
      self.number = number
    }

    private static let picking = NSLock()

    static func start() throws -> VirtualDisplay {
      let xvfb = try #require(which("Xvfb"), "Xvfb is needed: scripts/install-deps.sh --test")
      picking.lock()
      defer { picking.unlock() }
      for number in 90...150 {
        if FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)")
          || FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock")
        {
          continue
        }
        let process = try SpawnedProgram(
          xvfb, [":\(number)", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
          environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"],
          stdout: .discarded, stderr: .discarded)
        let server = VirtualDisplay(process: process, number: number)
        let deadline = Date().addingTimeInterval(15)
        while process.isRunning && !(server.isUp && server.acceptsClients) && Date() < deadline {
          usleep(20_000)
        }
        if process.isRunning && server.isUp && server.acceptsClients { return server }
        // Another server took this number first, or it never came up: try the next one.
        server.stop()
      }
      throw XServerUnavailable()
    }

    struct XServerUnavailable: Error, CustomStringConvertible {
      var description: String { "no Xvfb could be started on displays :90 to :150" }
    }

    /// Kills the server. SIGKILL, because after a dialog Xvfb was seen to take seconds over a
    /// SIGTERM (more than 5 s inside the test runner); a killed server leaves its lock file and
    /// socket behind, so they are removed here when the lock names this server.
    func stop() {
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
      process.waitUntilExit()
      if ownsLock {
        unlink(socket)
        unlink(lockFile)
      }
    }

    /// Whether the display's lock file names this server (and not another one that got there first).
    private var ownsLock: Bool {
      let holder = (try? String(contentsOfFile: lockFile, encoding: .utf8))
        .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
      return holder == process.processIdentifier
    }

    /// Whether an X client can connect (the socket can exist before the server answers).
    private var acceptsClients: Bool {
      guard let xdotool = which("xdotool") else { return true }
      let probe = try? runProgram(
        xdotool, ["getdisplaygeometry"],
        environment: [
          "DISPLAY": display, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ])
      return probe?.code == 0
    }

    /// Whether this server is listening: its lock and its socket are there.
    private var isUp: Bool { ownsLock && FileManager.default.fileExists(atPath: socket) }

    deinit { stop() }
  }
}

// MARK: - Two devices in conflict

extension ConflictPromptTests {
  enum Device: String {
    case pc, deck
  }

  enum Choice: String {
    case upload, restore, skip
  }

  static func choice(forAnswer answer: String) -> Choice {
    switch answer {
    case "u": .upload
    case "r": .restore
    default: .skip
    }
  }

  /// What the deck and the container held before the conflict was settled.
  struct Before {
    var archives: [String]
    var deckSave: [String: TreeEntry]
    var localMs: Int64
    var cloudMs: Int64
    var cloudArchive: String
  }

  /// Two devices sharing `<tmp>/cloud`, each with its own HOME and save directory.
  struct Devices {
    let sandbox: Sandbox

    var tmp: TemporaryDirectory { sandbox.dir }
    var cloud: String { sandbox.cloud }
    var gameFolder: String { cloud + "/game" }
    func home(_ device: Device) -> String { tmp.sub(device.rawValue) }
    func save(_ device: Device) -> String { tmp.sub("\(device.rawValue)-save/game") }
    var deckSlot: String { save(.deck) + "/slot.sav" }
    var preRestoreFolder: String { home(.deck) + "/.local/share/savevault/pre-restore/game" }
    var deckSyncArguments: [String] { ["--save-dir", save(.deck), "--container", cloud] }

    /// `device` in the sandbox, with its HOME.
    func on(_ device: Device) -> Sandbox { sandbox.device(device.rawValue, home: home(device)) }

    func environment(_ device: Device) -> [String: String] { on(device).environment }

    @discardableResult
    func run(_ device: Device, _ arguments: [String]) async throws -> RunResult {
      try await on(device).runAwaiting(arguments)
    }

    func sync(_ device: Device) async throws {
      let result = try await run(device, ["sync", "--save-dir", save(device), "--container", cloud])
      try #require(result.code == 0, "\(device) sync: exit \(result.code), stderr: \(result.stderr)")
    }

    /// pc uploads v1, deck restores it, pc uploads v2, deck writes its own v2: a conflict on deck.
    static func inConflict(_ label: String) async throws -> Devices {
      let world = Devices(sandbox: try Sandbox("conflict-\(label)"))
      try writeFile(world.save(.pc) + "/slot.sav", "pc v1")
      try await world.sync(.pc)
      try await world.sync(.deck)
      try #require(world.deckContent == "pc v1", "deck did not restore pc v1")
      try writeFile(world.save(.pc) + "/slot.sav", "pc v2")
      try await world.sync(.pc)
      try writeFile(world.deckSlot, "deck v2")
      let state = try await world.status(.deck)["state"] as? String
      try #require(state == "conflict", "deck is not in conflict but \(state ?? "nil")")
      return world
    }

    var deckContent: String? {
      FileManager.default.contents(atPath: deckSlot).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The `packsave-*.tar` names in the container's game folder, sorted.
    var archives: [String] { tarArchiveNames(in: gameFolder) }

    var preRestoreCopies: [String] {
      preRestoreCopyPaths(preRestoreFolder)
    }

    func status(_ device: Device) async throws -> [String: Any] {
      let result = try await run(
        device, ["status", "--save-dir", save(device), "--container", cloud, "--json"])
      try #require(result.code == 0, "status: exit \(result.code), stderr: \(result.stderr)")
      return try jsonObject(result.stdout)
    }

    /// The deck's view before anything is settled: status for the local side, list for the cloud.
    func snapshotBefore() async throws -> Before {
      let status = try await status(.deck)
      let localMs = try #require(
        integer(lookup(status, "local.modifiedMs")), "\(status)")
      let listed = try await run(.deck, ["list", "--save-dir", save(.deck), "--container", cloud, "--json"])
      try #require(listed.code == 0, "list: exit \(listed.code), stderr: \(listed.stderr)")
      let list = try jsonObject(listed.stdout)
      let entries = try #require(list["archives"] as? [[String: Any]], "no archives in \(listed.stdout)")
      let newest = try #require(
        entries.max {
          (integer($0["modifiedMs"]) ?? 0)
            < (integer($1["modifiedMs"]) ?? 0)
        })
      let cloudMs = try #require(integer(newest["modifiedMs"]), "\(newest)")
      let cloudArchive = try #require(newest["name"] as? String, "\(newest)")
      try #require(cloudArchive.hasSuffix("-pc.tar"), "the newest archive is not pc's: \(cloudArchive)")
      try #require(preRestoreCopies.isEmpty, "pre-restore copies before the conflict: \(preRestoreCopies)")
      return Before(
        archives: archives, deckSave: tree(save(.deck)), localMs: localMs, cloudMs: cloudMs,
        cloudArchive: cloudArchive)
    }

    /// `tar -xOf archive slot.sav`.
    func slot(in archive: String) async throws -> String? {
      try await fileInPreRestoreCopy(archive, "slot.sav")
    }

    func expectNothingChanged(before: Before, log: String) throws {
      #expect(deckContent == "deck v2", "deck's save changed: \(deckContent ?? "missing"); \(log)")
      #expect(tree(save(.deck)) == before.deckSave, "deck's save directory changed; \(log)")
      #expect(archives == before.archives, "the container changed: \(archives); \(log)")
      #expect(preRestoreCopies.isEmpty, "a pre-restore copy appeared: \(preRestoreCopies); \(log)")
    }

    /// Checks that `choice` was carried out on deck and that the losing side was kept.
    func expectOutcome(_ choice: Choice, before: Before, log: String) async throws {
      switch choice {
      case .skip:
        try expectNothingChanged(before: before, log: log)
      case .upload:
        let after = archives
        for name in before.archives {
          #expect(after.contains(name), "\(name) is gone from the container; \(log)")
        }
        let added = after.filter { !before.archives.contains($0) }
        #expect(added.count == 1, "expected one new archive, got \(added); \(log)")
        let uploaded = try #require(added.first, "nothing was uploaded; \(log)")
        #expect(uploaded.hasSuffix("-deck.tar"), "the new archive is not deck's: \(uploaded)")
        #expect(
          try await slot(in: gameFolder + "/" + uploaded) == "deck v2", "the upload does not hold deck v2")
        #expect(
          deckContent == "deck v2", "deck's save changed on upload: \(deckContent ?? "missing"); \(log)")
        #expect(tree(save(.deck)) == before.deckSave, "deck's save directory changed on upload; \(log)")
        #expect(preRestoreCopies.isEmpty, "an upload made a pre-restore copy; \(log)")
        #expect(try await status(.deck)["state"] as? String == "in-sync", "deck not in sync after the upload")
      case .restore:
        #expect(deckContent == "pc v2", "deck's save after restore: \(deckContent ?? "missing"); \(log)")
        #expect(archives == before.archives, "a restore changed the container: \(archives); \(log)")
        let copies = preRestoreCopies
        #expect(!copies.isEmpty, "no pre-restore copy in \(preRestoreFolder); \(log)")
        var kept: [String?] = []
        for copy in copies { kept.append(try await slot(in: copy)) }
        #expect(kept.contains("deck v2"), "no pre-restore copy holds deck v2: \(kept); \(log)")
        #expect(
          try await status(.deck)["state"] as? String == "in-sync", "deck not in sync after the restore")
      }
    }
  }
}

// MARK: - A program running in the background

extension ConflictPromptTests {
  /// A child whose stdout and stderr are read as they come; with `interactive`, its stdin is
  /// a socket the test types into (Harness/Spawner.swift).
  typealias Spawned = SpawnedProgram
}

// MARK: - Helpers, inside the suite so that they never clash with other test files
