import Foundation

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// A save state as the simulation compares them: the relative paths and bytes of its regular
/// files, as one SHA-256 (folders, modes and times are left out; SaveVault's own `.savevault`
/// folder too). A missing save, or one without files, has no state.
enum SaveState {
  static func digest(_ files: [(path: String, sha256: String)]) -> String? {
    guard !files.isEmpty else { return nil }
    let hash = SHA256()
    for file in files.sorted(by: { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }) {
      hash.update(Array("\(file.path)\u{0}\(file.sha256)\n".utf8))
    }
    return hash.finalize()
  }

  /// The state of a directory, read with plain system calls (not with SaveVault's scanner).
  static func ofDirectory(_ root: String) -> String? { digest(files(of: root)) }

  /// A directory holding a save of several locations (a pre-restore copy's folder, each
  /// location under its name): its state, and its first location's as a device that lacks the
  /// second has it.
  static func ofDirectoryBothForms(_ root: String) -> (state: String?, lacking: String?) {
    let all = files(of: root)
    return (digest(all), lackingDigest(all))
  }

  /// The state of a game of several locations: every location's files under its archive name
  /// (`1-Saves/slot1.sav`), the excluded ones (`*.log`) left out. A missing location is empty.
  /// `lacking`: the save of a device that lacks the second location (`locations` is the first
  /// alone), in a form no whole save has (`lackingDigest`). `patterns`: by location name, the
  /// pattern of a location of files, whose path is the folder that holds them: only the files
  /// it names are the location's.
  static func ofLocations(
    _ locations: [(name: String, path: String)], lacking: Bool = false, patterns: [String: String] = [:]
  ) -> String? {
    let found = locations.flatMap { location in
      // The location of registry keys, read in a `.reg` file (the prefix's, or one kept whole).
      if Platform.isRegularFile(location.path) {
        return SimulatedRegistry.contentHash(ofFile: location.path).map {
          [(location.name + "/user.reg", $0)]
        } ?? []
      }
      let pattern = patterns[location.name]
      return files(of: location.path).filter { file in
        !file.path.hasSuffix(".log") && (pattern.map { SimulatedFiles.matches($0, file.path) } ?? true)
      }.map { (location.name + "/" + $0.path, $0.sha256) }
    }
    return lacking ? lackingDigest(found) : digest(found)
  }

  /// The first location's name in every device's archives.
  static let firstLocation = "1-Saves"
  /// The second one's (which a device may lack).
  static let secondLocation = "2-Game"

  /// The state of the first location alone, as the save of a device that lacks the second
  /// location: `files`' entries under `1-Saves/`, and a mark that no file can be, so that it
  /// never equals the state of a whole save (one whose second location is empty, say). Any
  /// place that holds this content in its first location can give that save back.
  static func lackingDigest(_ files: [(path: String, sha256: String)]) -> String? {
    let first = files.filter { $0.path.hasPrefix(firstLocation + "/") }
    guard !first.isEmpty else { return nil }
    return digest(first + [("\u{0}lacks \(secondLocation)", "")])
  }

  /// What an archive holds, read back with every check a restore runs.
  struct ArchiveFacts {
    /// The whole save's state.
    var state: String?
    /// The first location's alone, as a device lacking the second has it (`lackingDigest`).
    var lackingState: String?
    /// The names of the locations its header lists (empty for a one-folder archive).
    var locations: [String]
    /// The state of the second location's content alone (nil when it holds none).
    var second: String?
  }

