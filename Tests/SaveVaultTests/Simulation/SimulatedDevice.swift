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
///
/// Two kinds of device exist only in such scenarios:
/// - one that *lacks* the second location: its config entry names only the first (a desktop
///   whose Steam has no `userdata/<user>/<id>/remote` yet). Until a restore places the second
///   one (where its portable form, `<xdgConfig>/Game`, says) or the player adds it to the
///   config (`gainLocation`), its save is the first location alone (`lacksSecond`);
/// - one that *adopts* the game: its config starts without it, Steam has the game installed
///   (app `steamAppID`, its Proton prefix holding the first location,
///   `compatdata/4000/pfx/drive_c/users/steamuser/Documents/Saves`), and its first sync is a
///   `wrap` under Steam that adds the game from the manifest (`SimulationScenario.adopt`).
final class SimulatedDevice {
  static let game = "game"
  static let files = ["slot1.sav", "slot2.sav", "sub/options.cfg", "sub/deep/profile.dat"]
  /// What the config entry of a game of several locations leaves out of its save.
  static let exclude = ["*.log"]
  /// The Steam app id of the game, for a device that adopts it.
  static let steamAppID = "4000"

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
  /// The game's locations when it has several (empty: the one-folder game in `save`): two
  /// folders, then, in a scenario of file locations, each of `fileLocations` as the config
  /// names it (`<install>/*.sav`).
  let locations: [String]
  /// In a scenario of file locations: the folder that holds each location of files and the
  /// pattern of its files inside it (see `SimulatedFiles`); else empty.
  let fileLocations: [(folder: String, pattern: String)]
  /// The pattern of each location of files, by its archive name (`4-install`: `*.sav`).
  let patterns: [String: String]
  /// What the files of the install folder that are no part of the save hold (by path inside
  /// it; a deleted one is absent), and the inodes of the folders holding the save's files.
  var outsideFiles: [String: Data] = [:]
  var heldFolders: [String: UInt64] = [:]
  /// In a scenario of registry: whether the game also keeps keys in its prefix's `user.reg`
  /// (see `SimulatedRegistry`), and the keys there that are no part of the save, as Wine last
  /// wrote them.
  let hasRegistry: Bool
  var otherKeys: [SimulatedRegistry.Section] = []
  /// Whether the last command was killed, so that a restore of several locations may be
  /// half-done until the next command finishes it.
  var wasKilled = false
  /// The save as a restore of several locations stopped midway left it (no state of its own),
  /// as the last command ended; nil when none is half-done.
  var halfSwappedState: String?
  /// Whether the config names only the first location (the device lacks the second).
  private(set) var configLacksSecond: Bool
  /// Whether the device was set up lacking the second location.
  let startedLacking: Bool
  /// Whether the save here is the first location alone: the config lacks the second, and no
  /// restore placed it (the target, with the agreement's placed locations, has none). Kept by
  /// `refreshLacking()`.
  private(set) var lacksSecond: Bool
  /// Whether the game is in this device's config: false, for a device that adopts it, until a
  /// `wrap` under Steam added it.
  private(set) var isAdopted: Bool
  /// Whether the device starts without the game in its config.
  let adopts: Bool
  /// Whether the game's entry leaves `*.log` out (an entry adopted from the manifest does not:
  /// its game writes no logs).
  private(set) var excludesLogs: Bool
  /// What a running command started from, on a device that lacks the second location: the
  /// container's archives, and whether it lacked it.
  var archivesAtStart: Set<String> = []
  var lackedAtStart = false

  var home: String { root + "/home" }
  var dataDirectory: String { home + "/.local/share/savevault" }
  var savesFolder: String { root + "/saves" }
  var save: String { savesFolder + "/" + Self.game }
  var mount: String { root + "/mnt" }
  var containerURL: String { mount + "/cloud" }

  static func savePlace(_ device: String) -> String { "\(device) save directory" }

