import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One save a restore replaced, as `list --pre-restore` shows it.
public struct PreRestoreListing: Codable, Sendable, Equatable {
  public enum Kind: String, Codable, Sendable {
    /// The replaced save folder itself, moved into the pre-restore folder (or kept beside the
    /// save directory when nothing else could hold it).
    case folder
    /// A plain tar packed from it (the save was on another filesystem).
    case tar
  }
  public var name: String
  /// Where it is.
  public var path: String
  public var kind: Kind
  /// When it was kept, in epoch ms.
  public var modifiedMs: Int64
  /// The bytes of its files (a tar's own size).
  public var bytes: Int64
  /// Whether `restore --undo` puts this one back.
  public var isUndo: Bool
}

/// `list --pre-restore`'s answer: a game's pre-restore copies, newest first.
public struct PreRestoreReport: Codable, Sendable, Equatable {
  public var game: String
  /// The folder that holds them (copies kept beside the save directory are elsewhere).
  public var directory: String
  public var copies: [PreRestoreListing]
}

extension Vault {
  /// The saves this device's restores replaced, newest first. Reads only this device's files.
  public func listPreRestore(_ target: Target) -> PreRestoreReport {
    let copies = preRestoreCopies(of: target)
    let undo = undoPointCopy(target, copies: copies)
    return PreRestoreReport(
      game: target.game, directory: preRestoreStore().root + "/" + target.game,
      copies: copies.map { copy in
        var info = stat()
        let bytes =
          copy.isFolder
          ? ((try? SaveScan.scan(copy.path))??.byteCount ?? 0)
          : (lstat(copy.path, &info) == 0 ? Int64(info.st_size) : 0)
        return PreRestoreListing(
          name: copy.name, path: copy.path, kind: copy.isFolder ? .folder : .tar, modifiedMs: copy.modifiedMs,
          bytes: bytes, isUndo: copy.name == undo)
      })
  }

  /// Deletes this game's pre-restore copies but the newest `keep` (at least 1) and the one
  /// `restore --undo` would put back. Only when the player asks (`prune --keep-pre-restore`):
  /// a copy may be the only one of a save. Returns the names deleted and kept.
  public func prunePreRestore(_ target: Target, keep: Int) throws -> (deleted: [String], kept: [String]) {
    guard keep >= 1 else {
      throw ConfigError.invalid("the number of pre-restore copies to keep must be at least 1")
    }
    let held = try lock(target, purpose: "prune")
    defer { withExtendedLifetime(held) {} }
    try recoverInterruptedRestore(target)
    let copies = preRestoreCopies(of: target)
    let undo = undoPointCopy(target, copies: copies)
    var deleted: [String] = []
    for copy in copies.dropFirst(keep) where copy.name != undo {
      removeTree(copy.path)
      verbose("deleted the pre-restore copy '\(copy.path)'")
      deleted.append(copy.name)
    }
    try? Platform.syncDirectory(preRestoreStore().root + "/" + target.game)
    let gone = Set(deleted)
    return (deleted, copies.map(\.name).filter { !gone.contains($0) })
  }

  /// The name of the copy among `copies` that `restore --undo` would put back: the one its undo
  /// point names, else the newest.
  private func undoPointCopy(_ target: Target, copies: [PreRestoreCopy]) -> String? {
    guard let point = undoJournal.load(game: target.game) else { return copies.first?.name }
    return point.copy ?? point.keptFolder.map { ($0 as NSString).lastPathComponent }
  }
}