  /// What the archive at `path` holds; nil when it is refused.
  static func factsOfArchive(_ path: String) -> ArchiveFacts? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    guard
      let extraction = try? Extractor(limits: ExtractionLimits()).extract(
        fd: fd, archiveName: (path as NSString).lastPathComponent, into: nil)
    else { return nil }
    let files = extraction.entries.filter { $0.kind == .file }.compactMap { entry -> (String, String)? in
      // An export of registry keys: what its keys hold, read back with GNU tar.
      guard entry.path.hasSuffix("/user.reg") else { return (entry.path, entry.sha256 ?? "") }
      return registryHash(archive: path, entry: entry.path).map { (entry.path, $0) }
    }
    let prefix = secondLocation + "/"
    return ArchiveFacts(
      state: digest(files), lackingState: lackingDigest(files),
      locations: extraction.header?.locations?.map(\.name) ?? [],
      second: digest(
        files.filter { $0.0.hasPrefix(prefix) }.map { (String($0.0.dropFirst(prefix.count)), $0.1) }))
  }

  /// What the keys of the export `entry` in the archive at `path` hold (`SimulatedRegistry`).
  private static func registryHash(archive path: String, entry: String) -> String? {
    let tar = Process()
    tar.executableURL = URL(fileURLWithPath: "/bin/tar")
    tar.arguments = ["-xOf", path, "--", entry]
    let pipe = Pipe()
    tar.standardOutput = pipe
    tar.standardError = FileHandle.nullDevice
    guard (try? tar.run()) != nil else { return nil }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    tar.waitUntilExit()
    guard tar.terminationStatus == 0 else { return nil }
    return SimulatedRegistry.contentHash(String(decoding: data, as: UTF8.self))
  }

  /// The paths and SHA-256 of a directory's regular files (SaveVault's own folder left out; an
  /// export of registry keys, `user.reg`, by what its keys hold).
  static func files(of root: String) -> [(path: String, sha256: String)] {
    var files: [(path: String, sha256: String)] = []
    func walk(_ relative: String) {
      guard let names = try? Platform.directoryNames(relative.isEmpty ? root : root + "/" + relative) else {
        return
      }
      for name in names {
        let path = relative.isEmpty ? name : relative + "/" + name
        var info = stat()
        guard path != reservedFolder, lstat(root + "/" + path, &info) == 0 else { continue }
        if info.st_mode & S_IFMT == S_IFDIR {
          walk(path)
        } else if info.st_mode & S_IFMT == S_IFREG,
          let hash = name == "user.reg"
            ? SimulatedRegistry.contentHash(ofFile: root + "/" + path) : hashFile(root + "/" + path)
        {
          files.append((path, hash))
        }
      }
    }
    walk("")
    return files
  }

  private static func hashFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_NOFOLLOW)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    let hash = SHA256()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else { return nil }
      if count == 0 { return hash.finalize() }
      buffer.withUnsafeBytes { if let base = $0.baseAddress { hash.update(base, count: count) } }
    }
  }

  /// The state an archive holds, after every check a restore runs (nil when it is refused).
  static func ofArchive(_ path: String) -> String? { factsOfArchive(path)?.state }
}

/// Every save state that can still be had back, and where from: the shared container's
/// archives, each device's pre-restore copies (archives or folders) and pending archives, the folders a restore
/// keeps (`.savevault-kept-*`) or sets aside for the next command to put back or keep
/// (`.savevault-old-*`), and the save directories themselves. Archive digests are cached by
/// path, size and mtime (archives are never rewritten), so each look reads only new ones.
final class RecoverableStates {
  /// Where a state can be had from: digest → places.
  typealias Places = [String: [String]]

  private var archiveCache: [String: SaveState.ArchiveFacts?] = [:]

  /// `lacking`: a device of the scenario lacks the second location, so each archive and copy
  /// also stands for the save of its first location alone (`SaveState.lackingDigest`).
  func collect(container: String, devices: [SimulatedDevice], lacking: Bool = false) -> Places {
    var places: Places = [:]
    func add(_ digest: String?, _ place: String) {
      if let digest { places[digest, default: []].append(place) }
    }
    func addArchive(_ path: String, _ place: String) {
      let facts = archiveFacts(path)
      add(facts?.state, place)
      if lacking { add(facts?.lackingState, place) }
    }
    let folder = container + "/" + SimulatedDevice.game
    for name in archives(in: folder) { addArchive(folder + "/" + name, "container " + name) }
    for device in devices {
      for kind in ["pre-restore", "pending"] {
        let folder = device.dataDirectory + "/" + kind + "/" + SimulatedDevice.game
        for name in archives(in: folder) {
          addArchive(folder + "/" + name, "\(device.name) \(kind) " + name)
        }
        for path in preRestoreFolders(folder) {
          let place = "\(device.name) \(kind) " + (path as NSString).lastPathComponent
          guard lacking else {
            add(SaveState.ofDirectory(path), place)
            continue
          }
          let forms = SaveState.ofDirectoryBothForms(path)
          add(forms.state, place)
          add(forms.lacking, place)
        }
      }
      if device.hasLocations {
        addLocations(of: device, add)
        continue
      }
      for name in (try? Platform.directoryNames(device.savesFolder)) ?? [] {
        let path = device.savesFolder + "/" + name
        if name == SimulatedDevice.game {
          add(SaveState.ofDirectory(path), SimulatedDevice.savePlace(device.name))
        } else if name.hasPrefix(".savevault-kept-") || name.hasPrefix(".savevault-old-") {
          add(SaveState.ofDirectory(path), "\(device.name) \(name)")
        }
      }
    }
    return places
  }

