import Dispatch
import Foundation
import SaveVault

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs the game as a child process with this process's stdin, stdout, stderr and
/// environment, forwarding SIGINT, SIGTERM and SIGHUP to it while it runs.
struct GameProcess: GameRunner {
  static let forwarded: [Int32] = [SIGINT, SIGTERM, SIGHUP]
  /// Where savevault records the signals that stop it; while the game runs they are the game's.
  var interruption = Interruption()

  func run(_ command: [String]) throws -> GameExit {
    try run(command) {}
  }

  func run(_ command: [String], started: () -> Void) throws -> GameExit {
    // Forwarding starts before the game does, and before savevault stops taking the signals
    // as its own: one that comes while the game is being started is passed on as soon as it
    // runs, never dropped.
    let child = SpawnedChild()
    let sources = Self.forwarded.map { number in
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { [interruption] in
        interruption.passedOn(number)
        child.signal(number)
      }
      source.resume()
      return source
    }
    defer { sources.forEach { $0.cancel() } }
    return try interruption.forwarding { try runForwarding(command, child: child, started: started) }
  }

  private func runForwarding(_ command: [String], child: SpawnedChild, started: () -> Void) throws -> GameExit
  {
    guard let program = command.first else {
      throw VaultError.gameNotStarted(command: "", reason: "no command given after '--'")
    }
    // The forwarded signals are ignored here (and handled by dispatch sources), so the child
    // must get their default actions back.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for number in Self.forwarded { sigaddset(&defaults, number) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    // And no blocked signals: a launcher that blocks some must not make the game deaf to them.
    var unblocked = sigset_t()
    sigemptyset(&unblocked)
    posix_spawnattr_setsigmask(&attributes, &unblocked)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

    let arguments = command.map { strdup($0) } + [nil]
    defer { arguments.forEach { free($0) } }
    let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { environment.forEach { free($0) } }

    let previous = Self.forwarded.map { signal($0, SIG_IGN) }
    defer {
      for (number, action) in zip(Self.forwarded, previous) { signal(number, action) }
    }
    var pid = pid_t()
    let status = posix_spawnp(&pid, program, nil, &attributes, arguments, environment)
    guard status == 0 else {
      throw VaultError.gameNotStarted(command: program, reason: String(cString: strerror(status)))
    }
    child.started(pid)
    started()

    var result: Int32 = 0
    while waitpid(pid, &result, 0) < 0 {
      guard errno == EINTR else {
        throw VaultError.gameNotStarted(command: program, reason: String(cString: strerror(errno)))
      }
    }
    let number = result & 0x7f
    return number == 0 ? .exited((result >> 8) & 0xff) : .signaled(number)
  }
}

/// The game's process id once it is started, and the signals that came before it was: they are
/// sent to it as soon as it is.
private final class SpawnedChild: @unchecked Sendable {
  private let lock = NSLock()
  private var pid: pid_t?
  private var early: [Int32] = []

  func signal(_ number: Int32) {
    lock.lock()
    defer { lock.unlock() }
    if let pid { kill(pid, number) } else { early.append(number) }
  }

  func started(_ pid: pid_t) {
    lock.lock()
    defer { lock.unlock() }
    self.pid = pid
    for number in early { kill(pid, number) }
    early = []
  }
}
