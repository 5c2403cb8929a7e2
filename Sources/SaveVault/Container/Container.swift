import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One backup as a container lists it.
public struct StoredArchive: Sendable, Equatable {
  /// The file name, `packsave-….tar` or `packsave-….tar.zst`.
  public var name: String
  /// Its size in bytes.
  public var size: Int64
  /// When it was made, in epoch milliseconds: SaveVault's own time from the name (or the
  /// container's metadata), never only the storage's upload time.
  public var modifiedMs: Int64
  /// The device that made it, or nil for an archive another tool put there.
  public var device: String?
  /// Container-specific facts (for a folder, its path).
  public var metadata: [String: String]

  public init(
    name: String, size: Int64, modifiedMs: Int64, device: String?, metadata: [String: String] = [:]
  ) {
    self.name = name
    self.size = size
    self.modifiedMs = modifiedMs
    self.device = device
    self.metadata = metadata
  }
}

/// A place that holds backups: a folder, an S3 bucket, an rclone remote.
///
/// Archives live at `<root>/<game>/<name>`. Every implementation passes the one conformance
/// suite in the tests. Every method throws `ContainerError` for the container's failures and
/// passes the caller's own errors (from `body`) through unchanged.
public protocol Container: Sendable {
  /// The container's URL, for messages.
  var displayName: String { get }

  /// Checks that the container is reachable and usable. A missing or unmounted folder, a
  /// missing bucket or refused credentials throw `.unavailable`, never an empty answer.
  func probe() throws

  /// Every backup of `game` (names `packsave-*.tar` and `packsave-*.tar.zst`), in no
  /// particular order. A game never backed up gives `[]`; an unreachable container throws
  /// `.unavailable`. Never returns a partial listing.
  func list(game: String) throws -> [StoredArchive]

  /// Stores a new archive atomically: `body` writes the whole archive to the file descriptor
  /// it is given and returns the byte count. Nothing is visible under `name` until every byte
  /// is stored and flushed; a failed or interrupted upload leaves nothing under `name`.
  /// Never replaces an existing archive (`.alreadyExists`).
  @discardableResult
  func upload(game: String, name: String, body: (Int32) throws -> Int64) throws -> StoredArchive

  /// Opens `name` for reading and hands `body` a file descriptor positioned at its start.
  /// Throws `.notFound` if there is no such archive.
  func read<Result>(game: String, name: String, body: (Int32) throws -> Result) throws -> Result

  /// Deletes one archive. Throws `.notFound` if there is no such archive.
  func delete(game: String, name: String) throws

  /// Checks that the container accepts writes: stores a small probe object at its root under
  /// a name no listing returns (`.savevault-probe-…`, never `packsave-*`), then removes it.
  /// Throws `.unavailable` (or `.noSpace`) when it cannot write or remove the probe. A folder
  /// that is created on first use is checked through its nearest existing parent instead.
  func checkWritable() throws -> WriteCheck
}

/// What `Container.checkWritable()` learned besides that writing works.
public struct WriteCheck: Sendable, Equatable {
  /// How far this machine's clock is ahead of the server's in milliseconds (negative: behind),
  /// when the container answers with its time (S3's `Date` header); nil otherwise.
  public var clockOffsetMs: Int64?

  public init(clockOffsetMs: Int64? = nil) { self.clockOffsetMs = clockOffsetMs }

  /// A new name for a probe object: hidden, random, never a backup's name.
  static func probeName() -> String { ".savevault-probe-" + UUID().uuidString.lowercased() }
}

extension Container {
  /// The backups of `game` whose names SaveVault made (`ArchiveName` parses them), newest
  /// first (by SaveVault's time, then by name). Only these are ever a game's latest, a
  /// device's, or weighed by a sync or prune.
  public func archivesNewestFirst(game: String) throws -> [StoredArchive] {
    try listSorted(game: game).recognized
  }

