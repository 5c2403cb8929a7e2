import Foundation

/// A parsed container URL.
///
/// - a path or `file:///path`: a folder (iCloud Drive, Dropbox, Syncthing, a NAS mount);
/// - `s3://bucket/prefix`: an S3-compatible bucket;
/// - `rclone:REMOTE:path`: any rclone remote.
public enum ContainerLocation: Sendable, Equatable {
  case folder(path: String)
  case s3(bucket: String, prefix: String)
  case rclone(remote: String, path: String)

  /// The kind of container this is: the one place that names every case, so that a new case
  /// without a kind does not compile.
  public var kind: ContainerKind {
    switch self {
    case .folder: .folder
    case .s3: .s3
    case .rclone: .rclone
    }
  }

  /// One spelling per location (`/a/b/`, `/a/b` and `file:///a/b` are the same folder), for
  /// keys such as the agreement's.
  public var canonical: String { kind.canonical(self) ?? "" }

  /// Parses `text` by the kind its scheme names (`ContainerKind.all`), a folder when it has
  /// none; relative folder paths are resolved against `currentDirectory`, `~` against `home`.
  /// Pure. Throws `ConfigError.invalidContainerURL` for unusable URLs.
  public static func parse(_ text: String, currentDirectory: String, home: String)
    throws(ConfigError) -> ContainerLocation
  {
    guard !text.isEmpty else { throw .invalidContainerURL(text, reason: "it is empty") }
    let context = Context(
      environment: [:], currentDirectory: currentDirectory, clock: { 0 }, log: .silent,
      hostName: "")
    let resolve = { (path: String) in absolute(path, context: context, home: home) }
    if let kind = ContainerKind.all.first(where: { text.hasPrefix($0.scheme) }) {
      return try kind.parse(text, resolve)
    }
    if let scheme = text.range(of: "://") {
      let schemes = ContainerKind.list(["a path"] + ContainerKind.all.map(\.scheme), finalComma: false)
      throw .invalidContainerURL(
        text, reason: "unknown scheme '\(text[..<scheme.lowerBound])': use \(schemes)")
    }
    return try ContainerKind.folder.parse(text, resolve)
  }
}
