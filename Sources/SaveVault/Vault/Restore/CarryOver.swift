import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a save directory holds that no archive can: symlinks leading outside it (a Proton or
/// Dropbox layout links `Documents` elsewhere) and FIFOs. They are no part of any backup, so a
/// restore, which swaps whole folders, would take them out of the save. Instead a restore
/// makes them again in the folder it swaps in, at the same paths (unless the archive brought
/// something there), and the replaced folder holding them is then kept like any other.
/// Sockets and devices cannot be made again: a folder holding them stays beside the save.
extension Vault {
  /// Makes in `staging` the entries `skipped` names in the save directory `save` that an
  /// archive cannot hold: symlinks with the same target, FIFOs with the same mode, with any
  /// folder they need. Never replaces what the archive extracted. Returns the folders it made.
  @discardableResult
  func carryOver(_ skipped: [(path: String, reason: String)], from save: String, into staging: String)
    -> [String]
  {
    var made: [String] = []
    for (path, _) in skipped {
      guard let kind = Self.carriedKind(path, under: save), !Self.exists(path, under: staging) else {
        continue
      }
      made += Self.makeParents(of: path, under: staging)
      let isMade = RawName.withCString(path, under: staging) { made in
        switch kind {
        case .symlink(let target): RawName.withCString(target) { symlink($0, made) } == 0
        // Made under the umask: its mode is set after, as it was.
        case .fifo(let mode): mkfifo(made, mode) == 0 && chmod(made, mode) == 0
        }
      }
      if !isMade {
        context.log.warning(
          "could not keep '\(path)' in the restored save (\(Platform.describe(errno: errno))); it stays in the replaced one"
        )
      } else {
        verbose("kept '\(path)' (\(kind)) in the restored save: no archive holds it")
      }
    }
    return made
  }

  /// Whether every entry `skipped` names in `folder` is in `save` just as it is in `folder`
  /// (the same symlink target, a FIFO): carried over, so that `folder` holds no longer
  /// anything that is nowhere else.
  func isCarried(_ skipped: [(path: String, reason: String)], from folder: String, into save: String) -> Bool
  {
    skipped.allSatisfy { entry in
      guard let kind = Self.carriedKind(entry.path, under: folder) else { return false }
      return Self.carriedKind(entry.path, under: save) == kind
    }
  }

  /// An entry that can be made again, as it is at `path`.
  private enum CarriedKind: Equatable, CustomStringConvertible {
    case symlink(String)
    case fifo(mode_t)

    var description: String {
      switch self {
      case .symlink(let target): "a symlink to '\(target)'"
      case .fifo: "a FIFO"
      }
    }
  }

  /// What `path` (save-relative, `RawName`) is under `root`, if it can be made again.
  private static func carriedKind(_ path: String, under root: String) -> CarriedKind? {
    RawName.withCString(path, under: root) { full in
      var info = stat()
      guard lstat(full, &info) == 0 else { return nil }
      switch info.st_mode & S_IFMT {
      case S_IFLNK:
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(full, &buffer, buffer.count - 1)
        guard count >= 0 else { return nil }
        return .symlink(RawName.string(buffer[0..<count].map { UInt8(bitPattern: $0) }))
      case S_IFIFO: return .fifo(info.st_mode & 0o777)
      default: return nil
      }
    }
  }

  private static func exists(_ path: String, under root: String) -> Bool {
    RawName.withCString(path, under: root) { full in
      var info = stat()
      return lstat(full, &info) == 0
    }
  }

  /// Makes the folders `path` (save-relative) needs under `root`, as the umask lets them be.
  private static func makeParents(of path: String, under root: String) -> [String] {
    EntryPolicy.ancestors(of: path).filter { folder in
      !exists(folder, under: root) && RawName.withCString(folder, under: root) { mkdir($0, 0o777) } == 0
    }
  }
}
