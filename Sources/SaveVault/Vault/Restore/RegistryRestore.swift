import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A restore of registry keys: the location's export is swapped in like a folder, then its keys
/// are merged into the prefix's file.
extension Vault {
  /// Refuses the restore (`VaultError.prefixInUse`, exit 6) before anything changes when a
  /// prefix whose registry keys the game has is in use: a `wineserver` of that prefix runs (its
  /// socket, `/tmp/.wine-<uid>/server-<device>-<inode>/socket`, is there) or a process runs
  /// with `WINEPREFIX` naming it.
  func checkPrefixesIdle(_ target: Target) throws {
    for registry in Set(target.locations.compactMap(\.registry?.prefix)) {
      if let holder = Self.prefixHolder(registry) {
        throw VaultError.prefixInUse(game: target.game, prefix: registry, holder: holder)
      }
    }
  }

  /// Refuses (exit 2) before anything changes to restore registry keys into a prefix that has
  /// no such file yet (a prefix Wine never started): Wine makes the file whole on its first
  /// start, and a file of only the game's keys would stand in its way.
  func checkRegistryFiles(_ target: Target, archive: String, restoring names: [String]) throws {
    for location in target.locations where names.contains(location.name) {
      guard let registry = location.registry, !FileManager.default.fileExists(atPath: registry.file) else {
        continue
      }
      throw VaultError.locationNotHere(
        game: target.game, archive: archive, location: location.name, madeAt: registry.manifestKey,
        why: "the prefix '\(registry.prefix)' has no \(registry.key.file.rawValue) yet: start the game once")
    }
  }

  /// How long the sync after a game waits for Wine to let go of the game's prefix: its
  /// wineserver outlives the game by a few seconds (3 by default) and writes the registry as
  /// it ends.
  static let prefixIdleWait: TimeInterval = 20

  /// Waits, after the game, until no program has a prefix whose registry keys the game has
  /// (at most `prefixIdleWait`), so that the keys backed up are those Wine writes as it ends;
  /// still in use then (another program runs there), they are backed up as they are, said.
  func waitForPrefixesIdle(_ target: Target, warn: (String) -> Void) {
    let prefixes = Set(target.locations.compactMap(\.registry?.prefix)).sorted()
    guard !prefixes.isEmpty else { return }
    let deadline = Date().addingTimeInterval(Self.prefixIdleWait)
    for prefix in prefixes {
      while let holder = Self.prefixHolder(prefix) {
        guard Date() < deadline else {
          warn(
            "the Wine prefix '\(prefix)' is still in use after the game (\(holder)): its registry keys are backed up as they are now"
          )
          break
        }
        usleep(100_000)
      }
    }
  }

  /// What has the prefix in use, in words; nil when nothing does.
  static func prefixHolder(_ prefix: String) -> String? {
    var info = stat()
    if stat(prefix, &info) == 0 {
      let socket =
        "/tmp/.wine-\(getuid())/server-\(String(UInt64(info.st_dev), radix: 16))-\(String(UInt64(info.st_ino), radix: 16))/socket"
      if FileManager.default.fileExists(atPath: socket) { return "its wineserver's socket '\(socket)'" }
    }
    let real = Platform.realPath(prefix) ?? prefix
    // SaveVault itself and what started it (a launcher's script run with the game's
    // environment, `wrap` under Lutris) have the prefix in their environment but no registry.
    let own = ancestors()
    for pid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    where !own.contains(pid) && pid.allSatisfy(\.isNumber) {
      guard let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { continue }
      for entry in environment.split(separator: 0) where entry.starts(with: Array("WINEPREFIX=".utf8)) {
        var value = String(decoding: entry.dropFirst("WINEPREFIX=".utf8.count), as: UTF8.self)
        while value.count > 1 && value.hasSuffix("/") { value.removeLast() }
        if value == prefix || (Platform.realPath(value) ?? value) == real {
          let name = FileManager.default.contents(atPath: "/proc/\(pid)/comm").map {
            String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
          }
          return "process \(pid)\(name.map { " (\($0))" } ?? "") runs in it"
        }
      }
    }
    return nil
  }

