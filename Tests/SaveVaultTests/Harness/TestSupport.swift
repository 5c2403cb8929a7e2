import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// A temporary directory owned by one test, removed when the value goes away.
final class TemporaryDirectory: Sendable {
  let path: String
  private let isOwned: Bool

  /// A new folder `savevault-LABEL-…` in `scratch` (a tmpfs where there is one), or with
  /// `durable` in /tmp (a test of flushing to a disk, which a tmpfs does not have).
  init(_ label: String = "test", durable: Bool = false) {
    let root = durable ? "/tmp" : Self.scratch
    guard let made = try? Platform.makeTemporaryDirectory(prefix: root + "/savevault-\(label)-") else {
      fatalError("cannot create a temporary directory in \(root)")
    }
    path = made
    isOwned = true
  }

  /// Where tests' folders go: `SAVEVAULT_TEST_TMP` when set, else /dev/shm when it is a
  /// tmpfs with 4 GiB free (files in memory: no test but the flushing ones is about the disk,
  /// and a loaded machine's disk is what makes them slow), else /tmp.
  static let scratch: String = {
    if let chosen = ProcessInfo.processInfo.environment["SAVEVAULT_TEST_TMP"], !chosen.isEmpty {
      return chosen
    }
    var info = statvfs()
    guard statvfs("/dev/shm", &info) == 0, access("/dev/shm", W_OK) == 0,
      UInt64(info.f_bavail) * UInt64(info.f_frsize) >= 4 << 30
    else { return "/tmp" }
    return "/dev/shm"
  }()

  /// A folder someone else made and removes (a simulation keeps a failed scenario's files).
  init(borrowing path: String) {
    self.path = path
    isOwned = false
  }

  deinit {
    guard isOwned else { return }
    _ = try? runProgram("/bin/chmod", ["-R", "u+rwx", path])
    try? FileManager.default.removeItem(atPath: path)
  }

  func sub(_ relative: String) -> String { path + "/" + relative }
}

/// Writes a file (creating parent folders), optionally with a mode and an mtime in ns.
func writeFile(_ path: String, _ content: String, mode: Int? = nil, modifiedNs: Int64? = nil) throws {
  try writeFile(path, Data(content.utf8), mode: mode, modifiedNs: modifiedNs)
}

func writeFile(_ path: String, _ data: Data, mode: Int? = nil, modifiedNs: Int64? = nil) throws {
  try FileManager.default.createDirectory(
    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
  try data.write(to: URL(fileURLWithPath: path))
  if let mode { chmod(path, mode_t(mode)) }
  if let modifiedNs { setModified(path, ns: modifiedNs) }
}

func makeDirectory(_ path: String) throws {
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
}

func setModified(_ path: String, ns: Int64) {
  let spec = timespec(tv_sec: Int(floorDiv(ns, 1_000_000_000)), tv_nsec: Int(floorMod(ns, 1_000_000_000)))
  var times = [spec, spec]
  _ = utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW)
}

/// One entry of a tree as compared by tests: kind, content, mode, mtime (ns) and link target.
struct TreeEntry: Equatable, CustomStringConvertible {
  var kind: String
  var content: Data?
  var mode: UInt32
  var modifiedNs: Int64?
  var target: String?

  var description: String {
    "\(kind) mode \(String(mode, radix: 8)) \(content.map { "\($0.count) bytes" } ?? "") mtime \(modifiedNs.map(String.init) ?? "-") \(target ?? "")"
  }
}

/// Every entry under `root` by relative path (`.savevault` excluded). Directory mtimes are left
/// out (creating children changes them); file mtimes are compared to the nanosecond.
func tree(_ root: String, includeTimes: Bool = true) -> [String: TreeEntry] {
  var result: [String: TreeEntry] = [:]
  guard let items = FileManager.default.enumerator(atPath: root) else { return result }
  for case let item as String in items {
    if item == ".savevault" || item.hasPrefix(".savevault/") { continue }
    let full = root + "/" + item
    var info = stat()
    guard lstat(full, &info) == 0 else { continue }
    let mode = UInt32(info.st_mode) & 0o7777
    let ns = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    switch info.st_mode & S_IFMT {
    case S_IFREG:
      result[item] = TreeEntry(
        kind: "file", content: FileManager.default.contents(atPath: full), mode: mode,
        modifiedNs: includeTimes ? ns : nil)
    case S_IFDIR:
      result[item] = TreeEntry(kind: "dir", mode: mode)
    case S_IFLNK:
      result[item] = TreeEntry(
        kind: "link", mode: 0, target: try? FileManager.default.destinationOfSymbolicLink(atPath: full))
    default:
      result[item] = TreeEntry(kind: "special", mode: mode)
    }
  }
  return result
}

