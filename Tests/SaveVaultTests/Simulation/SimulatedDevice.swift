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
///
/// In a scenario of several locations the game is a config entry (`--game game`) with two
/// folders in different parent folders, each device's own (`<device>/c/Users/<device>/Saved
/// Games/Saves`, outside HOME, and `~/.config/Game`), and `*.log` excluded: its save state is
/// the combined content of both, each under its archive name (`1-Saves/…`, `2-Game/…`).
final class SimulatedDevice {
  static let game = "game"
  static let files = ["slot1.sav", "slot2.sav", "sub/options.cfg", "sub/deep/profile.dat"]
  /// What the config entry of a game of several locations leaves out of its save.
  static let exclude = ["*.log"]

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
  /// The game's folders when it has several locations (empty: the one-folder game in `save`).
  let locations: [String]
  /// Whether the last command was killed, so that a restore of several locations may be
  /// half-done until the next command finishes it.
  var wasKilled = false
  /// The save as a restore of several locations stopped midway left it (no state of its own),
  /// as the last command ended; nil when none is half-done.
  var halfSwappedState: String?

  var home: String { root + "/home" }
  var dataDirectory: String { home + "/.local/share/savevault" }
  var savesFolder: String { root + "/saves" }
  var save: String { savesFolder + "/" + Self.game }
  var mount: String { root + "/mnt" }
  var containerURL: String { mount + "/cloud" }

  static func savePlace(_ device: String) -> String { "\(device) save directory" }

  init(
    index: Int, name: String, root: String, sharedFolder: String, clock: DeviceClock,
    hasLocations: Bool = false
  ) throws {
    self.index = index
    self.name = name
    self.root = root
    self.sharedFolder = sharedFolder
    self.clock = clock
    let home = root + "/home"
    locations =
      hasLocations ? [root + "/c/Users/\(name)/Saved Games/Saves", home + "/.config/Game"] : []
    sandbox = try Sandbox(
      in: TemporaryDirectory(borrowing: root), device: name,
      environment: [
        "XDG_CONFIG_HOME": home + "/.config", "XDG_DATA_HOME": home + "/.local/share",
        "XDG_STATE_HOME": home + "/.local/state", "SAVEVAULT_LOCK_WAIT": "2", "PATH": "/usr/bin:/bin",
        "NO_COLOR": "1",
      ])
    try FileManager.default.createDirectory(atPath: savesFolder, withIntermediateDirectories: true)
    if hasLocations {
      let config: [String: Any] = [
        "games": [Self.game: ["locations": locations, "exclude": Self.exclude]]
      ]
      let path = home + "/.config/savevault/config.json"
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: path))
    }
    comeBack()
  }

  var hasLocations: Bool { !locations.isEmpty }

  /// Each location's archive name (`1-Saves`) and folder.
  var namedLocations: [(name: String, path: String)] {
    locations.enumerated().map { (SaveLocation.name(index: $0.offset, path: $0.element), $0.element) }
  }

  /// Whether the game has several locations and the first one's folder is missing.
  var isMissingFirstLocation: Bool {
    hasLocations && !FileManager.default.fileExists(atPath: locations[0])
  }

  /// The folders a restore works beside: the save directory's, or each location's.
  var parentFolders: [String] {
    hasLocations ? locations.map { ($0 as NSString).deletingLastPathComponent } : [savesFolder]
  }

  /// The flags that name the game: its save directory, or its config entry.
  var targetArguments: [String] {
    (hasLocations ? ["--game", Self.game] : ["--save-dir", save]) + ["--container", containerURL]
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
    let request =
      hasLocations
      ? TargetRequest(game: Self.game, containerURL: containerURL)
      : TargetRequest(saveDirectory: save, containerURL: containerURL)
    let target = try vault.resolve(request)
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

  /// The save's state now: the save directory's, or all locations' together.
  var state: String? { hasLocations ? SaveState.ofLocations(namedLocations) : SaveState.ofDirectory(save) }

  /// For a game of several locations whose restore was stopped midway: the save its recovery
  /// keeps as the replaced one, each location's folder set aside (`.savevault-old-*` beside it)
  /// or else the folder there now. The state itself when a folder holds more than one location
  /// (which folder set aside is whose is not known then).
  var stateRecoveryKeeps: String? {
    let parents = namedLocations.map { ($0.path as NSString).deletingLastPathComponent }
    guard Set(parents).count == parents.count else { return state }
    return SaveState.ofLocations(
      zip(namedLocations, parents).map { location, parent in
        let aside = ((try? Platform.directoryNames(parent)) ?? []).filter { $0.hasPrefix(".savevault-old-") }
        return aside.count == 1 ? (location.name, parent + "/" + aside[0]) : location
      })
  }

  /// What the game does: changes one file (new, unique content), adds one, or removes one
  /// (keeping at least one). Every file written gets this device's clock as its mtime, with
  /// the device in the nanoseconds, so no two devices ever write the same metadata. A game of
  /// several locations does that in one of them, or in each; now and then it also writes a
  /// log (excluded, no part of the save).
  func play(_ random: inout SplitMix64, tag: String) -> String {
    guard hasLocations else { return play(in: save, &random, tag: tag) }
    let chosen = random.chance(40) ? namedLocations : random.pick(namedLocations).map { [$0] } ?? []
    var done = chosen.map { "\($0.name): " + play(in: $0.path, &random, tag: tag) }
    if random.chance(15), let location = random.pick(locations) {
      try? FileManager.default.createDirectory(atPath: location, withIntermediateDirectories: true)
      FileManager.default.createFile(
        atPath: location + "/game.log", contents: Data("\(name) \(tag) log \(random.int(0..<1000))\n".utf8))
      done.append("and a log")
    }
    return done.joined(separator: "; ")
  }

  private func play(in save: String, _ random: inout SplitMix64, tag: String) -> String {
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

  /// The player deletes the whole save directory (of several locations: all, or one).
  func wipe(_ random: inout SplitMix64) -> String {
    guard hasLocations else {
      try? FileManager.default.removeItem(atPath: save)
      return "the save directory"
    }
    let doomed = random.chance(70) ? namedLocations : random.pick(namedLocations).map { [$0] } ?? []
    for location in doomed { try? FileManager.default.removeItem(atPath: location.path) }
    return doomed.map(\.name).joined(separator: " and ")
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

  /// The archive this device's agreement says it agreed on with the container.
  var agreedArchive: String? {
    guard let (vault, target) = try? vault() else { return nil }
    return vault.agreements.load(target)?.archive
  }

  /// Folders a restore leaves between its steps (staging, set aside): none once recovered.
  var leftovers: [String] {
    parentFolders.flatMap { folder in
      ((try? Platform.directoryNames(folder)) ?? []).filter {
        $0.hasPrefix(".savevault-staging-") || $0.hasPrefix(".savevault-old-")
      }
    }
  }

  /// Whether a restore of several locations has a journal the next command is to finish.
  var hasRestoreJournal: Bool {
    FileManager.default.fileExists(
      atPath: home + "/.local/state/savevault/restores-locations/" + Self.game + ".json")
  }
}

/// The simulation's draws from the seeded generator (`SplitMix64`, shared with the kill tests),
/// so that a seed replays a scenario.
extension SplitMix64 {
  mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &self) }

  mutating func chance(_ percent: Int) -> Bool { int(0..<100) < percent }

  mutating func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[int(0..<items.count)] }
}
