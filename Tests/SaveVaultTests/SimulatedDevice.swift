import Foundation

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// The simulated time of one scenario, in epoch ms; steps move it on.
final class SimulatedTime: @unchecked Sendable {
  private let lock = NSLock()
  private var nowMs: Int64

  init(startMs: Int64) { nowMs = startMs }

  var now: Int64 {
    lock.lock()
    defer { lock.unlock() }
    return nowMs
  }

  func advance(byMs step: Int64) {
    lock.lock()
    defer { lock.unlock() }
    nowMs += step
  }
}

/// One device's clock: the scenario's time plus the device's offset, and never the same
/// millisecond twice (it moves on by at least 1 ms per reading).
final class DeviceClock: @unchecked Sendable {
  private let lock = NSLock()
  private let time: SimulatedTime
  let offsetMs: Int64
  private var lastMs = Int64.min

  init(time: SimulatedTime, offsetMs: Int64) {
    self.time = time
    self.offsetMs = offsetMs
  }

  func read() -> Int64 {
    lock.lock()
    defer { lock.unlock() }
    lastMs = max(lastMs + 1, time.now + offsetMs)
    return lastMs
  }
}

/// One simulated device: its own HOME and XDG directories, device name, clock, save directory
/// and view of the shared container. The container is reached through a symlink,
/// `<device>/mnt`; going offline removes the link, so the container folder is missing for
/// this device only (SaveVault reports it unavailable, exit 4), as for an unmounted drive.
final class SimulatedDevice {
  static let game = "game"
  static let files = ["slot1.sav", "slot2.sav", "sub/options.cfg", "sub/deep/profile.dat"]

  let index: Int
  let name: String
  let root: String
  let sharedFolder: String
  let clock: DeviceClock
  /// HOME (`root/home`), the XDG directories, the device name and a short lock wait.
  let sandbox: Sandbox
  private(set) var isOnline = true
  /// Pending archives that a later agreement overtook: never to be uploaded.
  var overtaken: Set<String> = []
  /// What a running command started from: the pending archives and the agreed archive.
  var pendingAtStart: Set<String> = []
  var agreedAtStart: String?

  var home: String { root + "/home" }
  var dataDirectory: String { home + "/.local/share/savevault" }
  var savesFolder: String { root + "/saves" }
  var save: String { savesFolder + "/" + Self.game }
  var mount: String { root + "/mnt" }
  var containerURL: String { mount + "/cloud" }

  static func savePlace(_ device: String) -> String { "\(device) save directory" }

  init(index: Int, name: String, root: String, sharedFolder: String, clock: DeviceClock) throws {
    self.index = index
    self.name = name
    self.root = root
    self.sharedFolder = sharedFolder
    self.clock = clock
    let home = root + "/home"
    sandbox = try Sandbox(
      in: TemporaryDirectory(borrowing: root), device: name,
      environment: [
        "XDG_CONFIG_HOME": home + "/.config", "XDG_DATA_HOME": home + "/.local/share",
        "XDG_STATE_HOME": home + "/.local/state", "SAVEVAULT_LOCK_WAIT": "2", "PATH": "/usr/bin:/bin",
        "NO_COLOR": "1",
      ])
    try FileManager.default.createDirectory(atPath: savesFolder, withIntermediateDirectories: true)
    comeBack()
  }

  /// HOME, the XDG directories, the device name and a short lock wait.
  var environment: [String: String] { sandbox.environment }

  /// A vault for one in-process command, with `failpoints` (`SAVEVAULT_FAILPOINTS`) if given.
  func vault(failpoints: String? = nil, log: Log = .silent) throws -> (Vault, Target) {
    var environment = environment
    environment["SAVEVAULT_FAILPOINTS"] = failpoints
    let context = Context(
      environment: environment, currentDirectory: home, clock: { [clock] in clock.read() }, log: log,
      hostName: name)
    let vault = try Vault(context: context)
    let target = try vault.resolve(TargetRequest(saveDirectory: save, containerURL: containerURL))
    return (vault, target)
  }

  func goOffline() {
    unlink(mount)
    isOnline = false
  }

  func comeBack() {
    unlink(mount)
    symlink(sharedFolder, mount)
    isOnline = true
  }

  /// The save directory's state now.
  var state: String? { SaveState.ofDirectory(save) }

  /// What the game does: changes one file (new, unique content), adds one, or removes one
  /// (keeping at least one). Every file written gets this device's clock as its mtime, with
  /// the device in the nanoseconds, so no two devices ever write the same metadata.
  func play(_ random: inout SplitMix64, tag: String) -> String {
    let present = Self.files.filter { FileManager.default.fileExists(atPath: save + "/" + $0) }
    let roll = random.int(0..<10)
    if present.count > 1 && roll == 0, let gone = random.pick(present) {
      unlink(save + "/" + gone)
      return "removed \(gone)"
    }
    let missing = Self.files.filter { !present.contains($0) }
    let file: String
    if (present.isEmpty || roll == 1), let new = random.pick(missing) {
      file = new
    } else {
      file = random.pick(present) ?? Self.files[0]
    }
    let path = save + "/" + file
    let content = "\(name) \(tag) " + String(repeating: "x", count: random.int(0..<200))
    try? FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    FileManager.default.createFile(atPath: path, contents: Data(content.utf8))
    let ns = clock.read() * 1_000_000 + Int64(index)
    var times = [
      timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000)),
      timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000)),
    ]
    _ = utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW)
    return "wrote \(file) (\(content.utf8.count) bytes)"
  }

  /// The player deletes the whole save directory.
  func wipe() {
    try? FileManager.default.removeItem(atPath: save)
  }

  /// Runs the built `savevault` with this device's environment plus `extra`.
  func runBinary(_ arguments: [String], extra: [String: String]) throws -> ProgramOutput {
    try sandbox.run(arguments, environment: extra, in: home, timeLimit: 60)
  }

  /// The archives waiting in this device's pending folder.
  var pendingNames: Set<String> {
    Set(
      ((try? Platform.directoryNames(dataDirectory + "/pending/" + Self.game)) ?? []).filter {
        ArchiveName.isBackupName($0)
      })
  }

  /// The archive this device's ledger says it agreed on with the container.
  var agreedArchive: String? {
    guard let (vault, target) = try? vault() else { return nil }
    return vault.agreements.load(target)?.archive
  }

  /// Folders a restore leaves between its steps (staging, set aside): none once recovered.
  var leftovers: [String] {
    ((try? Platform.directoryNames(savesFolder)) ?? []).filter {
      $0.hasPrefix(".savevault-staging-") || $0.hasPrefix(".savevault-old-")
    }
  }
}

/// The simulation's draws from the seeded generator (`SplitMix64`, shared with the kill tests),
/// so that a seed replays a scenario.
extension SplitMix64 {
  mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &self) }

  mutating func chance(_ percent: Int) -> Bool { int(0..<100) < percent }

  mutating func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[int(0..<items.count)] }
}
