/// Failures while reading the live save folder, converted from `errno` where they happen.
public enum SaveFolderError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The save folder's own path could not be resolved (a parent unreadable, a symlink loop).
  case unresolvable(path: String, reason: String)
  /// The save folder is a file, not a folder.
  case notDirectory(path: String)
  /// A folder or file of the save folder could not be read.
  case unreadable(path: String, reason: String)

  public var description: String {
    switch self {
    case .unresolvable(let path, let reason):
      "'\(path)': \(reason)"
    case .notDirectory(let path):
      "save directory '\(path)' is not a directory"
    case .unreadable(let path, let reason):
      "cannot read '\(path)': \(reason); check its permissions, or close the game and retry"
    }
  }
}
