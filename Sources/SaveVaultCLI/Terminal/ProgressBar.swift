import Foundation
import SaveVault

/// A one-line progress bar on stderr: phase, bytes, rate and time left. Only on a terminal
/// that understands it (not `TERM=dumb`), never with --quiet or --json, and only for steps
/// that take more than half a second. It has no colour.
final class ProgressBar: @unchecked Sendable {
  private let isEnabled: Bool
  private let lock = NSLock()
  private var phase: ProgressEvent.Phase?
  private var started = Date()
  private var lastDrawn = Date.distantPast
  private var isShowing = false

  init(isEnabled: Bool) { self.isEnabled = isEnabled }

  func report(_ event: ProgressEvent) {
    guard isEnabled else { return }
    lock.lock()
    defer { lock.unlock() }
    let now = Date()
    if event.phase != phase {
      phase = event.phase
      started = now
    }
    let elapsed = now.timeIntervalSince(started)
    if event.done >= event.total {
      // Finished: clear the line, so that what is printed next starts clean.
      if isShowing { writeOutput(Data("\r\u{1B}[K".utf8), to: 2) }
      isShowing = false
      return
    }
    guard elapsed > 0.5, now.timeIntervalSince(lastDrawn) > 0.1 else { return }
    lastDrawn = now
    isShowing = true
    let rate = Double(event.done) / max(elapsed, 0.001)
    let left = rate > 0 ? Double(event.total - event.done) / rate : 0
    let line =
      "\(event.phase.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)) \(Format.bytes(event.done)) / \(Format.bytes(event.total))  \(Format.bytes(Int64(rate)))/s  \(Int(left.rounded(.up)))s left"
    writeOutput(Data(("\r\u{1B}[K" + line).utf8), to: 2)
  }

  /// Ends the bar's line, if one was drawn.
  func finish() {
    lock.lock()
    defer { lock.unlock() }
    if isShowing { writeOutput(Data("\r\u{1B}[K".utf8), to: 2) }
    isShowing = false
  }
}
