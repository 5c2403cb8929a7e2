import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One file as a container lists it: its name and what the storage says about it. What the
/// name means (whether it is a backup, when it was made, on which device) is the archive
/// catalog's to say.
public struct ContainerFile: Sendable, Equatable {
  /// What the storage calls one stored content of a name (S3's ETag): another upload stored
  /// under the same name has another version. Opaque; compared, never parsed.
  public struct Version: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
  }

  /// The file name.
  public var name: String
  /// Its size in bytes.
  public var size: Int64
  /// When the storage last modified it, in epoch milliseconds (a folder's mtime, S3's
  /// `LastModified`, rclone's `ModTime`; 0 when the storage does not say).
  public var modifiedMs: Int64
  /// Which stored content this is, where the storage says (S3's ETag of a single PUT); nil
  /// when it does not.
  public var version: Version?
  /// Container-specific facts (for a folder, its path; for S3, its key).
  public var metadata: [String: String]

  public init(
    name: String, size: Int64, modifiedMs: Int64, version: Version? = nil, metadata: [String: String] = [:]
  ) {
    self.name = name
    self.size = size
    self.modifiedMs = modifiedMs
    self.version = version
    self.metadata = metadata
  }

  /// Whether a container can store a file named `name`: 1 to 255 bytes, without `/` or NUL,
  /// and not hidden (`.…` names are the containers' own temporary and probe files, which no
  /// listing returns). Every container refuses other names (`ContainerError.refusedName`), so
  /// a name never reaches outside the game's folder.
  public static func isStorable(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.count <= 255 && !name.hasPrefix(".") && !name.contains("/")
      && !name.contains("\0")
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

  /// Every stored file of `game`, in no particular order, as the storage describes it: plain
  /// files, whatever their names (which archives they are is the archive catalog's to say),
  /// never the container's own hidden temporary or probe files. A game never backed up gives
  /// `[]`; an unreachable container throws `.unavailable`. Never returns a partial listing,
  /// and never a file whose upload has not finished.
  func list(game: String) throws -> [ContainerFile]

  /// Stores a new archive atomically: `body` writes the whole archive to the file descriptor
  /// it is given and returns the byte count. Nothing is visible under `name` until every byte
  /// is stored and flushed; a failed or interrupted upload leaves nothing under `name`.
  /// Never replaces an existing archive (`.alreadyExists`); refuses a name that is not
  /// `ContainerFile.isStorable` (`.refusedName`) before `body` runs.
  @discardableResult
  func upload(game: String, name: String, body: (Int32) throws -> Int64) throws -> ContainerFile

  /// Opens `name` for reading and hands `body` a file descriptor positioned at its start.
  /// Throws `.notFound` if there is no such archive (nor can there be: a name that is not
  /// storable).
  func read<Result>(game: String, name: String, body: (Int32) throws -> Result) throws -> Result

  /// `read`, where `body` needs only the first `count` bytes: a container that can fetch a
  /// part of an archive (S3's ranged GET) fetches no more; the others give the whole. A
  /// `count` past the end gives the whole archive (nothing, for an empty one).
  func readStart<Result>(game: String, name: String, count: Int, body: (Int32) throws -> Result) throws
    -> Result

  /// Deletes one archive. Throws `.notFound` if there is no such archive.
  func delete(game: String, name: String) throws

  /// Checks that the container accepts writes: stores a small probe object at its root under
  /// a name no listing returns (`.savevault-probe-…`, never `packsave-*`), then removes it.
  /// Throws `.unavailable` (or `.noSpace`) when it cannot write or remove the probe. A folder
  /// that is created on first use is checked through its nearest existing parent instead.
  func checkWritable() throws -> WriteCheck

  /// Whether `upload` hands `body` the archive's own file on a disk of this machine, flushed
  /// once written (a folder), rather than a copy that goes elsewhere: a writer may then start
  /// the disk on the data while it writes. False unless a container says so.
  var flushesUploadsToLocalDisk: Bool { get }
}

extension Container {
  public var flushesUploadsToLocalDisk: Bool { false }

  public func readStart<Result>(game: String, name: String, count: Int, body: (Int32) throws -> Result)
    throws -> Result
  {
    try read(game: game, name: name, body: body)
  }
}

/// What `Container.checkWritable()` learned besides that writing works.
public struct WriteCheck: Sendable, Equatable {
  /// How far this machine's clock is ahead of the server's in milliseconds (negative: behind),
  /// when the container answers with its time (S3's `Date` header); nil otherwise.
  public var clockOffsetMs: Int64?

  public init(clockOffsetMs: Int64? = nil) { self.clockOffsetMs = clockOffsetMs }

  /// What a probe object holds.
  static let probeText = "savevault probe\n"

  /// A new name for a probe object: hidden, random, never a backup's name.
  static func probeName() -> String { ".savevault-probe-" + UUID().uuidString.lowercased() }
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
