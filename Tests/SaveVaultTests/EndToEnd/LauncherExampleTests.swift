import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

// The launcher examples in examples/launchers/, run as a launcher would run them: through
// /bin/sh, with the built `savevault` on PATH, a private HOME and config, a folder container
// in a temporary directory, no terminal (stdin is /dev/null) and no desktop.
@Suite("LauncherExample: the launch scripts in examples/launchers", .tags(.medium))
struct LauncherExampleTests {
  @Test("Steam: the launch-options line syncs, runs the game, uploads, and exits with the game's code")
  func steamLaunchOptions() async throws {
    let world = try World("steam")
    try world.writeSave("level1\n")
    let line = try Self.steamLine()
    #expect(line.contains("savevault wrap --game celeste -- %command%"))

    let game = #"/bin/sh -c 'echo "the game says hi"; echo level2 >> "$SAVE/slot.sav"; exit 3'"#
    let result = try await world.run(
      "/bin/sh", ["-c", line.replacingOccurrences(of: "%command%", with: game)])
    #expect(result.code == 3, "wrap must exit with the game's code; stderr: \(result.stderr)")
    #expect(result.stdout == "the game says hi\n", "the game's stdout must pass through unchanged")
    #expect(try await world.newestArchiveFile("slot.sav") == "level1\nlevel2\n")
    #expect(try await world.state() == "in-sync")
  }

  @Test("Steam: the commented --on-conflict newer variant runs too")
  func steamNewerVariant() async throws {
    let world = try World("steam-newer")
    try world.writeSave("level1\n")
    let text = try String(contentsOfFile: Self.examples + "/steam-launch-options.txt", encoding: .utf8)
    let variant = try #require(
      text.split(separator: "\n").map(String.init).first {
        $0.hasPrefix("#") && $0.contains("savevault wrap") && $0.contains("--on-conflict newer")
      }, "the file shows the --on-conflict newer variant in a comment")
    let line = String(variant.drop { $0 == "#" || $0 == " " })
    #expect(line.hasPrefix("savevault wrap --game celeste --on-conflict newer -- %command%"))

