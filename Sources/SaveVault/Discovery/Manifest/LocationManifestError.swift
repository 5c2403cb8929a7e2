/// Why the save-location manifest could not be had.
public enum LocationManifestError: Error, Equatable, Sendable, CustomStringConvertible {
  /// A manifest file named by `setting` (SAVEVAULT_MANIFEST, the config's `manifest`) does not
  /// exist or cannot be read.
  case unreadable(path: String, setting: String, reason: String)
  /// A manifest file that is not a manifest.
  case malformed(path: String, YAMLError)
  /// No copy anywhere, and the download failed (or was not tried).
  case unavailable(url: String, reason: String)

  public var description: String {
    switch self {
    case .unreadable(let path, let setting, let reason):
      "the save-location manifest '\(path)' (from \(setting)) cannot be read: \(reason)"
    case .malformed(let path, let error):
      "the save-location manifest '\(path)' is not a manifest: \(error)"
    case .unavailable(let url, let reason):
      "no save-location manifest: none is cached and '\(url)' could not be downloaded (\(reason)). Run 'savevault manifest update' when online, or set SAVEVAULT_MANIFEST to a copy of Ludusavi's manifest.yaml"
    }
  }
}

extension LocationManifestError: ExitStatusProviding {
  public var exitStatus: ExitStatus {
    switch self {
    case .unreadable: .usage
    case .malformed: .failure
    case .unavailable: .containerUnavailable
    }
  }
}
