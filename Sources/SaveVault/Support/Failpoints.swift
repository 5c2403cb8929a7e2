import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Named points in a command where a test can stop it: kill the process, raise a signal,
/// throw, or pause. Inert unless `SAVEVAULT_FAILPOINTS` names a point, so a player's run never
/// pays more than one dictionary lookup per point.
///
/// The setting is a `;`-separated list of `point=action[@N]`, where the action is `kill`
/// (SIGKILL, as a power cut would), `signal:N` (send signal N to the process, for the clean-up
/// handlers),
/// `error` (throw `FailpointError`, for in-process tests), `sleep:MS`, or `pause:MS` (a sleep
/// that ends as soon as a signal arrived: a wide window for a test to send one in, which never
/// outlasts the signal handler's grace), and `@N` fires on the
/// Nth time the point is reached (default the first). Points named `progress.<phase>` are
/// reached on every progress report of that phase (roughly every MiB of packing, upload,
/// download or extraction), so `progress.packing=kill@3` kills after about 3 MiB packed.
public struct Failpoints: Sendable {
  /// What a point does when it fires.
  public enum Action: Sendable, Equatable {
    case kill
    case signal(Int32)
    case error
    case sleep(milliseconds: Int)
    case pause(milliseconds: Int)
  }

  private struct Rule: Sendable {
    var action: Action
    var onHit: Int
  }

  private let rules: [String: Rule]
  private let counter = HitCounter()

  /// No point fires.
  public static let inert = Failpoints(rules: [:])

  private init(rules: [String: Rule]) { self.rules = rules }

  /// Parses `SAVEVAULT_FAILPOINTS`; entries that do not parse are ignored (a test that wants a
  /// point checks that it fired).
  public init(environment: [String: String]) {
    var rules: [String: Rule] = [:]
    for item in (environment["SAVEVAULT_FAILPOINTS"] ?? "").split(separator: ";") {
      let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
      guard parts.count == 2 else { continue }
      var actionText = parts[1]
      var onHit = 1
      if let at = actionText.firstIndex(of: "@") {
        onHit = Int(actionText[actionText.index(after: at)...]) ?? 1
        actionText = String(actionText[..<at])
      }
      let action: Action?
      switch actionText {
      case "kill": action = .kill
      case "error": action = .error
      case let text where text.hasPrefix("signal:"): action = Int32(text.dropFirst(7)).map(Action.signal)
      case let text where text.hasPrefix("sleep:"):
        action = Int(text.dropFirst(6)).map { .sleep(milliseconds: $0) }
      case let text where text.hasPrefix("pause:"):
        action = Int(text.dropFirst(6)).map { .pause(milliseconds: $0) }
      default: action = nil
      }
      if let action { rules[parts[0]] = Rule(action: action, onHit: max(1, onHit)) }
    }
    self.rules = rules
  }

  /// True when no point is set.
  public var isInert: Bool { rules.isEmpty }

  /// Whether `point` is set to `error` (whichever hit it waits for): for a decision taken
  /// before the point is reached.
  public func isSetToError(_ point: String) -> Bool {
    if case .error = rules[point]?.action { return true }
    return false
  }

  /// Reaches `point`: does its action if it is set and this is the hit it waits for. A `pause`
  /// ends early once `interruption` has a signal (without one, it is a `sleep`).
  public func hit(_ point: String, interruption: Interruption? = nil) throws(FailpointError) {
    guard let rule = rules[point], counter.increment(point) == rule.onHit else { return }
    switch rule.action {
    case .kill: kill(getpid(), SIGKILL)
    case .signal(let number):
      // To the process, as `kill` from outside sends it, and a moment for its handler to run.
      kill(getpid(), number)
      usleep(200_000)
    case .error: throw FailpointError(point: point)
    case .sleep(let milliseconds): usleep(UInt32(milliseconds) * 1000)
    case .pause(let milliseconds):
      for _ in 0..<(milliseconds + 9) / 10 where interruption?.signal == nil { usleep(10_000) }
    }
  }

  /// `hit` for places that cannot throw (progress reports): `error` is ignored there.
  public func reach(_ point: String, interruption: Interruption? = nil) {
    try? hit(point, interruption: interruption)
  }
}

/// A failpoint set to `error` fired.
public struct FailpointError: Error, Equatable, Sendable, CustomStringConvertible {
  public var point: String
  public var description: String { "failpoint '\(point)' fired" }
}

/// How often each point has been reached in this process.
private final class HitCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var counts: [String: Int] = [:]

  func increment(_ point: String) -> Int {
    lock.lock()
    defer { lock.unlock() }
    counts[point, default: 0] += 1
    return counts[point] ?? 0
  }
}
