import Foundation

/// One kind of container as a URL names it: its scheme, how a URL of it is parsed, its one
/// spelling, and how help names it. `ContainerKind.all` is the registry that parsing and the
/// `--container` help read; the vault's half of each entry (making the container, doctor's
/// checks) is `ContainerSupport`, which a test keeps in step with this one.
public struct ContainerKind: Sendable {
  /// The kind's name (`folder`, `s3`, `rclone`), which `ContainerSupport` is looked up by.
  public let name: String
  /// What a URL of this kind starts with (`file://`, `s3://`, `rclone:`).
  public let scheme: String
  /// How help spells a URL of this kind in full (`s3://bucket/prefix`).
  public let help: String
  /// How help names it in a short list (`a folder`).
  public let summary: String
  /// A URL of this kind, for tests (it parses to a location of this kind).
  public let example: String
  /// Parses `text`, a URL that starts with `scheme`; `resolve` makes a path absolute
  /// (relative to the current directory, `~` to the home directory).
  let parse:
    @Sendable (_ text: String, _ resolve: (String) -> String) throws(ConfigError) -> ContainerLocation
  /// The one spelling of `location` (`file:///a/b` for `/a/b/`), or nil when it is not of
  /// this kind.
  let canonical: @Sendable (ContainerLocation) -> String?

  /// Every kind a container URL may name, in the order help lists them. A URL without a scheme
  /// is a folder's path.
  public static let all: [ContainerKind] = [.folder, .s3, .rclone]

  /// The kinds as `--container`'s help lists them: `a folder (a path or file:///path),
  /// s3://bucket/prefix, or rclone:REMOTE:path`.
  public static var helpList: String { list(all.map(\.help), finalComma: true) }
  /// The kinds as a short help lists them: `a folder, s3://bucket/prefix or rclone:REMOTE:path`.
  public static var summaryList: String { list(all.map(\.summary), finalComma: false) }

  /// `a, b, or c` (`a, b or c` without the final comma).
  static func list(_ items: [String], finalComma: Bool) -> String {
    guard let last = items.last, items.count > 1 else { return items.first ?? "" }
    return items.dropLast().joined(separator: ", ") + (finalComma ? ", or " : " or ") + last
  }
}

extension ContainerKind {
  /// A folder: a path, or `file:///path`.
  static let folder = ContainerKind(
    name: "folder", scheme: "file://", help: "a folder (a path or file:///path)", summary: "a folder",
    example: "file:///mnt/nas/saves",
    parse: { text, resolve throws(ConfigError) in
      guard text.hasPrefix("file://") else { return .folder(path: resolve(text)) }
      let rest = String(text.dropFirst("file://".count))
      guard rest.hasPrefix("/") else {
        throw .invalidContainerURL(text, reason: "a file URL needs an absolute path: file:///path")
      }
      guard let decoded = rest.removingPercentEncoding else {
        throw .invalidContainerURL(text, reason: "it has a malformed %-escape")
      }
      return .folder(path: resolve(decoded))
    },
    canonical: { location in
      if case .folder(let path) = location { "file://" + path } else { nil }
    })

  /// An S3-compatible bucket: `s3://bucket/prefix`.
  static let s3 = ContainerKind(
    name: "s3", scheme: "s3://", help: "s3://bucket/prefix", summary: "s3://bucket/prefix",
    example: "s3://bucket/some/prefix",
    parse: { text, _ throws(ConfigError) in
      let rest = text.dropFirst("s3://".count)
      let parts = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
      guard let bucket = parts.first, !bucket.isEmpty else {
        throw .invalidContainerURL(text, reason: "it names no bucket: s3://bucket/prefix")
      }
      let prefix = parts.count > 1 ? String(parts[1]).trimmingCharacters(in: ["/"]) : ""
      return .s3(bucket: String(bucket), prefix: prefix)
    },
    canonical: { location in
      if case .s3(let bucket, let prefix) = location { "s3://" + bucket + "/" + prefix } else { nil }
    })

  /// Any rclone remote: `rclone:REMOTE:path`.
  static let rclone = ContainerKind(
    name: "rclone", scheme: "rclone:", help: "rclone:REMOTE:path", summary: "rclone:REMOTE:path",
    example: "rclone:gdrive:Saves/Games",
    parse: { text, _ throws(ConfigError) in
      let rest = text.dropFirst("rclone:".count)
      guard let colon = rest.firstIndex(of: ":"), colon != rest.startIndex else {
        throw .invalidContainerURL(text, reason: "write it as rclone:REMOTE:path")
      }
      return .rclone(remote: String(rest[..<colon]), path: String(rest[rest.index(after: colon)...]))
    },
    canonical: { location in
      if case .rclone(let remote, let path) = location { "rclone:" + remote + ":" + path } else { nil }
    })
}
