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

  /// The state of a directory, read with Foundation (not with SaveVault's scanner).
  static func ofDirectory(_ root: String) -> String? {
    guard let items = FileManager.default.enumerator(atPath: root) else { return nil }
    var files: [(path: String, sha256: String)] = []
    for case let item as String in items {
      if item == reservedFolder || item.hasPrefix(reservedFolder + "/") { continue }
      var info = stat()
      guard lstat(root + "/" + item, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
        let data = FileManager.default.contents(atPath: root + "/" + item)
      else { continue }
      let hash = SHA256()
      hash.update(data)
      files.append((item, hash.finalize()))
    }
    return digest(files)
  }

  /// The state an archive holds, after every check a restore runs (nil when it is refused).
  static func ofArchive(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    guard
      let extraction = try? Extractor(limits: ExtractionLimits()).extract(
        fd: fd, archiveName: (path as NSString).lastPathComponent, into: nil)
    else { return nil }
    return digest(
      extraction.entries.filter { $0.kind == .file }.map { ($0.path, $0.sha256 ?? "") })
  }
}

/// Every save state that can still be had back, and where from: the shared container's
/// archives, each device's pre-restore copies and pending archives, the folders a restore
/// keeps (`.savevault-kept-*`) or sets aside for the next command to put back or keep
/// (`.savevault-old-*`), and the save directories themselves. Archive digests are cached by
/// path, size and mtime (archives are never rewritten), so each look reads only new ones.
final class RecoverableStates {
  /// Where a state can be had from: digest → places.
  typealias Places = [String: [String]]

  private var archiveCache: [String: String?] = [:]

  func collect(container: String, devices: [SimulatedDevice]) -> Places {
    var places: Places = [:]
    func add(_ digest: String?, _ place: String) {
      if let digest { places[digest, default: []].append(place) }
    }
    for path in archives(in: container + "/" + SimulatedDevice.game) {
      add(archiveDigest(path), "container " + (path as NSString).lastPathComponent)
    }
    for device in devices {
      for folder in ["pre-restore", "pending"] {
        for path in archives(in: device.dataDirectory + "/" + folder + "/" + SimulatedDevice.game) {
          add(archiveDigest(path), "\(device.name) \(folder) " + (path as NSString).lastPathComponent)
        }
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

  /// The state an archive in the container holds, from the cache when it was read before.
  func archiveDigest(_ path: String) -> String? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    let key = "\(path)\u{0}\(info.st_size)\u{0}\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    if let cached = archiveCache[key] { return cached }
    let digest = SaveState.ofArchive(path)
    archiveCache[key] = digest
    return digest
  }

  private func archives(in folder: String) -> [String] {
    ((try? Platform.directoryNames(folder)) ?? []).filter { ArchiveName.isBackupName($0) }.sorted()
      .map { folder + "/" + $0 }
  }
}