    let game = #"/bin/sh -c 'echo level2 >> "$SAVE/slot.sav"'"#
    let result = try await world.run(
      "/bin/sh", ["-c", line.replacingOccurrences(of: "%command%", with: game)])
    #expect(result.code == 0, "stderr: \(result.stderr)")
    #expect(result.stdout == "")
    #expect(try await world.newestArchiveFile("slot.sav") == "level1\nlevel2\n")
  }

  @Test("Lutris: pre-launch uploads a first save, post-exit uploads what the session changed")
  func lutrisRoundTrip() async throws {
    let world = try World("lutris")
    try world.writeSave("level1\n")

    let pre = try await world.run(Self.examples + "/lutris-pre-launch.sh", [])
    #expect(pre.code == 0, "stderr: \(pre.stderr)")
    #expect(try await world.state() == "in-sync")
    #expect(world.archives().count == 1)
    #expect(try await world.newestArchiveFile("slot.sav") == "level1\n")

    // The game plays and saves.
    let game = try await world.run("/bin/sh", ["-c", #"echo level2 >> "$SAVE/slot.sav""#])
    #expect(game.code == 0)
    #expect(try await world.state() == "local-changed")

    let post = try await world.run(Self.examples + "/lutris-post-exit.sh", [])
    #expect(post.code == 0, "stderr: \(post.stderr)")
    #expect(world.archives().count == 2)
    #expect(try await world.newestArchiveFile("slot.sav") == "level1\nlevel2\n")
    #expect(try await world.state() == "in-sync")

    // The next launch finds everything agreed and uploads nothing.
    let again = try await world.run(Self.examples + "/lutris-pre-launch.sh", [])
    #expect(again.code == 0, "stderr: \(again.stderr)")
    #expect(world.archives().count == 2)
  }

  @Test("Lutris: pre-launch exits 0 with a warning when the container is unavailable")
  func lutrisPreLaunchContainerMissing() async throws {
    let world = try World("lutris-offline", createContainer: false)
    try world.writeSave("level1\n")
    let pre = try await world.run(Self.examples + "/lutris-pre-launch.sh", [])
    #expect(pre.code == 0, "the pre-launch script must never block the game; stderr: \(pre.stderr)")
    #expect(pre.stderr.contains("warning"))
    #expect(try world.readSave() == "level1\n")
  }

  @Test("Lutris: a conflict nobody can answer: pre-launch exits 0, post-exit changes nothing")
  func lutrisConflictUnresolved() async throws {
    let world = try World("lutris-conflict")
    // Another device uploads its own save first.
    let otherSave = world.tmp.sub("other/home/.local/share/Celeste/Saves")
    try writeFile(otherSave + "/slot.sav", "other device\n")
    let other = try await world.run(
      "savevault", ["backup", "--game", "celeste"],
      environment: ["HOME": world.tmp.sub("other/home"), "SAVEVAULT_DEVICE": "otherbox"])
    #expect(other.code == 0, "stderr: \(other.stderr)")
    #expect(world.archives().count == 1)
    // This device has a different save and no agreement: a conflict.
    try world.writeSave("this device\n")
    #expect(try await world.state() == "conflict")

    let pre = try await world.run(Self.examples + "/lutris-pre-launch.sh", [])
    #expect(pre.code == 0, "the pre-launch script must never block the game; stderr: \(pre.stderr)")
    #expect(pre.stderr.contains("warning"))
    #expect(try world.readSave() == "this device\n")
    #expect(world.archives().count == 1)

    let post = try await world.run(Self.examples + "/lutris-post-exit.sh", [])
    #expect(post.code == 3, "an unresolved conflict is reported, never guessed; stderr: \(post.stderr)")
    #expect(try world.readSave() == "this device\n")
    #expect(world.archives().count == 1)
    #expect(try await world.newestArchiveFile("slot.sav") == "other device\n")
  }

  @Test("Heroic: the wrapper runs the game with its arguments intact and uploads the edit")
  func heroicWrapper() async throws {
    let world = try World("heroic")
    try world.writeSave("level1\n")
    let arguments = ["two words", "  leading and trailing  ", "*", "", "quote\"s and 'single'"]
    // The game writes each of its arguments on a line of its own, and saves.
    let game = #"printf '%s\n' "$@" > "$SAVE/args.txt"; echo level2 >> "$SAVE/slot.sav"; exit 0"#
    let result = try await world.run(
      Self.examples + "/heroic-wrapper.sh", ["/bin/sh", "-c", game, "game"] + arguments)
    #expect(result.code == 0, "stderr: \(result.stderr)")
    let expected = arguments.map { $0 + "\n" }.joined()
    #expect(try String(contentsOfFile: world.saveDir + "/args.txt", encoding: .utf8) == expected)
    #expect(try await world.newestArchiveFile("slot.sav") == "level1\nlevel2\n")
    #expect(try await world.newestArchiveFile("args.txt") == expected)
    #expect(try await world.state() == "in-sync")
  }

  @Test("Heroic: the wrapper passes a failing game's exit code through")
  func heroicWrapperExitCode() async throws {
    let world = try World("heroic-exit")
    try world.writeSave("level1\n")
    let result = try await world.run(
      Self.examples + "/heroic-wrapper.sh", ["/bin/sh", "-c", #"echo crashed >> "$SAVE/slot.sav"; exit 42"#])
    #expect(result.code == 42, "stderr: \(result.stderr)")
    #expect(try await world.newestArchiveFile("slot.sav") == "level1\ncrashed\n")
  }

  @Test("play.sh: runs GAME's command, passes its exit code through and uploads the save")
  func playScript() async throws {
    let world = try World("play")
    try world.writeSave("level1\n")
    let result = try await world.run(
      Self.examples + "/play.sh",
      ["celeste", "sh", "-c", #"echo "played $1"; echo level2 >> "$SAVE/slot.sav"; exit 7"#, "game", "a b"],
      environment: ["SAVEVAULT_GAME": nil])
    #expect(result.code == 7, "stderr: \(result.stderr)")
    #expect(result.stdout == "played a b\n")
    #expect(try await world.newestArchiveFile("slot.sav") == "level1\nlevel2\n")
    #expect(try await world.state() == "in-sync")
  }

  @Test("play.sh: without a game and a command it prints its usage and exits 2")
  func playScriptUsage() async throws {
    let world = try World("play-usage")
    for arguments in [[], ["celeste"]] {
      let result = try await world.run(Self.examples + "/play.sh", arguments)
      #expect(result.code == 2)
      #expect(result.stderr.contains("usage"))
    }
    #expect(world.archives().isEmpty)
  }

  @Test("Every script is executable, has a shebang and passes its shell's syntax check")
  func syntax() async throws {
    let scripts = ["lutris-pre-launch.sh", "lutris-post-exit.sh", "heroic-wrapper.sh", "play.sh"]
    let found = try FileManager.default.contentsOfDirectory(atPath: Self.examples).filter {
      $0.hasSuffix(".sh")
    }
    #expect(Set(found) == Set(scripts))
    for script in scripts {
      let path = Self.examples + "/" + script
      #expect(FileManager.default.isExecutableFile(atPath: path), "\(script) is not executable")
      let text = try String(contentsOfFile: path, encoding: .utf8)
      let shebang = String(text.prefix { $0 != "\n" })
      #expect(shebang.hasPrefix("#!"), "\(script) has no shebang")
      let shell = shebang.contains("bash") ? try #require(which("bash")) : "/bin/sh"
      let check = try await runProgramAwaiting(shell, ["-n", path])
      #expect(check.code == 0, "\(script): \(check.stderr)")
    }
  }

  @Test("README: names every example, and its config example is a valid config file")
  func readme() throws {
    let text = try String(contentsOfFile: Self.examples + "/README.md", encoding: .utf8)
    for name in [
      "steam-launch-options.txt", "lutris-pre-launch.sh", "lutris-post-exit.sh", "heroic-wrapper.sh",
      "play.sh",
    ] {
      #expect(text.contains(name), "README.md does not mention \(name)")
    }
    let json = try #require(
      text.components(separatedBy: "```json\n").dropFirst().first?.components(separatedBy: "```").first)
    let config = try JSONDecoder().decode(ConfigFile.self, from: Data(json.utf8))
    #expect(config.games?["celeste"]?.saveDir == "~/.local/share/Celeste/Saves")
  }
}

// MARK: - Helpers, inside the suite so that they never clash with other test files

extension LauncherExampleTests {
  /// examples/launchers in this package.
  static let examples = repositoryRoot + "/examples/launchers"

  /// The one command line of steam-launch-options.txt (the line that is not a comment).
  static func steamLine() throws -> String {
    let text = try String(contentsOfFile: examples + "/steam-launch-options.txt", encoding: .utf8)
    let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    #expect(lines.count == 1, "steam-launch-options.txt must hold exactly one command line: \(lines)")
    return try #require(lines.first)
  }

  /// One test's world: HOME, XDG_CONFIG_HOME with a config naming celeste and a folder
  /// container, and an exact environment for the scripts.
  struct World {
    let sandbox: Sandbox
    var tmp: TemporaryDirectory { sandbox.dir }

    init(_ label: String, createContainer: Bool = true) throws {
      var sandbox = try Sandbox("launcher-\(label)", device: "testbox")
      if !createContainer { try FileManager.default.removeItem(atPath: sandbox.cloud) }
      let config: [String: Any] = [
        "container": sandbox.cloud,
        "games": ["celeste": ["saveDir": "~/.local/share/Celeste/Saves"]],
      ]
      try writeFile(
        sandbox.path("config/savevault/config.json"), try JSONSerialization.data(withJSONObject: config))
      let binaryDirectory = (savevaultBinary as NSString).deletingLastPathComponent
      sandbox.extra = [
        "XDG_CONFIG_HOME": sandbox.path("config"),
        "SAVEVAULT_GAME": "celeste",
        "SAVE": sandbox.home + "/.local/share/Celeste/Saves",
        "PATH": binaryDirectory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
      ]
      self.sandbox = sandbox
    }

    var home: String { sandbox.home }
    var saveDir: String { home + "/.local/share/Celeste/Saves" }
    var gameFolder: String { sandbox.cloud + "/celeste" }

    /// The sandbox's environment with `extra` over it (nil: the variable removed).
    func environment(_ extra: [String: String?]) -> [String: String] {
      var environment = sandbox.environment
      for (key, value) in extra { environment[key] = value }
      return environment
    }

    /// Runs `program` (a path, or `savevault` from PATH) with stdin /dev/null.
    @discardableResult
    func run(_ program: String, _ arguments: [String], environment extra: [String: String?] = [:])
      async throws
      -> RunResult
    {
      let executable = program == "savevault" ? savevaultBinary : program
      return try await runProgramAwaiting(
        executable, arguments, environment: environment(extra), currentDirectory: tmp.path)
    }

    func writeSave(_ content: String) throws { try writeFile(saveDir + "/slot.sav", content) }
    func readSave() throws -> String { try String(contentsOfFile: saveDir + "/slot.sav", encoding: .utf8) }

    /// The `packsave-*.tar` names in the container's game folder, sorted (oldest first).
    func archives() -> [String] { tarArchiveNames(in: gameFolder) }

    /// `member` of the newest archive, read by tar itself.
    func newestArchiveFile(_ member: String) async throws -> String {
      let newest = try #require(archives().last, "no archive in \(gameFolder)")
      let tar = try #require(which("tar"))
      let result = try await runProgramAwaiting(tar, ["-xOf", gameFolder + "/" + newest, member])
      try #require(result.code == 0, "tar cannot read \(member) from \(newest): \(result.stderr)")
      return result.stdout
    }

    /// `status --json`'s state.
    func state() async throws -> String {
      let result = try await run("savevault", ["status", "--game", "celeste", "--json"])
      try #require(result.code == 0, "status failed: \(result.stderr)")
      let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
      return try #require(object?["state"] as? String, "no state in \(result.stdout)")
    }
  }
}