  /// A game of several locations: its save, and each folder a restore kept or set aside beside
  /// a location, with the other locations as they are or as kept or set aside beside them.
  /// (Which aside goes with which is not written down outside SaveVault's journal, so every
  /// combination counts; the save itself is checked never to be a mix.)
  private func addLocations(of device: SimulatedDevice, _ add: (String?, String) -> Void) {
    // A location a half-done restore found missing (nothing to set aside) was empty in the save
    // from before it, whatever the game wrote there since.
    let wereMissing = Set(
      device.restoreJournal?.moves.filter { $0.aside == nil && $0.shape.kind.pattern == nil }.map(\.name)
        ?? [])
    let choices = device.namedLocations.map { location -> [(name: String, path: String)] in
      let parent = (location.path as NSString).deletingLastPathComponent
      let beside = ((try? Platform.directoryNames(parent)) ?? []).filter {
        $0.hasPrefix(".savevault-kept-") || $0.hasPrefix(".savevault-old-")
      }
      // The registry keys' other copies, those that hold what the prefix's file holds left out
      // (they would make the save itself seem to be elsewhere too).
      let live = SaveState.ofLocations([location])
      let others = (location.name == device.registryName ? device.registryAlternatives : []).filter {
        SaveState.ofLocations([(location.name, $0)]) != live
      }
      let empty = wereMissing.contains(location.name) ? [device.root + "/(missing before the restore)"] : []
      return [location]
        + (beside.sorted().map { parent + "/" + $0 } + others + empty).map { (location.name, $0) }
    }
    var combinations: [[(name: String, path: String)]] = [[]]
    for options in choices {
      combinations = combinations.flatMap { prefix in options.map { prefix + [$0] } }
    }
    for combination in combinations {
      let isLive = zip(combination, device.namedLocations).map { $0.path == $1.path }
      let names = combination.map { ($0.path as NSString).lastPathComponent }.joined(separator: " + ")
      // With a location of the save itself: named as the save's (what the game overwrites).
      let place =
        !isLive.contains(false)
        ? SimulatedDevice.savePlace(device.name)
        : isLive.contains(true)
          ? SimulatedDevice.savePlace(device.name) + " with " + names : "\(device.name) " + names
      add(SaveState.ofLocations(combination, patterns: device.patterns), place)
      // A device that lacked the second location had saves of the first alone.
      if device.startedLacking {
        add(SaveState.ofLocations(Array(combination.prefix(1)), lacking: true), place)
      }
    }
  }

  /// The state an archive in the container holds, from the cache when it was read before.
  func archiveDigest(_ path: String) -> String? { archiveFacts(path)?.state }

  /// What an archive holds, from the cache when it was read before.
  func archiveFacts(_ path: String) -> SaveState.ArchiveFacts? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    let key = "\(path)\u{0}\(info.st_size)\u{0}\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    if let cached = archiveCache[key] { return cached }
    let facts = SaveState.factsOfArchive(path)
    archiveCache[key] = facts
    return facts
  }

  /// The archive names in `folder`.
  private func archives(in folder: String) -> [String] {
    ((try? Platform.directoryNames(folder)) ?? []).filter { ArchiveName.isBackupName($0) }
  }
}