  /// This process and the processes it descends from, by pid.
  private static func ancestors() -> Set<String> {
    var pids: Set<String> = []
    var pid = String(getpid())
    while pid != "0", pid != "1", pids.insert(pid).inserted {
      // `/proc/PID/stat`: "PID (NAME) STATE PPID …", NAME possibly holding spaces and ")".
      guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
        let close = data.lastIndex(of: UInt8(ascii: ")"))
      else { break }
      let fields = data[data.index(after: close)...].split(separator: UInt8(ascii: " "))
      guard fields.count > 1 else { break }
      pid = String(decoding: fields[1], as: UTF8.self)
    }
    return pids
  }

  /// Merges each restored registry export of the journal into its prefix's file: the game's
  /// keys (and subkeys) become the export's, those it lacks removed, every other key byte for
  /// byte. The whole file is kept first in `$XDG_DATA_HOME/savevault/registry-before-restore/`,
  /// then the merged one renamed over it. Done again after a kill, it changes nothing more.
  func mergeRegistry(_ journal: RestoreJournal, target: Target) throws {
    for location in target.locations {
      let folders = [location.path, Platform.resolvedPath(location.path)]
      guard let registry = location.registry,
        journal.moves.contains(where: { folders.contains($0.destination) }),
        let (original, merged) = try Self.merged(export: location.path, into: registry)
      else { continue }
      let kept =
        paths.dataDirectory + "/registry-before-restore/" + target.game + "/" + journal.archive + "/"
        + location.name + "-" + registry.key.file.rawValue
      if !FileManager.default.fileExists(atPath: kept) {
        do { try AtomicFile.write(original, to: kept) } catch {
          throw VaultError.preRestoreCopyFailed(
            game: target.game, folder: (kept as NSString).deletingLastPathComponent, reason: "\(error)")
        }
      }
      context.failpoints.reach("restore.registry-merging")
      do { try AtomicFile.write(Data(merged), to: registry.file) } catch {
        throw VaultError.io(path: registry.file, reason: "the restored keys cannot be written: \(error)")
      }
    }
  }

  /// Refuses the restore (exit 1) before anything changes when the disk of a prefix whose keys
  /// it restores has no room for the merged file beside the one it replaces (an SD card full):
  /// the merge comes after every swap, and a save whose files are restored but whose keys are
  /// not would be half of each. `moves` are the restore's, their exports staged.
  func checkRegistryRoom(_ target: Target, moves: [RestoreJournal.Move]) throws {
    for location in target.locations {
      let folders = [location.path, Platform.resolvedPath(location.path)]
      guard let registry = location.registry,
        let move = moves.first(where: { folders.contains($0.destination) }),
        let (_, merged) = try Self.merged(export: move.staging, into: registry),
        let free = Platform.freeBytes(at: registry.prefix)
      else { continue }
      // The merged file is written whole beside the old one before it replaces it; a block
      // or so more for the filesystem's own.
      let needed = Int64(merged.count) + 64 << 10
      if free < needed {
        throw VaultError.io(
          path: registry.file,
          reason:
            "no space left on its device for the restored keys (\(needed) bytes needed, \(free) free): nothing was restored; free some space there and retry"
        )
      }
    }
  }

  /// The prefix's registry file as it is and merged with the export in `folder` (the game's
  /// keys as the export has them, none when it has no file); nil when the prefix has no such
  /// file (left to Wine) or merging changes nothing.
  private static func merged(export folder: String, into registry: RegistrySource) throws -> (Data, [UInt8])?
  {
    let exported = folder + "/" + registry.key.file.rawValue
    let export: WineRegistry?
    do {
      export = try FileManager.default.contents(atPath: exported).map { try WineRegistry.parse($0) }
    } catch {
      throw VaultError.io(path: exported, reason: "the restored registry keys cannot be read: \(error)")
    }
    // A prefix with no such file (checked before the restore began) is left to Wine.
    guard let original = FileManager.default.contents(atPath: registry.file) else { return nil }
    let file: WineRegistry
    do { file = try WineRegistry.parse(original) } catch {
      throw VaultError.io(path: registry.file, reason: "not a Wine registry file SaveVault reads: \(error)")
    }
    // Only the game's keys: an archive's export holding others does not reach the file.
    let sections = export.map(registry.sections(of:)) ?? []
    let merged = file.replacing(keys: registry.key.paths, with: sections).bytes
    return Array(original) == merged ? nil : (original, merged)
  }
}
