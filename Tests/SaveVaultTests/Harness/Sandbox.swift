import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// One test's world for the built `savevault`: a temporary folder holding a private HOME (with
/// SaveVault's XDG folders under it), a folder container, and whatever the test puts there.
/// The binary runs with an exact environment (HOME, PATH, SAVEVAULT_DEVICE,
/// SAVEVAULT_LOCK_WAIT, then `extra`, then what the run adds), no terminal and no desktop: what
/// a launch script under Steam has. A test talks to it only through arguments, environment,
/// exit code, output and files.
///
/// Devices of one sandbox (`on(_:)`, `device(_:home:)`) share its folder and container and
/// each have a HOME of their own.
struct Sandbox {
  /// The test's temporary folder, removed when the last copy of the sandbox goes.
  let dir: TemporaryDirectory
  /// This device's name (`SAVEVAULT_DEVICE`).
  var device: String
  /// This device's HOME.
  var home: String
  /// Added to the environment of every run, after the defaults.
  var extra: [String: String]

  /// A sandbox in a new folder `savevault-LABEL-…` (`TemporaryDirectory.scratch`, a tmpfs where
  /// there is one), with `<dir>/home` and the container folder `<dir>/cloud` made.
  init(_ label: String, device: String = "pc", environment extra: [String: String] = [:]) throws {
    try self.init(
      in: TemporaryDirectory(label.replacingOccurrences(of: " ", with: "_")), device: device,
      environment: extra)
  }

  /// A sandbox in the folder `dir` that a test already owns (a mounted disk's, say).
  init(in dir: TemporaryDirectory, device: String = "pc", environment extra: [String: String] = [:]) throws {
    self.dir = dir
    self.device = device
    home = dir.sub("home")
    self.extra = extra
    try makeDirectory(home)
    try makeDirectory(dir.sub("cloud"))
  }

  /// Devices sharing one container that the environment names (`SAVEVAULT_CONTAINER`), each
  /// with its HOME at `<dir>/<device>/home` (`on(_:)`).
  static func world(_ label: String) throws -> Sandbox {
    var sandbox = try Sandbox("world-\(label)")
    sandbox.extra["SAVEVAULT_CONTAINER"] = sandbox.cloud
    return sandbox
  }

  // MARK: Places

  /// `relative` under the test's folder.
  func path(_ relative: String) -> String { dir.sub(relative) }

  /// The folder container: `<dir>/cloud`.
  var cloud: String { dir.sub("cloud") }

  /// The embedded default container under this device's HOME.
  var defaultContainer: String { home + "/.local/share/savevault/container" }

  /// The default config file under this device's HOME.
  var config: String { home + "/.config/savevault/config.json" }

  /// This device's pre-restore copies, a folder per game.
  var preRestore: String { home + "/.local/share/savevault/pre-restore" }

  // MARK: Devices

  /// Another device in the same folder: its own name and HOME (`<dir>/<name>/home` unless
  /// given), the same container and `extra`.
  func device(_ name: String, home: String? = nil) -> Sandbox {
    var other = self
    other.device = name
    other.home = home ?? dir.sub(name + "/home")
    return other
  }

  /// `device(name)`, for a line that runs one command as that device.
  func on(_ name: String) -> Sandbox { device(name) }

  // MARK: Running the binary

  /// The environment of a run: the defaults, `extra`, then `more`.
  func environment(_ more: [String: String] = [:]) -> [String: String] {
    var environment = [
      "HOME": home, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
      "SAVEVAULT_DEVICE": device, "SAVEVAULT_LOCK_WAIT": "20",
    ]
    environment.merge(extra) { $1 }
    environment.merge(more) { $1 }
    return environment
  }

  /// The environment every run of this device gets.
  var environment: [String: String] { environment([:]) }