/// Parses a JSON object printed by the binary.
func jsonObject(_ text: String) throws -> [String: Any] {
  let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
  return try #require(value as? [String: Any], "not a JSON object: \(text)")
}

/// Follows a dotted key path (`local.files`). `.some(NSNull())` for a key that is present
/// with a null value, nil for a missing key.
func lookup(_ object: [String: Any], _ path: String) -> Any? {
  var current: Any? = object
  for key in path.split(separator: ".") {
    guard let dictionary = current as? [String: Any] else { return nil }
    current = dictionary[String(key)]
  }
  return current
}

/// A JSON number as Int64.
func integer(_ value: Any?) -> Int64? {
  if let number = value as? NSNumber { return number.int64Value }
  if let number = value as? Int { return Int64(number) }
  return nil
}

/// A tree reduced to kind and content (for comparisons with other tools' extractions, where
/// modes and times are theirs).
func contentTree(_ root: String) -> [String: String] {
  tree(root, includeTimes: false).mapValues { entry in
    "\(entry.kind):\(entry.content.map { $0.base64EncodedString() } ?? "")\(entry.target ?? "")"
  }
}

/// The built `savevault`, next to the test runner (SwiftPM builds it before the tests).
let savevaultBinary: String =
  (Platform.resolvedPath("/proc/self/exe") as NSString).deletingLastPathComponent + "/savevault"

/// The repository's root (this file is Tests/SaveVaultTests/Harness/TestSupport.swift).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// A file of `Tests/Fixtures` (outside the test target, so that SwiftPM leaves it alone): the
/// Python scripts that build hostile archives and serve manifests, the SigV4 test suite.
func fixture(_ relative: String) -> String { repositoryRoot + "/Tests/Fixtures/" + relative }

/// The binary's folder first on PATH, so that scripts find `savevault`.
func pathWithBinary() -> String {
  (savevaultBinary as NSString).deletingLastPathComponent + ":"
    + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
}

/// The result of running a program.
typealias RunResult = ProgramOutput

/// Finds a program on the usual paths.
func which(_ name: String) -> String? {
  for folder in ["/usr/local/bin", "/usr/bin", "/bin", "/root/.pyenv/shims"]
    + (ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map(String.init) ?? [])
  {
    let path = folder + "/" + name
    if FileManager.default.isExecutableFile(atPath: path) { return path }
  }
  return nil
}

/// The path of a program a test needs (`tar`, `python3`); a failed requirement without it.
func requiredProgram(_ name: String) throws -> String {
  try #require(which(name), "\(name) is needed")
}

/// A context for library tests: a private HOME, a fixed device and a clock that moves on
/// one millisecond per reading from `startMs`.
func testContext(home: String, startMs: Int64 = 1_795_968_000_000, environment extra: [String: String] = [:])
  -> Context
{
  let counter = Counter(startMs)
  var environment = ["HOME": home, "SAVEVAULT_DEVICE": "testbox"]
  environment.merge(extra) { $1 }
  return Context(
    environment: environment, currentDirectory: home, clock: { counter.next() }, log: .silent,
    hostName: "testhost")
}

/// A thread-safe ticking clock.
final class Counter: @unchecked Sendable {
  private var value: Int64
  private let lock = NSLock()
  init(_ start: Int64) { value = start }
  func next() -> Int64 {
    lock.lock()
    defer { lock.unlock() }
    value += 1
    return value
  }
}

/// `umount -l path`, blocking: for a `defer`, which cannot await (a clean-up, not a test's run).
func unmountLazily(_ path: String) {
  _ = try? runProgram("/bin/umount", ["-l", path])
}

/// The text of `relative` in a pre-restore copy, which is a folder (the replaced save moved
/// whole) or a `.tar` (read by GNU tar); nil when it is not there.
func fileInPreRestoreCopy(_ copy: String, _ relative: String) async throws -> String? {
  var info = stat()
  if lstat(copy, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
    return try? String(contentsOfFile: copy + "/" + relative, encoding: .utf8)
  }
  let result = try await runProgramAwaiting(
    try #require(which("tar"), "tar is needed"), ["-xOf", copy, relative])
  return result.code == 0 ? result.stdout : nil
}

/// The pre-restore copies in `folder`, archives and folders, by path.
func preRestoreCopyPaths(_ folder: String) -> [String] {
  let archives = ((try? Platform.directoryNames(folder)) ?? []).filter(ArchiveName.isBackupName)
  return (archives.map { folder + "/" + $0 } + preRestoreFolders(folder)).sorted()
}
