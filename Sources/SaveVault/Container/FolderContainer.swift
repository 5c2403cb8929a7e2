import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A container that is a folder: iCloud Drive, Dropbox, Syncthing, a NAS mount, or the
/// embedded default under `$XDG_DATA_HOME/savevault/container`.
///
/// Uploads go to a hidden temporary file in the game's folder, are flushed, and are then
/// linked under their final name (never replacing one), and the folder is flushed.
/// Temporary files are named after the device, the machine and the process that write them:
/// this machine's for the device whose process is gone, and anyone's older than an hour, are
/// left-overs of killed runs and are removed by the next upload to the game's folder.
public struct FolderContainer: Container {
  /// Who may read the archives a folder stores.
  public enum Sharing: Sendable, Equatable {
    /// `0600`: SaveVault's own stores on this device (pre-restore copies, pending archives).
    case ownerOnly
    /// `0666` less the umask, as `tar` creates files: the users who share a container folder
    /// read its archives as they read any other file there.
    case followsUmask
  }

  /// The folder's absolute path.
  public let root: String
  public let displayName: String
  /// Whether the root folder may be created (only for the embedded default).
  public let createsRoot: Bool
  public let sharing: Sharing

  static let temporaryPrefix = ".savevault-tmp-"
  static let staleTemporaryAgeSeconds = 3600

  public init(
    root: String, displayName: String? = nil, createsRoot: Bool = false, sharing: Sharing = .ownerOnly
  ) {
    self.root = root
    self.displayName = displayName ?? root
    self.createsRoot = createsRoot
    self.sharing = sharing
  }

  public func probe() throws {
    var info = stat()
    if stat(root, &info) != 0 {
      let code = errno
      if code == ENOENT && createsRoot { return }  // created by the first upload
      throw ContainerError.unavailable(
        container: displayName,
        cause: code == ENOENT
          ? .missing(
            reason:
              "folder '\(root)' does not exist: mount the drive it is on, or, if it is not on one, create it to start using it"
          )
          : .other("folder '\(root)': \(Platform.describe(errno: code))"))
    }
    guard info.st_mode & S_IFMT == S_IFDIR else {
      throw ContainerError.unavailable(container: displayName, reason: "'\(root)' is not a folder")
    }
    guard access(root, R_OK | X_OK) == 0 else {
      throw ContainerError.unavailable(
        container: displayName, reason: "folder '\(root)' cannot be read: check its permissions")
    }
  }

  /// The archive is written into its temporary file in the folder itself, flushed before it
  /// is renamed into place.
  public var flushesUploadsToLocalDisk: Bool { true }

