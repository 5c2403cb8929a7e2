import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A game's Wine prefixes in use: a restore of their registry keys waits for none, and the
/// sync after a game waits until Wine lets go of them.
extension Vault {
  /// Refuses the restore (`VaultError.prefixInUse`, exit 6) before anything changes when a
  /// prefix whose registry keys the game has is in use: a `wineserver` of that prefix runs (its
  /// socket, `/tmp/.wine-<uid>/server-<device>-<inode>/socket`, is there) or a process runs
  /// with `WINEPREFIX` naming it.
  func checkPrefixesIdle(_ target: Target) throws {
    for registry in Set(target.locations.compactMap(\.registrySource?.prefix)) {
      if let holder = Self.prefixHolder(registry) {
        throw VaultError.prefixInUse(game: target.game, prefix: registry, holder: holder)
      }
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
    let prefixes = Set(target.locations.compactMap(\.registrySource?.prefix)).sorted()
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
}
