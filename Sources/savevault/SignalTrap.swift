import Dispatch
import Foundation
import SaveVault

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// savevault's handling of SIGINT, SIGTERM and SIGHUP: the signal is recorded in an
/// `Interruption`, and the library stops at its next checkpoint (about every MiB of packing,
/// transfer or extraction, and between steps), undoing what it started, and exits with
/// 128 + N. When no checkpoint comes within `graceSeconds` (a stalled network), it exits with
/// 128 + N anyway; the next run finishes or undoes what was left.
final class SignalTrap: Sendable {
  static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP]
  static let graceSeconds = 2.0

  let interruption = Interruption()
  private let queue = DispatchQueue(label: "savevault.signals")
  nonisolated(unsafe) private var sources: [any DispatchSourceSignal] = []

  private init() {}

  /// Installs the handling for this process. Call once, before any other thread starts and
  /// before anything is written (`main` does, as a command is about to run): the signals are
  /// blocked in every thread started afterwards and reach only the dispatch sources.
  static func install() -> SignalTrap {
    let trap = SignalTrap()
    var blocked = sigset_t()
    sigemptyset(&blocked)
    for number in handled {
      sigaddset(&blocked, number)
      signal(number, SIG_IGN)
    }
    pthread_sigmask(SIG_BLOCK, &blocked, nil)
    trap.sources = handled.map { number in
      let source = DispatchSource.makeSignalSource(signal: number, queue: trap.queue)
      source.setEventHandler { trap.received(number) }
      source.resume()
      return source
    }
    return trap
  }

  private func received(_ number: Int32) {
    guard interruption.record(number) else { return }  // the game's, passed on by `wrap`
    queue.asyncAfter(deadline: .now() + Self.graceSeconds) {
      let message =
        "savevault: stopped by signal \(number) before it could finish cleaning up; the next run finishes or undoes what was left\n"
      _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
      _exit(ExitStatus.signal(number).code)
    }
  }
}
