import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// Devices with a HOME each, sharing one folder container (`SAVEVAULT_CONTAINER`), that talk to
/// the built binary only through its arguments, environment, exit code, output and files. No
/// terminal, no desktop: what a launch script under Steam has.
struct BinaryWorld {
  let tmp: TemporaryDirectory

  init(_ label: String) throws {
    tmp = TemporaryDirectory("world-\(label)")
    try makeDirectory(cloud)
  }

  /// The shared container.
  var cloud: String { tmp.sub("cloud") }

  func home(_ device: String) -> String { tmp.sub(device + "/home") }

  /// A folder under the test's directory (a save directory, say).
  func path(_ relative: String) -> String { tmp.sub(relative) }

  /// The container's archives of `game` that SaveVault names, sorted.
  func archives(_ game: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: cloud + "/" + game)) ?? [])
      .filter { ArchiveName(parsing: $0) != nil }.sorted()
  }

  func environment(_ device: String, _ extra: [String: String] = [:]) -> [String: String] {
    var environment = [
      "HOME": home(device), "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
      "SAVEVAULT_DEVICE": device, "SAVEVAULT_CONTAINER": cloud, "SAVEVAULT_LOCK_WAIT": "5",
    ]
    environment.merge(extra) { $1 }
    return environment
  }

  /// Runs the binary as `device`, with stdin not a terminal.
  @discardableResult
  func run(_ device: String, _ arguments: [String], environment extra: [String: String] = [:]) throws
    -> RunResult
  {
    try makeDirectory(home(device))
    try #require(
      FileManager.default.isExecutableFile(atPath: savevaultBinary), "no binary at \(savevaultBinary)")
    return try runProgram(savevaultBinary, arguments, environment: environment(device, extra))
  }

  /// Runs a command that must succeed, and returns its output.
  @discardableResult
  func ok(_ device: String, _ arguments: [String], environment extra: [String: String] = [:]) throws
    -> RunResult
  {
    let result = try run(device, arguments, environment: extra)
    try #require(
      result.code == 0,
      "\(device): savevault \(arguments.joined(separator: " ")): exit \(result.code): \(result.stderr)")
    return result
  }

  /// `status --json` of `device` for the target `arguments` name.
  func status(_ device: String, _ arguments: [String]) throws -> [String: Any] {
    try jsonObject(try ok(device, ["status", "--json"] + arguments).stdout)
  }

  /// The state `status` reports.
  func state(_ device: String, _ arguments: [String]) throws -> String? {
    try status(device, arguments)["state"] as? String
  }
}

/// The text of a file, nil when it is missing.
func text(_ path: String) -> String? {
  FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
}