  /// Runs the binary with `arguments` from the test's folder (or `directory`), stdin `stdin`
  /// (none: /dev/null), and waits for it, blocking the calling thread: for the simulation's
  /// threads of its own and a test's time window (`withinWindow`); a test awaits `runAwaiting`.
  @available(*, noasync, message: "a test awaits runAwaiting, which holds no thread")
  @discardableResult
  func run(
    _ arguments: [String], stdin: String? = nil, environment more: [String: String] = [:],
    in directory: String? = nil, timeLimit: TimeInterval? = nil
  ) throws -> RunResult {
    try makeDirectory(home)
    try #require(
      FileManager.default.isExecutableFile(atPath: savevaultBinary), "no binary at \(savevaultBinary)")
    return try runProgram(
      savevaultBinary, arguments, environment: environment(more), currentDirectory: directory ?? dir.path,
      stdin: try stdinFile(stdin), timeLimit: timeLimit)
  }

  /// `run`, awaited: the test's task is suspended while the binary runs, so that it does not
  /// hold one of the few threads that run the tests. It starts once `ProgramGate` has a slot;
  /// `gated: false` starts it at once (a run beside a lock holder, a run the test times).
  @discardableResult
  func runAwaiting(
    _ arguments: [String], stdin: String? = nil, environment more: [String: String] = [:],
    in directory: String? = nil, timeLimit: TimeInterval? = nil, gated: Bool = true
  ) async throws -> RunResult {
    try makeDirectory(home)
    try #require(
      FileManager.default.isExecutableFile(atPath: savevaultBinary), "no binary at \(savevaultBinary)")
    return try await runProgramAwaiting(
      savevaultBinary, arguments, environment: environment(more), currentDirectory: directory ?? dir.path,
      stdin: try stdinFile(stdin), timeLimit: timeLimit, gated: gated)
  }

  /// A file in the test's folder holding `text`, for a run's stdin; nil for none.
  private func stdinFile(_ text: String?) throws -> String? {
    guard let text else { return nil }
    let input = dir.sub("stdin-\(UUID().uuidString.prefix(8))")
    try writeFile(input, text)
    return input
  }

  /// Runs a command that must succeed, and returns its output.
  @discardableResult
  func ok(
    _ arguments: [String], environment more: [String: String] = [:], in directory: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> RunResult {
    let result = try await runAwaiting(arguments, environment: more, in: directory)
    try #require(
      result.code == 0,
      "\(device): savevault \(arguments.joined(separator: " ")): exit \(result.code): \(result.stderr)",
      sourceLocation: sourceLocation)
    return result
  }

  /// Runs the binary on a pseudo-terminal (util-linux `script`, TERM=xterm unless `more` says
  /// otherwise) and waits; `stdout` is what the terminal received.
  @discardableResult
  func runAtTerminal(_ arguments: [String], environment more: [String: String] = [:]) async throws
    -> RunResult
  {
    let script = try #require(
      which("script"), "util-linux 'script' is needed: scripts/install-deps.sh --test")
    try makeDirectory(home)
    let command = ([savevaultBinary] + arguments).map(shellQuoted).joined(separator: " ")
    return try await runProgramAwaiting(
      script, ["-qefc", command, "/dev/null"],
      environment: environment(["TERM": "xterm"].merging(more) { $1 }),
      currentDirectory: dir.path)
  }

  /// Starts the binary on a pseudo-terminal (util-linux `script`) for the test to read and type.
  func startAtTerminal(_ arguments: [String], environment more: [String: String] = [:]) throws
    -> SpawnedProgram
  {
    let script = try #require(
      which("script"), "util-linux 'script' is needed: scripts/install-deps.sh --test")
    try makeDirectory(home)
    let command = ([savevaultBinary] + arguments).map(shellQuoted).joined(separator: " ")
    return try SpawnedProgram(
      script, ["-qefc", command, "/dev/null"], environment: environment(more), stdin: .typed)
  }

  /// Starts the binary without waiting, stdin, stdout and stderr on /dev/null.
  func start(_ arguments: [String], environment more: [String: String] = [:]) throws -> SpawnedProgram {
    try makeDirectory(home)
    return try SpawnedProgram(
      savevaultBinary, arguments, environment: environment(more), directory: dir.path, stdout: .discarded,
      stderr: .discarded)
  }

  // MARK: What the binary left

  /// The `packsave-*` names in `container`'s (default: `cloud`'s) folder of `game`, sorted
  /// (oldest first); [] when there is no such folder.
  func archives(_ game: String, in container: String? = nil) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: (container ?? cloud) + "/" + game)) ?? [])
      .filter { $0.hasPrefix("packsave-") }.sorted()
  }

  /// `status --json` for the target `arguments` name.
  func status(_ arguments: [String]) async throws -> [String: Any] {
    try jsonObject(try await ok(["status", "--json"] + arguments).stdout)
  }

  /// The state `status` reports.
  func state(_ arguments: [String]) async throws -> String? {
    try await status(arguments)["state"] as? String
  }

  /// The config file as a JSON object.
  func configObject() throws -> [String: Any] {
    try jsonObject(try String(contentsOfFile: config, encoding: .utf8))
  }

  /// The config file's bytes, nil when there is none.
  func configBytes() -> Data? { FileManager.default.contents(atPath: config) }
}

extension Sandbox {
  /// This device's native Steam, `~/.local/share/Steam`, with the game `name` (app `id`)
  /// installed in it: its app manifest and install folder. Returns Steam's folder.
  @discardableResult
  func steamGame(_ id: Int, _ name: String) throws -> String {
    let steam = home + "/.local/share/Steam"
    try writeFile(
      steam + "/steamapps/appmanifest_\(id).acf",
      "\"AppState\"\n{\n\t\"appid\"\t\"\(id)\"\n\t\"name\"\t\"\(name)\"\n\t\"installdir\"\t\"\(name)\"\n}\n")
    try makeDirectory(steam + "/steamapps/common/" + name)
    return steam
  }

  /// The save directory of a test with one game, `game`: `<dir>/saves/game`.
  var save: String { path("saves/game") }

  /// The arguments naming `save` and `container` (default: `cloud`).
  func target(_ container: String? = nil) -> [String] {
    ["--save-dir", save, "--container", container ?? cloud]
  }
}

/// The text of a file, nil when it is missing.
func text(_ path: String) -> String? {
  FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
}

/// Parses a JSON list printed by the binary.
func jsonList(_ text: String) throws -> [[String: Any]] {
  try #require(
    try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], "not a list: \(text)")
}

/// The `packsave-*.tar` names in `folder`, sorted (oldest first); [] when there is no folder.
func tarArchiveNames(in folder: String) -> [String] {
  ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
    .filter { $0.hasPrefix("packsave-") && $0.hasSuffix(".tar") }.sorted()
}

/// `text` quoted for a POSIX shell.
func shellQuoted(_ text: String) -> String {
  "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