  /// Steam, in HOME (for a device that adopts the game).
  var steam: String { home + "/.local/share/Steam" }
  /// The Windows user folder of the game's Proton prefix.
  var prefixUser: String { steam + "/steamapps/compatdata/\(Self.steamAppID)/pfx/drive_c/users/steamuser" }
  var configFile: String { home + "/.config/savevault/config.json" }

  /// `lacksSecond`: the config names only the first location; `adopts`: the config starts
  /// without the game, which Steam has installed (`manifest`: the manifest file that knows it).
  init(
    index: Int, name: String, root: String, sharedFolder: String, clock: DeviceClock,
    hasLocations: Bool = false, hasFiles: Bool = false, hasRegistry: Bool = false, lacksSecond: Bool = false,
    adopts: Bool = false, manifest: String? = nil
  ) throws {
    self.index = index
    self.name = name
    self.root = root
    self.sharedFolder = sharedFolder
    self.clock = clock
    let home = root + "/home"
    let prefix =
      home + "/.local/share/Steam/steamapps/compatdata/\(Self.steamAppID)/pfx/drive_c/users/steamuser"
    fileLocations =
      hasLocations && hasFiles
      ? SimulatedFiles.locations.map { location in
        (
          location.folder.isEmpty ? home + "/Games/install" : home + "/Games/install/" + location.folder,
          location.pattern
        )
      } : []
    locations =
      !hasLocations
      ? []
      : [
        adopts ? prefix + "/Documents/Saves" : root + "/c/Users/\(name)/Saved Games/Saves",
        home + "/.config/Game",
      ] + fileLocations.map { $0.folder + "/" + $0.pattern }
        + (hasLocations && hasFiles && hasRegistry ? [SimulatedRegistry.location] : [])
    self.hasRegistry = hasLocations && hasFiles && hasRegistry
    patterns = Dictionary(
      uniqueKeysWithValues: fileLocations.enumerated().map {
        (SaveLocation.name(index: $0.offset + 2, path: $0.element.folder), $0.element.pattern)
      })
    configLacksSecond = hasLocations && lacksSecond
    startedLacking = configLacksSecond
    self.lacksSecond = configLacksSecond
    self.adopts = hasLocations && adopts
    isAdopted = !self.adopts
    excludesLogs = !self.adopts
    var environment = [
      "XDG_CONFIG_HOME": home + "/.config", "XDG_DATA_HOME": home + "/.local/share",
      "XDG_STATE_HOME": home + "/.local/state", "SAVEVAULT_LOCK_WAIT": "2", "PATH": "/usr/bin:/bin",
      "NO_COLOR": "1",
    ]
    // Only the manifest in the scenario's folder: never one downloaded.
    if self.adopts, let manifest { environment["SAVEVAULT_MANIFEST"] = manifest }
    sandbox = try Sandbox(in: TemporaryDirectory(borrowing: root), device: name, environment: environment)
    try FileManager.default.createDirectory(atPath: savesFolder, withIntermediateDirectories: true)
    if self.adopts {
      // Steam with the game installed and started once (its prefix made); the config knows
      // nothing of it.
      _ = try sandbox.steamGame(Int(Self.steamAppID) ?? 0, "Game")
      try makeDirectory(prefix)
      try writeConfig([:])
    } else if hasLocations {
      try writeEntry()
    }
    if hasFiles { try makeInstall() }
    if self.hasRegistry { try makePrefix() }
    comeBack()
  }

  /// Writes `object` as this device's config file.
  func writeConfig(_ object: [String: Any]) throws {
    try FileManager.default.createDirectory(
      atPath: (configFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: configFile))
  }

  /// Writes the config's entry of a game of several locations: both, or the first alone when
  /// the config lacks the second.
  private func writeEntry() throws {
    let listed = configLacksSecond ? Array(locations.prefix(1)) : locations
    var entry: [String: Any] = ["locations": listed, "exclude": Self.exclude]
    if hasRegistry { entry["winePrefix"] = prefix }
    try writeConfig(["games": [Self.game: entry]])
  }