  /// Every `packsave-*` file of `game`, split into SaveVault's names (newest first) and the
  /// rest (a stray `packsave-old.tar` put there by hand or by another tool), which can be
  /// listed, verified and restored by name but are never latest.
  public func listSorted(game: String) throws -> (recognized: [StoredArchive], unrecognized: [StoredArchive])
  {
    var recognized: [StoredArchive] = []
    var unrecognized: [StoredArchive] = []
    for archive in try list(game: game) {
      if ArchiveName(parsing: archive.name) != nil {
        recognized.append(archive)
      } else {
        unrecognized.append(archive)
      }
    }
    func newestFirst(_ a: StoredArchive, _ b: StoredArchive) -> Bool {
      a.modifiedMs != b.modifiedMs ? a.modifiedMs > b.modifiedMs : a.name > b.name
    }
    return (recognized.sorted(by: newestFirst), unrecognized.sorted(by: newestFirst))
  }
}

/// An archive written to a local temporary file before it goes to a remote container: the
/// body's byte count is checked against the file, and the file is removed with the value.
final class StagedArchive {
  let fd: Int32
  let path: String
  let size: Int64

  /// Runs `body` into a new temporary file. Throws the body's errors, or `.transferFailed`
  /// when the count it reports is not what the file holds.
  init(container: String, name: String, prefix: String, body: (Int32) throws -> Int64) throws {
    do {
      (fd, path) = try Platform.makeTemporaryFile(prefix: NSTemporaryDirectory() + "/" + prefix)
    } catch {
      throw ArchiveError.writeFailed(
        path: NSTemporaryDirectory(), reason: Platform.describe(errno: error.code))
    }
    let written: Int64
    do {
      written = try body(fd)
    } catch {
      close(fd)
      unlink(path)
      throw error
    }
    size = written
    // From here the value is whole, so `deinit` closes and removes the file if this throws.
    var info = stat()
    guard fstat(fd, &info) == 0, Int64(info.st_size) == size else {
      throw ContainerError.transferFailed(
        container: container, name: name,
        reason: "wrote \(size) bytes but the file holds \(Int64(info.st_size))")
    }
  }

  deinit {
    close(fd)
    unlink(path)
  }

  /// A new, empty temporary file for a download; the caller removes it.
  static func emptyFile(prefix: String) throws -> String {
    do {
      let made = try Platform.makeTemporaryFile(prefix: NSTemporaryDirectory() + "/" + prefix)
      close(made.fd)
      return made.path
    } catch {
      throw ArchiveError.writeFailed(
        path: NSTemporaryDirectory(), reason: Platform.describe(errno: error.code))
    }
  }
}

/// Makes the container for a target.
public enum ContainerFactory {
  /// The container `target` names. The embedded default folder is created by its first
  /// upload; any other folder must already exist (an unmounted drive must not look like an
  /// empty container). S3 credentials are read here, from the environment and the shared
  /// AWS files; their absence is a usage error.
  public static func make(for target: Target, paths: Paths, context: Context) throws(ConfigError)
    -> any Container
  {
    switch target.container {
    case .folder(let path):
      return FolderContainer(
        root: path, displayName: target.containerURL, createsRoot: path == paths.defaultContainer,
        sharing: .followsUmask)
    case .s3(let bucket, let prefix):
      let credentials = try AWSSharedConfig.credentials(environment: context.environment, home: paths.home)
      let container = try S3Container(
        bucket: bucket, prefix: prefix, settings: target.s3, credentials: credentials,
        displayName: target.containerURL, clock: context.clock)
      container.progress = context.reportProgress
      container.checkpoint = { [context] in try context.checkpoint($0) }
      if let mib = context.environment["SAVEVAULT_S3_PART_MIB"].flatMap(Int64.init), mib >= 1 {
        // Smaller parts than the default 16 MiB (S3 wants at least 5, except for the last).
        container.partSize = mib << 20
        container.multipartThreshold = mib << 20
      }
      return container
    case .rclone(let remote, let path):
      return try RcloneContainer(
        remote: remote, path: path, displayName: target.containerURL, environment: context.environment)
    }
  }
}
