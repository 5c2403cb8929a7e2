/// Failures while packing a save directory or reading an archive.
public enum ArchiveError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The archive was refused: corrupt, truncated, hostile or over a limit. Nothing was
  /// extracted into the save directory.
  case refused(archive: String, reason: String)
  /// A file of the save directory could not be read while packing.
  case unreadable(path: String, reason: String)
  /// A file changed while it was being packed (the game is still writing). The pack is
  /// abandoned so that no torn copy is stored; the caller may try again.
  case changedWhileReading(path: String)
  /// libarchive or the local filesystem failed while writing an archive or staging directory.
  case writeFailed(path: String, reason: String)
  /// The local disk filled up. Never retried.
  case noSpace(path: String)
  /// What a restore would extract does not fit the free space beside the save directory
  /// (measured before it starts); nothing was extracted.
  case tooLittleSpace(path: String, needed: Int64, free: Int64, kept: Int64)

  public var description: String {
    switch self {
    case .refused(let archive, let reason):
      "archive '\(archive)' refused: \(reason); nothing in the save directory was changed"
    case .unreadable(let path, let reason):
      "cannot read '\(path)': \(reason); check its permissions, or close the game and retry"
    case .changedWhileReading(let path):
      "'\(path)' kept changing while it was being backed up (is the game still writing?); close the game and retry"
    case .writeFailed(let path, let reason):
      "cannot write '\(path)': \(reason)"
    case .noSpace(let path):
      "no space left on the device holding '\(path)': free some space and retry"
    case .tooLittleSpace(let path, let needed, let free, let kept):
      "the restore needs \(needed) bytes beside '\(path)', which has \(free) free (SaveVault keeps \(kept) of them free for the filesystem): nothing was restored; free some space and retry"
    }
  }
}

extension ArchiveError: ExitStatusProviding {
  public var exitStatus: ExitStatus {
    if case .refused = self { return .archiveRefused }
    return .failure
  }
}
