import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The signal that asked this command to stop (SIGTERM from a launcher, SIGHUP from a closed
/// terminal, SIGINT from Ctrl-C), as the executable's handler records it. The library never
/// installs handlers itself: it only looks here at its checkpoints (`Context.checkpoint`) and
/// throws `Interrupted`, so that the clean-ups on the way out (staging folders, temporary
/// files, multipart uploads) run before the command exits with 128 + the signal.
public final class Interruption: @unchecked Sendable {
  private let lock = NSLock()
  private var number: Int32?
  private var forwardingDepth = 0
  /// Per signal: deliveries passed on to the child minus deliveries this side ignored for it.
  /// Every delivery reaches both the runner's handler and the executable's, in either order,
  /// and this pairs them, so that a signal meant for the child is never recorded here even
  /// when its second handler runs after the child has ended.
  private var passedOnBalance: [Int32: Int] = [:]
  /// When the last `forwarding` ended: a delivery passed on is paired only shortly after it, so
  /// a count left over by merged deliveries never swallows a later signal meant for us.
  private var forwardingEnded = DispatchTime(uptimeNanoseconds: 0)

  /// Nothing recorded yet.
  public init() {}

  /// Records `signal` (the first one recorded wins) and returns true, or returns false while
  /// signals are passed on to a child (`forwarding`).
  @discardableResult
  public func record(_ signal: Int32) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    let isPairing =
      passedOnBalance[signal, default: 0] > 0
      && DispatchTime.now().uptimeNanoseconds < forwardingEnded.uptimeNanoseconds + 1_000_000_000
    if isPairing || forwardingDepth > 0 {
      passedOnBalance[signal, default: 0] -= 1
      return false
    }
    passedOnBalance[signal] = nil
    if number == nil { number = signal }
    return true
  }

  /// Tells that a delivery of `signal` was passed on to the child (`forwarding`'s runner).
  public func passedOn(_ signal: Int32) {
    lock.lock()
    defer { lock.unlock() }
    passedOnBalance[signal, default: 0] += 1
  }

  /// Runs `body` (a child process in the foreground, such as `wrap`'s game) with signals
  /// passed on to that child by its runner instead of recorded here.
  public func forwarding<Result>(_ body: () throws -> Result) rethrows -> Result {
    lock.lock()
    forwardingDepth += 1
    lock.unlock()
    defer {
      lock.lock()
      forwardingDepth -= 1
      // A delivery ignored here whose passing-on never ran (the child had ended) is settled.
      if forwardingDepth == 0 {
        passedOnBalance = passedOnBalance.mapValues { max($0, 0) }
        forwardingEnded = DispatchTime.now()
      }
      lock.unlock()
    }
    return try body()
  }

  /// The signal recorded, if any.
  public var signal: Int32? {
    lock.lock()
    defer { lock.unlock() }
    return number
  }

  /// Throws `Interrupted` when a signal was recorded.
  public func check() throws(Interrupted) {
    if let signal { throw Interrupted(signal: signal) }
  }
}

/// A command stopped at a checkpoint because a signal asked it to. What it had started was
/// cleaned up on the way out; the CLI exits with 128 + `signal`.
public struct Interrupted: Error, Equatable, Sendable, CustomStringConvertible {
  public var signal: Int32

  public init(signal: Int32) { self.signal = signal }

  /// `SIGTERM`, `SIGHUP`, `SIGINT`, or `signal N`.
  public var signalName: String {
    switch signal {
    case SIGTERM: "SIGTERM"
    case SIGHUP: "SIGHUP"
    case SIGINT: "SIGINT"
    default: "signal \(signal)"
    }
  }

  public var description: String {
    "stopped by \(signalName); what was under way was undone (the save directory and the container are as before, or as after a finished step)"
  }
}
