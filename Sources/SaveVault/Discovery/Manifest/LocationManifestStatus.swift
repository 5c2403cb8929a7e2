/// Which save-location manifest is used, from where, and how current it is.
public struct LocationManifestStatus: Sendable, Equatable, Codable {
  /// Where the manifest came from, first found wins.
  public enum Source: String, Sendable, Equatable, Codable {
    /// `SAVEVAULT_MANIFEST`: a file used as it is.
    case environment
    /// The config file's `manifest`: a file, or a URL downloaded to the cache.
    case config
    /// SaveVault's own copy of Ludusavi's manifest in its cache.
    case download
    /// Ludusavi's own cached copy.
    case ludusavi
  }

  public var source: Source
  /// The file read.
  public var path: String
  /// The URL it is downloaded from (nil for a file used as it is).
  public var url: String?
  /// How old the copy is: since it was last downloaded, else since the file last changed.
  public var ageMs: Int64?
  /// When the server was last asked (downloaded copies).
  public var checkedMs: Int64?
  /// The games it holds (aliases and secondary manifests' games included).
  public var games: Int
  /// The ETag of the downloaded copy.
  public var etag: String?
  /// The secondary manifests merged in (files read).
  public var secondary: [String]
}

/// What `Vault.updateManifest` did.
public struct LocationManifestUpdate: Sendable, Equatable {
  public enum Outcome: Sendable, Equatable {
    /// A new copy was downloaded.
    case updated
    /// The server said the copy is current (HTTP 304).
    case unchanged
    /// Not asked for: the copy was checked less than a day ago, or a download failed less
    /// than an hour ago (`manifest update --if-stale`).
    case notDue
    /// The download failed; the copy there was (if any) is kept.
    case failed(reason: String)
    /// The manifest is a file used as it is (`SAVEVAULT_MANIFEST`, a path in the config).
    case notDownloaded
  }

  public var outcome: Outcome
  /// The manifest now used; nil when there is none at all.
  public var status: LocationManifestStatus?
  /// Why there is none, when `status` is nil.
  public var error: LocationManifestError?
}
