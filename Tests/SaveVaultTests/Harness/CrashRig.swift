import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// One device for crash, signal and concurrency tests of the built binary: a private HOME, a
/// save directory of a few MiB (so that progress points fire several times), and a container
/// that is a folder or a bucket on the shared `rclone serve s3`.
struct CrashRig {
  enum Kind: String, CaseIterable, Sendable, CustomStringConvertible {
    case folder, s3
    var description: String { rawValue }
  }

  /// The device's sandbox: its HOME is `<dir>/home-<device>`, its environment carries the S3
  /// server's.
  let sandbox: Sandbox
  let kind: Kind
  let containerURL: String
  /// The library's view of the same container, for looking at it from outside the binary.
  let container: any Container

  var dir: TemporaryDirectory { sandbox.dir }
  var device: String { sandbox.device }
  var save: String { dir.sub("saves/quest") }
  var home: String { sandbox.home }
  var game: String { "quest" }
  var preRestoreFolder: String { home + "/.local/share/savevault/pre-restore/" + game }

  /// `home`: the name of this device's home folder in the rig (its device name unless given:
  /// two devices of one name need two).
  init(_ kind: Kind, device: String = "deck", sharing other: CrashRig? = nil, home: String? = nil) throws {
    self.kind = kind
    if let other {
      sandbox = other.sandbox.device(device, home: other.dir.sub("home-" + (home ?? device)))
      containerURL = other.containerURL
      container = other.container
    } else {
      var sandbox = try Sandbox("crash-\(kind)", device: device)
      sandbox.home = sandbox.path("home-" + device)
      switch kind {
      case .folder:
        containerURL = sandbox.cloud
        container = FolderContainer(root: sandbox.cloud)
      case .s3:
        let server = try #require(
          S3TestServer.shared(.rclone), "rclone serve s3 did not start (is rclone installed?)")
        let made = try server.container()
        containerURL = "s3://\(made.bucket)/\(made.prefix)"
        container = made
        sandbox.extra = server.environment().merging(["SAVEVAULT_S3_PART_MIB": "1"]) { $1 }
      }
      self.sandbox = sandbox
    }
    try makeDirectory(self.home)
  }

  /// This device's environment, with failpoints when given.
  func environment(failpoints: String? = nil, _ extra: [String: String] = [:]) -> [String: String] {
    var more = extra
    if let failpoints { more["SAVEVAULT_FAILPOINTS"] = failpoints }
    return sandbox.environment(more)
  }

  /// The arguments naming this rig's save directory and container.
  var target: [String] { ["--save-dir", save, "--container", containerURL] }

  /// Runs `savevault COMMAND ARGS… TARGET` and waits, blocking the calling thread: for a test's
  /// time window (`withinWindow`); a test awaits `runAwaiting`.
  @available(*, noasync, message: "a test awaits runAwaiting, which holds no thread")
  @discardableResult
  func run(_ arguments: [String], failpoints: String? = nil, _ extra: [String: String] = [:]) throws
    -> RunResult
  {
    try sandbox.run(arguments + target, environment: environment(failpoints: failpoints, extra))
  }

  /// `run`, awaited (`Sandbox.runAwaiting`: it waits for a `ProgramGate` slot unless `gated` is
  /// false).
  @discardableResult
  func runAwaiting(
    _ arguments: [String], failpoints: String? = nil, _ extra: [String: String] = [:], gated: Bool = true
  ) async throws -> RunResult {
    try await sandbox.runAwaiting(
      arguments + target, environment: environment(failpoints: failpoints, extra), gated: gated)
  }

  /// Starts `savevault COMMAND ARGS… TARGET` with no blocked signals and default signal
  /// actions (as a launcher starts it, and as `SpawnedProgram` starts every program), output
  /// to files in the rig.
  func start(_ arguments: [String], failpoints: String? = nil, _ extra: [String: String] = [:]) throws
    -> SpawnedProgram
  {
    try SpawnedProgram(
      savevaultBinary, arguments + target, environment: environment(failpoints: failpoints, extra),
      output: dir.sub("out-\(UUID().uuidString.prefix(8))"))
  }

  /// Writes state `seed` into the save directory: about `mebibytes` of bytes that differ by
  /// seed, and a small text file.
  func writeState(_ seed: UInt64, mebibytes: Int = 3) throws {
    try? FileManager.default.removeItem(atPath: save)
    var generator = SplitMix64(seed: seed)
    var bytes = [UInt8](repeating: 0, count: mebibytes << 20)
    for index in stride(from: 0, to: bytes.count, by: 8) {
      withUnsafeBytes(of: generator.next()) { word in
        for offset in 0..<8 { bytes[index + offset] = word[offset] }
      }
    }
    try writeFile(save + "/world/region.bin", Data(bytes))
    try writeFile(save + "/progress.txt", "state \(seed)\n")
  }

  /// Writes state `seed` and backs it up; returns the archive's name.
  @discardableResult
  func backUp(_ seed: UInt64, mebibytes: Int = 3) async throws -> String {
    try writeState(seed, mebibytes: mebibytes)
    let result = try await runAwaiting(["backup", "--json"])
    try #require(result.code == 0, "backup of state \(seed): \(result.stderr)")
    return try #require(try jsonObject(result.stdout)["archive"] as? String)
  }

  /// The save directory's content (kind and a digest of the bytes by path).
  func saveState() -> [String: String] { digestTree(save) }

  /// Names in the container's game folder (folder) or listed (S3).
  func containerArchives() throws -> [String] { try container.list(game: game).map(\.name).sorted() }

  /// Every state this device could get back: each archive in the container and each
  /// pre-restore copy, extracted by GNU tar, and each pre-restore copy that is a folder.
  func recoverableStates() async throws -> [[String: String]] {
    var states: [[String: String]] = []
    let scratch = dir.sub("scratch-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let copies = FolderContainer(root: home + "/.local/share/savevault/pre-restore")
    let copied = FileManager.default.fileExists(atPath: copies.root) ? try copies.list(game: game) : []
    for (source, archives) in [(container, try container.list(game: game)), (copies, copied)] {
      for archive in archives {
        let file = scratch + "/" + archive.name
        try makeDirectory(scratch + "/x-" + archive.name)
        try source.read(game: game, name: archive.name) { fd in
          let out = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
          defer { close(out) }
          _ = try Vault.copy(from: fd, to: out, name: archive.name)
        }
        let tar = try await runProgramAwaiting(
          "/usr/bin/tar", ["-xf", file, "-C", scratch + "/x-" + archive.name])
        #expect(tar.code == 0, "GNU tar could not read \(archive.name): \(tar.stderr)")
        states.append(digestTree(scratch + "/x-" + archive.name))
      }
    }
    for folder in preRestoreFolders(copies.root + "/" + game) { states.append(digestTree(folder)) }
    return states
  }

  /// What restore and its recovery may leave beside the save directory (nothing, once done).
  func leftovers() -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.sub("saves"))) ?? []
    let journal = home + "/.local/state/savevault/restores/" + game + ".json"
    return names.filter { $0.hasPrefix(".savevault-") }
      + (FileManager.default.fileExists(atPath: journal) ? [journal] : [])
  }

  /// The multipart uploads the bucket holds for this game (S3 only; [] for a folder).
  func openMultipartUploads() throws -> [String] {
    guard let s3 = container as? S3Container else { return [] }
    return try s3.openUploads(game: game).map(\.key)
  }

  /// Folder containers: the hidden temporaries in the game's folder.
  func containerTemporaries() -> [String] {
    guard kind == .folder else { return [] }
    return ((try? FileManager.default.contentsOfDirectory(atPath: containerURL + "/" + game)) ?? [])
      .filter { !($0.hasPrefix("packsave-") && $0.hasSuffix(".tar")) }
  }
}

