import Foundation
import Testing

@testable import SaveVault

// Progress bars and colour through a real pseudo-terminal (`script`): drawn on a terminal,
// never with --json, --quiet, NO_COLOR, TERM=dumb or a pipe.

/// Runs the binary under `script`, on a pseudo-terminal; returns what the terminal received.
private func onTerminal(_ arguments: [String], environment extra: [String: String]) throws -> RunResult {
  let script = try #require(which("script"), "script is not installed (bsdutils)")
  let command = ([savevaultBinary] + arguments).map { "'\($0)'" }.joined(separator: " ")
  var environment = ["PATH": "/usr/bin:/bin", "TERM": "xterm"]
  environment.merge(extra) { $1 }
  return try runProgram(script, ["-qec", command, "/dev/null"], environment: environment)
}

private let escape = "\u{1B}["

@Suite("Terminal output: progress bars and colour only where they belong")
struct TerminalOutputTests {
  /// A 6 MB save and a pause of 0.7 s at the second MiB packed, so that a bar is due.
  private func slowBackup(_ label: String) throws -> (TemporaryDirectory, [String], [String: String]) {
    let dir = TemporaryDirectory(label)
    try writeFile(dir.sub("save/game/big.bin"), Data(repeating: 7, count: 6_000_000))
    try makeDirectory(dir.sub("container"))
    try makeDirectory(dir.sub("home"))
    let arguments = ["backup", "--save-dir", dir.sub("save/game"), "--container", dir.sub("container")]
    let environment = [
      "HOME": dir.sub("home"), "SAVEVAULT_DEVICE": "deck",
      "SAVEVAULT_FAILPOINTS": "progress.packing=sleep:700@2",
    ]
    return (dir, arguments, environment)
  }

  @Test("on a terminal a slow backup draws a bar, and clears it before the result")
  func barOnTerminal() throws {
    let (dir, arguments, environment) = try slowBackup("bar")
    defer { withExtendedLifetime(dir) {} }
    let result = try onTerminal(arguments, environment: environment)
    #expect(result.code == 0, "\(result.stdout)")
    #expect(result.stdout.contains("\r\(escape)Kpacking"), "no bar: \(result.stdout.debugDescription)")
    #expect(result.stdout.contains("\r\(escape)KBacked up game"), "the bar is not cleared")
  }

  @Test(
    "no bar with --json, --quiet or TERM=dumb, even on a terminal",
    arguments: [(["--json"], "xterm"), (["--quiet"], "xterm"), ([], "dumb")])
  func noBar(extra: [String], term: String) throws {
    let (dir, arguments, environment) = try slowBackup("nobar")
    defer { withExtendedLifetime(dir) {} }
    var withTerm = environment
    withTerm["TERM"] = term
    let result = try onTerminal(arguments + extra, environment: withTerm)
    #expect(result.code == 0, "\(result.stdout)")
    #expect(!result.stdout.contains(escape), "escape sequences: \(result.stdout.debugDescription)")
    if extra == ["--json"] {
      let json = try jsonObject(result.stdout.replacingOccurrences(of: "\r", with: ""))
      #expect(json["outcome"] as? String == "uploaded")
    }
  }

  @Test("no bar on a pipe")
  func noBarOnPipe() throws {
    let (dir, arguments, environment) = try slowBackup("pipe")
    defer { withExtendedLifetime(dir) {} }
    let result = try runProgram(
      savevaultBinary, arguments, environment: environment.merging(["PATH": "/usr/bin:/bin"]) { $1 })
    #expect(result.code == 0, "\(result.stderr)")
    #expect(!result.stderr.contains(escape) && !result.stdout.contains(escape))
  }

  @Test("doctor colours its statuses on a terminal only, and never with NO_COLOR or TERM=dumb")
  func doctorColour() throws {
    let dir = TemporaryDirectory("colour")
    try makeDirectory(dir.sub("home"))
    try makeDirectory(dir.sub("container"))
    try writeFile(dir.sub("save/game/slot"), "x")
    let arguments = ["doctor", "--save-dir", dir.sub("save/game"), "--container", dir.sub("container")]
    let environment = ["HOME": dir.sub("home")]
    let coloured = try onTerminal(arguments, environment: environment)
    #expect(coloured.code == 0, "\(coloured.stdout)")
    #expect(coloured.stdout.contains("\(escape)32mok"), "no colour: \(coloured.stdout.debugDescription)")
    for plain in [["NO_COLOR": "1"], ["TERM": "dumb"]] {
      let result = try onTerminal(arguments, environment: environment.merging(plain) { $1 })
      #expect(result.code == 0)
      #expect(result.stdout.contains("ok       container"), "\(plain): \(result.stdout.debugDescription)")
      #expect(!result.stdout.contains(escape), "\(plain): colour: \(result.stdout.debugDescription)")
    }
  }
}