  /// The player adds the second location to the config (Steam made its folder).
  func gainSecond() throws {
    configLacksSecond = false
    try writeEntry()
    refreshLacking()
  }

  /// A `wrap` under Steam added the game to the config (from the manifest: no `exclude`).
  func adopted() {
    isAdopted = true
    excludesLogs = false
    refreshLacking()
  }

  /// Reads again whether the save here lacks the second location: the config lacks it and the
  /// target (with the locations the agreement says a restore placed) has none of that name.
  func refreshLacking() {
    guard configLacksSecond else {
      lacksSecond = false
      return
    }
    guard let (_, target) = try? vault() else {
      lacksSecond = true
      return
    }
    lacksSecond = !target.locations.contains { $0.name == namedLocations[1].name }
  }

  var hasLocations: Bool { !locations.isEmpty }

  /// Whether the game also keeps its save in files of its install folder.
  var hasFiles: Bool { !fileLocations.isEmpty }

  /// Each location's archive name (`1-Saves`) and folder (of a location of files, the folder
  /// that holds them: its name is that folder's, `4-install`; `patterns` has its files). Of
  /// the location of registry keys, named after its export folder, the prefix's `user.reg`.
  var namedLocations: [(name: String, path: String)] {
    locations.enumerated().map { index, location in
      if location == SimulatedRegistry.location {
        return (SaveLocation.name(index: index, path: registryExport), userReg)
      }
      let folder = index >= 2 && hasFiles ? fileLocations[index - 2].folder : location
      return (SaveLocation.name(index: index, path: folder), folder)
    }
  }

  /// The archive name of the location of registry keys (nil when the game has none).
  var registryName: String? { hasRegistry ? namedLocations.last?.name : nil }

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

  /// On a device that lacked the second location and has it now: its save's first location
  /// alone, in the form its saves had while it lacked the second (nil on any other device).
  var firstAloneState: String? {
    guard startedLacking, !lacksSecond else { return nil }
    return SaveState.ofLocations(Array(namedLocations.prefix(1)), lacking: true)
  }

  /// A save of several locations as it would be with each missing location's folder that a
  /// stopped restore set aside (`.savevault-old-*` beside it) in its place; nil when none is.
  var stateWithSetAsideFolders: String? {
    guard hasLocations else { return nil }
    var isFilled = false
    let filled = heldLocations.map { location -> (name: String, path: String) in
      guard !FileManager.default.fileExists(atPath: location.path) else { return location }
      let parent = (location.path as NSString).deletingLastPathComponent
      let aside = ((try? Platform.directoryNames(parent)) ?? []).filter { $0.hasPrefix(".savevault-old-") }
      guard aside.count == 1 else { return location }
      isFilled = true
      return (location.name, parent + "/" + aside[0])
    }
    return isFilled ? SaveState.ofLocations(filled, lacking: lacksSecond, patterns: patterns) : nil
  }

  /// The locations the save is in here: all, or the first alone while the device lacks the second.
  var heldLocations: [(name: String, path: String)] {
    lacksSecond ? Array(namedLocations.prefix(1)) : namedLocations
  }

  /// The save's state now: the save directory's, or all locations' together; while the device
  /// lacks the second location, the first one's alone, in the form that says so
  /// (`SaveState.ofLocations(_:lacking:)`).
  var state: String? {
    guard hasLocations else { return SaveState.ofDirectory(save) }
    return SaveState.ofLocations(heldLocations, lacking: lacksSecond, patterns: patterns)
  }

