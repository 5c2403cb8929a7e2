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

  /// One spelling per location (`/a/b/`, `/a/b` and `file:///a/b` are the same folder), for
  /// keys such as the agreement's.
  public var canonical: String {
    switch self {
    case .folder(let path): "file://" + path
    case .s3(let bucket, let prefix): "s3://" + bucket + "/" + prefix
    case .rclone(let remote, let path): "rclone:" + remote + ":" + path
    }
  }

  /// Parses `text`; relative folder paths are resolved against `currentDirectory`, `~` against
  /// `home`. Pure. Throws `ConfigError.invalidContainerURL` for unusable URLs.
  public static func parse(_ text: String, currentDirectory: String, home: String)
    throws(ConfigError) -> ContainerLocation
  {
    guard !text.isEmpty else { throw .invalidContainerURL(text, reason: "it is empty") }
    let context = Context(
      environment: [:], currentDirectory: currentDirectory, clock: { 0 }, log: .silent,
      hostName: "")
    if text.hasPrefix("file://") {
      let rest = String(text.dropFirst("file://".count))
      guard rest.hasPrefix("/") else {
        throw .invalidContainerURL(text, reason: "a file URL needs an absolute path: file:///path")
      }
      guard let decoded = rest.removingPercentEncoding else {
        throw .invalidContainerURL(text, reason: "it has a malformed %-escape")
      }
      return .folder(path: absolute(decoded, context: context, home: home))
    }
    if text.hasPrefix("s3://") {
      let rest = text.dropFirst("s3://".count)
      let parts = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
      guard let bucket = parts.first, !bucket.isEmpty else {
        throw .invalidContainerURL(text, reason: "it names no bucket: s3://bucket/prefix")
      }
      let prefix = parts.count > 1 ? String(parts[1]).trimmingCharacters(in: ["/"]) : ""
      return .s3(bucket: String(bucket), prefix: prefix)
    }
    if text.hasPrefix("rclone:") {
      let rest = text.dropFirst("rclone:".count)
      guard let colon = rest.firstIndex(of: ":"), colon != rest.startIndex else {
        throw .invalidContainerURL(text, reason: "write it as rclone:REMOTE:path")
      }
      return .rclone(remote: String(rest[..<colon]), path: String(rest[rest.index(after: colon)...]))
    }
    if let scheme = text.range(of: "://") {
      throw .invalidContainerURL(
        text, reason: "unknown scheme '\(text[..<scheme.lowerBound])': use a path, file://, s3:// or rclone:")
    }
    return .folder(path: absolute(text, context: context, home: home))
  }
}
