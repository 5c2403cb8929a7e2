import Foundation
import Testing

@testable import SaveVault

// Progress bars and colour through a real pseudo-terminal (`script`): drawn on a terminal,
// never with --json, --quiet, NO_COLOR, TERM=dumb or a pipe.

private let escape = "\u{1B}["

@Suite("Terminal output: progress bars and colour only where they belong", .tags(.medium))
struct TerminalOutputTests {
  /// A 6 MB save and a pause of 0.7 s at the second MiB packed, so that a bar is due.
  private func slowBackup(_ label: String) throws -> (Sandbox, [String]) {
    let sandbox = try Sandbox(
      label, device: "deck",
      environment: ["PATH": "/usr/bin:/bin", "SAVEVAULT_FAILPOINTS": "progress.packing=sleep:700@2"])
    try writeFile(sandbox.path("save/game/big.bin"), Data(repeating: 7, count: 6_000_000))
    let arguments = ["backup", "--save-dir", sandbox.path("save/game"), "--container", sandbox.cloud]
    return (sandbox, arguments)
  }

  @Test("on a terminal a slow backup draws a bar, and clears it before the result")
  func barOnTerminal() async throws {
    let (sandbox, arguments) = try slowBackup("bar")
    let result = try await sandbox.runAtTerminal(arguments)
    #expect(result.code == 0, "\(result.stdout)")
    #expect(result.stdout.contains("\r\(escape)Kpacking"), "no bar: \(result.stdout.debugDescription)")
    #expect(result.stdout.contains("\r\(escape)KBacked up game"), "the bar is not cleared")
  }

  @Test(
    "no bar with --json, --quiet or TERM=dumb, even on a terminal",
    arguments: [(["--json"], "xterm"), (["--quiet"], "xterm"), ([], "dumb")])
  func noBar(extra: [String], term: String) async throws {
    let (sandbox, arguments) = try slowBackup("nobar")
    let result = try await sandbox.runAtTerminal(arguments + extra, environment: ["TERM": term])
    #expect(result.code == 0, "\(result.stdout)")
    #expect(!result.stdout.contains(escape), "escape sequences: \(result.stdout.debugDescription)")
    if extra == ["--json"] {
      let json = try jsonObject(result.stdout.replacingOccurrences(of: "\r", with: ""))
      #expect(json["outcome"] as? String == "uploaded")
    }
  }

  @Test("no bar on a pipe")
  func noBarOnPipe() async throws {
    let (sandbox, arguments) = try slowBackup("pipe")
    let result = try await sandbox.runAwaiting(arguments)
    #expect(result.code == 0, "\(result.stderr)")
    #expect(!result.stderr.contains(escape) && !result.stdout.contains(escape))
  }

  @Test("doctor colours its statuses on a terminal only, and never with NO_COLOR or TERM=dumb")
  func doctorColour() async throws {
    let sandbox = try Sandbox("colour", environment: ["PATH": "/usr/bin:/bin"])
    try writeFile(sandbox.path("save/game/slot"), "x")
    let arguments = ["doctor", "--save-dir", sandbox.path("save/game"), "--container", sandbox.cloud]
    let coloured = try await sandbox.runAtTerminal(arguments)
    #expect(coloured.code == 0, "\(coloured.stdout)")
    #expect(coloured.stdout.contains("\(escape)32mok"), "no colour: \(coloured.stdout.debugDescription)")
    for plain in [["NO_COLOR": "1"], ["TERM": "dumb"]] {
      let result = try await sandbox.runAtTerminal(arguments, environment: plain)
      #expect(result.code == 0)
      #expect(result.stdout.contains("ok       container"), "\(plain): \(result.stdout.debugDescription)")
      #expect(!result.stdout.contains(escape), "\(plain): colour: \(result.stdout.debugDescription)")
    }
  }
}