  /// What the game does: changes one file (new, unique content), adds one, or removes one
  /// (keeping at least one). Every file written gets this device's clock as its mtime, with
  /// the device in the nanoseconds, so no two devices ever write the same metadata. A game of
  /// several locations does that in one of them, or in each; now and then it also writes a
  /// log (excluded, no part of the save).
  func play(_ random: inout SplitMix64, tag: String) -> String {
    guard hasLocations else { return play(in: save, &random, tag: tag) }
    // Only where the save is here: a location the device lacks is no folder of the game's.
    let held = heldLocations
    let chosen = random.chance(40) ? held : random.pick(held).map { [$0] } ?? []
    var done = chosen.map { location in
      if location.name == registryName { return "\(location.name): " + playRegistry(&random, tag: tag) }
      let files = patterns[location.name].map { SimulatedFiles.matching[$0] ?? [] }
      return "\(location.name): "
        + play(in: location.path, &random, tag: tag, files: files ?? Self.files, keepsOne: files == nil)
    }
    if hasFiles && random.chance(25) { done.append(playOutside(&random, tag: tag)) }
    if hasRegistry && !chosen.contains(where: { $0.name == registryName }) && random.chance(30) {
      rewriteRegistry()
      done.append("Wine wrote user.reg again")
    }
    if random.chance(15), let location = random.pick(held.map(\.path)), excludesLogs {
      try? FileManager.default.createDirectory(atPath: location, withIntermediateDirectories: true)
      FileManager.default.createFile(
        atPath: location + "/game.log", contents: Data("\(name) \(tag) log \(random.int(0..<1000))\n".utf8))
      done.append("and a log")
    }
    return done.joined(separator: "; ")
  }

  /// Changes, adds or removes one of `files` in `save` (keeping one when `keepsOne`).
  private func play(
    in save: String, _ random: inout SplitMix64, tag: String, files: [String] = SimulatedDevice.files,
    keepsOne: Bool = true
  ) -> String {
    let present = files.filter { FileManager.default.fileExists(atPath: save + "/" + $0) }
    let roll = random.int(0..<10)
    if present.count > (keepsOne ? 1 : 0) && roll == 0, let gone = random.pick(present) {
      unlink(save + "/" + gone)
      return "removed \(gone)"
    }
    let missing = files.filter { !present.contains($0) }
    let file: String
    if (present.isEmpty || roll == 1), let new = random.pick(missing) {
      file = new
    } else {
      file = random.pick(present) ?? files[0]
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
    let held = heldLocations
    let doomed = random.chance(70) ? held : random.pick(held).map { [$0] } ?? []
    for location in doomed {
      if location.name == registryName {
        wipeRegistry()
      } else if let pattern = patterns[location.name] {
        wipeFiles(location, pattern: pattern)
      } else {
        try? FileManager.default.removeItem(atPath: location.path)
      }
    }
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
    guard isAdopted, let (vault, target) = try? vault() else { return nil }
    return vault.agreements.load(target)?.archive
  }

  /// Folders a restore leaves between its steps (staging, set aside): none once recovered.
  /// (Beside the locations the save is in: a restore killed as it was placing the second
  /// location, before its journal, leaves its staging beside that one, which no command of a
  /// device lacking it looks beside until it has it.)
  var leftovers: [String] {
    let parents =
      hasLocations
      ? heldLocations.map { ($0.path as NSString).deletingLastPathComponent }
        + (hasRegistry ? [(registryExport as NSString).deletingLastPathComponent] : []) : parentFolders
    return parents.flatMap { folder in
      ((try? Platform.directoryNames(folder)) ?? []).filter {
        $0.hasPrefix(".savevault-staging-") || $0.hasPrefix(".savevault-old-")
      }
    }
  }

  /// The journal of a restore of several locations the next command is to finish, if any.
  var restoreJournal: RestoreJournal? {
    FileManager.default.contents(
      atPath: home + "/.local/state/savevault/restores-locations/" + Self.game + ".json"
    ).flatMap { try? JSONDecoder().decode(RestoreJournal.self, from: $0) }
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