/// `contentTree` with each value replaced by its SHA-256, so that a failed comparison of
/// MiB-sized trees prints short lines.
func digestTree(_ root: String) -> [String: String] {
  contentTree(root).mapValues { SHA256.hex(of: $0) }
}

/// Waits up to `seconds` for `condition`, polling every 10 ms; returns whether it came true.
/// It blocks the calling thread: for a test's time window (`withinWindow`), where a suspension
/// could outlast the window.
@available(*, noasync, message: "poll within a time window (withinWindow)")
func eventually(seconds: Double = 20, _ condition: () -> Bool) -> Bool {
  let deadline = Date().addingTimeInterval(seconds)
  while Date() < deadline {
    if condition() { return true }
    usleep(10_000)
  }
  return condition()
}

/// A small seeded generator (SplitMix64), so that random kill times are reproducible from the
/// printed seed.
struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Counts what the crash tests did, for the summary line each suite prints.
final class CrashTally: @unchecked Sendable {
  static let kills = CrashTally("kills survived")
  static let signals = CrashTally("signals handled")
  static let faults = CrashTally("faults injected")

  let label: String
  private let lock = NSLock()
  private var value = 0

  init(_ label: String) { self.label = label }

  func add(_ count: Int = 1) {
    lock.lock()
    defer { lock.unlock() }
    value += count
  }

  var count: Int {
    lock.lock()
    defer { lock.unlock() }
    return value
  }

  /// Prints `label: count (so far in this run)`.
  func report(_ context: String) {
    print("\(label): \(count) so far (after \(context))")
  }
}

/// The pre-restore copies in `folder` that are folders (a replaced save moved there whole).
func preRestoreFolders(_ folder: String) -> [String] {
  ((try? Platform.directoryNames(folder)) ?? []).filter {
    ArchiveName(parsing: $0 + ArchiveName.suffix) != nil
  }
  .map { folder + "/" + $0 }.filter { path in
    var info = stat()
    return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
  }
}
