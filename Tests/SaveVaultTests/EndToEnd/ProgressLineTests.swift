import Foundation
import Testing

// The progress bar at a real terminal (util-linux `script`), through the built binary: what
// is printed after it starts on a clean line.

@Suite("Progress line: cleared before the result", .tags(.medium))
struct ProgressLineTests {
  @Test("restore's progress line is cleared before 'Restored …' is printed")
  func clearedBeforeResult() async throws {
    let sandbox = try Sandbox("progress-line", environment: ["PATH": "/usr/bin:/bin", "TERM": "xterm"])
    let save = sandbox.path("save/celeste")
    try writeFile(
      save + "/big.bin", Data((0..<4_000_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }))
    try writeFile(save + "/slot.sav", "chapter 3")
    let target = ["--save-dir", save, "--container", sandbox.cloud]
    let backup = try await sandbox.runAwaiting(["backup"] + target)
    try #require(backup.code == 0, "\(backup.stderr)")
    try writeFile(save + "/slot.sav", "chapter 4")

    // A slow extraction after its second report, so that the bar is drawn.
    let result = try await sandbox.runAtTerminal(
      ["restore", "--latest"] + target,
      environment: ["SAVEVAULT_FAILPOINTS": "progress.extracting=sleep:800@2"])
    #expect(result.code == 0, "\(result.stdout)")
    let screen = result.stdout
    let drawn = try #require(
      screen.range(of: "extracting", options: .backwards), "no bar was drawn: \(screen)")
    let printed = try #require(screen.range(of: "Restored celeste"), "no result: \(screen)")
    #expect(drawn.upperBound < printed.lowerBound)
    let between = screen[drawn.upperBound..<printed.lowerBound]
    #expect(
      between.contains("\r\u{1B}[K"),
      "the bar's line was not cleared before the result: \(between.debugDescription)")
  }
}