  public func list(game: String) throws -> [ContainerFile] {
    try probe()
    let folder = root + "/" + game
    let names: [String]
    do {
      names = try Platform.directoryNames(folder)
    } catch {
      if error.code == ENOENT { return [] }
      throw ContainerError.unavailable(
        container: displayName, reason: "cannot list '\(folder)': \(Platform.describe(errno: error.code))")
    }
    var files: [ContainerFile] = []
    for name in names {
      guard ContainerFile.isStorable(name) else { continue }  // a temporary of an upload under way
      var info = stat()
      guard lstat(folder + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
      files.append(
        ContainerFile(
          name: name, size: Int64(info.st_size), modifiedMs: FileTimes.modifiedMs(info),
          metadata: ["path": folder + "/" + name]))
    }
    return files
  }

  @discardableResult
  public func upload(game: String, name: String, body: (Int32) throws -> Int64) throws
    -> ContainerFile
  {
    guard ContainerFile.isStorable(name) else {
      throw ContainerError.refusedName(container: displayName, name: name)
    }
    try probe()
    let folder = root + "/" + game
    try makeDirectory(folder)
    let device = ArchiveName(parsing: name)?.device ?? "unnamed"
    removeStaleTemporaries(in: folder, device: device)
    let fd: Int32
    let temporary: String
    do {
      (fd, temporary) = try Platform.makeTemporaryFile(
        prefix: folder + "/" + Self.temporaryPrefix + Self.owner(device) + "." + String(getpid()) + "-")
    } catch {
      throw failure(error.code, "create a temporary file in '\(folder)'", name)
    }
    var isStored = false
    defer {
      if !isStored { unlink(temporary) }
    }
    do {
      defer { close(fd) }
      // The temporary is made 0600. Best effort: a filesystem without permissions (exFAT) or
      // a mount that refuses chmod keeps its own, and the archive is stored all the same.
      if sharing == .followsUmask { _ = fchmod(fd, 0o666 & ~Platform.umask()) }
      let written: Int64
      do {
        written = try body(fd)
      } catch ArchiveError.noSpace {
        throw ContainerError.noSpace(container: displayName)
      }
      var info = stat()
      guard fstat(fd, &info) == 0, Int64(info.st_size) == written else {
        throw ContainerError.transferFailed(
          container: displayName, name: name,
          reason: "wrote \(written) bytes but the file holds \(Int64(info.st_size))")
      }
      guard fsync(fd) == 0 else { throw failure(errno, "flush '\(temporary)'", name) }
    }
    do {
      try Platform.moveNoReplace(from: temporary, to: folder + "/" + name)
    } catch {
      if error.code == EEXIST { throw ContainerError.alreadyExists(container: displayName, name: name) }
      throw failure(error.code, "store '\(name)'", name)
    }
    isStored = true
    // The archive's own time, once it has its name: while it is a temporary, its modification
    // time is what tells a killed upload's leftover (over an hour old) from one being written,
    // and an archive's time can be hours old (a pending archive) or behind (a slow clock).
    if let parsed = ArchiveName(parsing: name) {
      FileTimes.setModified(path: folder + "/" + name, ms: parsed.createdMs)
    }
    do {
      try Platform.syncDirectory(folder)
    } catch {
      throw failure(error.code, "flush the folder '\(folder)'", name)
    }
    var info = stat()
    lstat(folder + "/" + name, &info)
    return ContainerFile(
      name: name, size: Int64(info.st_size), modifiedMs: FileTimes.modifiedMs(info),
      metadata: ["path": folder + "/" + name])
  }

  public func read<Result>(game: String, name: String, body: (Int32) throws -> Result) throws
    -> Result
  {
    try probe()
    guard ContainerFile.isStorable(name) else {
      throw ContainerError.notFound(container: displayName, name: name)
    }
    let path = root + "/" + game + "/" + name
    let fd = open(path, O_RDONLY | O_NOFOLLOW)
    guard fd >= 0 else {
      let code = errno
      if code == ENOENT { throw ContainerError.notFound(container: displayName, name: name) }
      throw failure(code, "open '\(path)'", name)
    }
    defer { close(fd) }
    return try body(fd)
  }

  public func delete(game: String, name: String) throws {
    try probe()
    guard ContainerFile.isStorable(name) else {
      throw ContainerError.notFound(container: displayName, name: name)
    }
    let folder = root + "/" + game
    guard unlink(folder + "/" + name) == 0 else {
      let code = errno
      if code == ENOENT { throw ContainerError.notFound(container: displayName, name: name) }
      throw failure(code, "delete '\(name)'", name)
    }
    try? Platform.syncDirectory(folder)
  }

  public func checkWritable() throws -> WriteCheck {
    try probe()
    var folder = root
    var info = stat()
    if stat(root, &info) != 0 {
      // The embedded default, not made yet: its first upload creates it in a parent.
      while stat(folder, &info) != 0 && folder != "/" {
        folder = (folder as NSString).deletingLastPathComponent
      }
      guard access(folder, W_OK | X_OK) == 0 else {
        throw ContainerError.unavailable(
          container: displayName,
          reason: "folder '\(root)' cannot be created: '\(folder)' is not writable; check its permissions")
      }
      return WriteCheck()
    }
    let probe = WriteCheck.probeName()
    let fd: Int32
    let path: String
    do {
      (fd, path) = try Platform.makeTemporaryFile(prefix: root + "/" + probe + "-")
    } catch {
      throw failure(error.code, "write in '\(root)'", probe)
    }
    defer { unlink(path) }
    defer { close(fd) }
    let written = Data(WriteCheck.probeText.utf8).withUnsafeBytes { Platform.writeAll(fd, $0) }
    if let code = written ?? (fsync(fd) == 0 ? nil : errno) {
      throw failure(code, "write in '\(root)'", probe)
    }
    return WriteCheck()
  }

  private func makeDirectory(_ path: String) throws {
    do {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    } catch {
      throw ContainerError.unavailable(
        container: displayName, reason: "cannot create folder '\(path)': \(error.localizedDescription)")
    }
  }

  /// Removes temporary files of killed uploads: `device`'s whose process no longer runs,
  /// and any older than an hour (another device's upload may still be under way).
  private func removeStaleTemporaries(in folder: String, device: String) {
    let now = time(nil)
    for name in (try? Platform.directoryNames(folder)) ?? [] {
      guard name.hasPrefix(Self.temporaryPrefix) else { continue }
      var info = stat()
      let path = folder + "/" + name
      guard lstat(path, &info) == 0 else { continue }
      let isOld = Int64(now) - FileTimes.modifiedMs(info) / 1000 > Self.staleTemporaryAgeSeconds
      if isOld || Self.isOrphan(name.dropFirst(Self.temporaryPrefix.count), device: device) { unlink(path) }
    }
  }

  /// Who writes a temporary: the device and this machine (two machines may carry the same
  /// device name, such as two Steam Decks called `steamdeck`, and must not take each other's
  /// uploads in progress for orphans).
  static func owner(_ device: String) -> String { device + "@" + Platform.machineTag }

  /// Whether a temporary named `<device>@<machine>.<pid>-XXXXXX` is this machine's upload for
  /// `device` and its process is gone.
  static func isOrphan(_ name: Substring, device: String) -> Bool {
    guard let dash = name.lastIndex(of: "-"), let dot = name[..<dash].lastIndex(of: "."),
      name[..<dot] == owner(device), let pid = pid_t(name[name.index(after: dot)..<dash]), pid > 0,
      pid != getpid()
    else { return false }
    return kill(pid, 0) != 0 && errno == ESRCH
  }

  private func failure(_ code: Int32, _ action: String, _ name: String) -> ContainerError {
    if code == ENOSPC || code == EDQUOT { return .noSpace(container: displayName) }
    if code == ENOENT || code == ENOTDIR || code == EACCES || code == EROFS || code == EIO {
      return .unavailable(
        container: displayName, reason: "cannot \(action): \(Platform.describe(errno: code))")
    }
    return .transferFailed(
      container: displayName, name: name, reason: "cannot \(action): \(Platform.describe(errno: code))")
  }
}
