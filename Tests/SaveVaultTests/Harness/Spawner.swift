import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// The one way the tests start programs (the binary, tar, python3, servers, a shell holding a
/// lock): `posix_spawn` with an exact environment (nil: this process's), a working folder,
/// stdin from /dev/null (or a file, or a socket the test types into), each output collected,
/// discarded, written to a file or to a descriptor, no other descriptor of the test runner,
/// an empty signal mask and default signal actions (as a launcher starts a program; the test
/// runner ignores signals its children must not inherit), in a process group of its own (as
/// Foundation's `Process` starts it).
///
/// Its end is watched by a thread of its own (one `waitpid`), so waiting never needs a
/// thread of the pool that runs the tests: `finished()`, `waitAwaiting()`, `resultAwaiting()`
/// and `runProgramAwaiting` suspend until then; `wait()`, `result()` and `runProgram` block
/// the calling thread, for what cannot be async (the simulation's own threads, `defer`,
/// `deinit`). A program still running when its value goes away is killed.
final class SpawnedProgram: @unchecked Sendable {
  /// Where stdin comes from.
  enum Input {
    /// /dev/null.
    case null
    /// The file at this path.
    case file(String)
    /// One end of a socket pair that the test writes to with `type(_:)` (a socket, so that
    /// writing to a child that is gone is an error, never a SIGPIPE for the test runner).
    case typed
  }

  /// Where stdout or stderr goes.
  enum Output {
    /// Read as it comes: `stdout`, `stderr`.
    case collected
    /// /dev/null.
    case discarded
    /// This file, created or truncated; `stdout`/`stderr` read it.
    case file(String)
    /// This open descriptor of the test (the caller closes its copy).
    case descriptor(Int32)
  }

  let pid: pid_t
  /// What the watching and reading threads share with the test (they hold it, never the
  /// program, so that a program whose value goes away is killed).
  private let state = State()
  private let files: [String?]
  private var input: Int32 = -1
  /// Whether it is left running when its value goes away (`detach()`).
  private var isDetached = false

  /// Starts `executable` (a path) with `arguments`. With a `timeLimit`, it is killed when it
  /// runs longer (`RunResult.timedOut`).
  init(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
    directory: String? = nil, stdin: Input = .null, stdout: Output = .collected, stderr: Output = .collected,
    timeLimit: TimeInterval? = nil
  ) throws {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    // The child's ends of pipes and sockets, closed here once it has them; made close-on-exec,
    // so that no other child started meanwhile inherits them (and holds a pipe open).
    var childEnds: [Int32] = []
    var readEnds: [Int32?] = [nil, nil]
    defer { childEnds.forEach { close($0) } }
    do {
      switch stdin {
      case .null:
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
      case .file(let path):
        posix_spawn_file_actions_addopen(&actions, 0, path, O_RDONLY, 0)
      case .typed:
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0
        else {
          throw SystemError(operation: "socketpair", path: executable, code: errno)
        }
        input = pair[0]
        childEnds.append(pair[1])
        posix_spawn_file_actions_adddup2(&actions, pair[1], 0)
      }
      var files: [String?] = [nil, nil]
      for (index, output) in [stdout, stderr].enumerated() {
        let fd = Int32(index + 1)
        switch output {
        case .collected:
          var ends: [Int32] = [-1, -1]
          guard Self.pipe2(&ends, O_CLOEXEC) == 0 else {
            throw SystemError(operation: "pipe", path: executable, code: errno)
          }
          readEnds[index] = ends[0]
          childEnds.append(ends[1])
          posix_spawn_file_actions_adddup2(&actions, ends[1], fd)
        case .discarded:
          posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0)
        case .file(let path):
          files[index] = path
          posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        case .descriptor(let descriptor):
          posix_spawn_file_actions_adddup2(&actions, descriptor, fd)
        }
      }
      self.files = files
    } catch {
      readEnds.compactMap { $0 }.forEach { close($0) }
      if input >= 0 { close(input) }
      throw error
    }
    if let directory { _ = Self.addChdir(&actions, directory) }
    // Nothing else of the test runner's (Foundation's own pipes, a server's sockets).
    _ = Self.addClosefrom(&actions, 3)

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigdefault(&attributes, &all)
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(
      &attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))

    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid = pid_t()
    let code: Int32
    if let environment {
      let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
      defer { envp.forEach { free($0) } }
      code = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
    } else {
      code = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
    }
    guard code == 0 else {
      readEnds.compactMap { $0 }.forEach { close($0) }
      if input >= 0 { close(input) }
      throw SystemError(operation: "posix_spawn", path: executable, code: code)
    }
    self.pid = pid

    let (state, spawned) = (state, pid)
    state.readersLeft = readEnds.compactMap { $0 }.count
    for (index, end) in readEnds.enumerated() {
      guard let end else { continue }
      Self.thread { state.collect(end, into: index) }
    }
    Self.thread { state.reap(spawned) }
    if let timeLimit {
      DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit) { state.timeOut(spawned) }
    }
  }

  /// `init` with a socket for stdin when `interactive` (the prompt tests' form).
  convenience init(
    _ executable: String, _ arguments: [String], environment: [String: String], interactive: Bool
  ) throws {
    try self.init(executable, arguments, environment: environment, stdin: interactive ? .typed : .null)
  }

  /// CrashRig's form: stdout and stderr to `output.out` and `output.err`.
  convenience init(_ executable: String, _ arguments: [String], environment: [String: String], output: String)
    throws
  {
    try self.init(
      executable, arguments, environment: environment, stdout: .file(output + ".out"),
      stderr: .file(output + ".err"))
  }

  /// Leaves it running when this value goes away (a server shared by the whole test run,
  /// killed at exit by whoever registered it).
  func detach() { isDetached = true }

  deinit {
    if !isDetached && !hasEnded { kill(pid, SIGKILL) }
    if input >= 0 { close(input) }
  }

  // glibc's GNU extensions, which Swift's Glibc module does not declare (no _GNU_SOURCE).
  private static func glibc<Function>(_ name: String, as type: Function.Type) -> Function {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
      fatalError("glibc has no \(name) (2.34 or newer is needed)")
    }
    return unsafeBitCast(symbol, to: type)
  }

  private static let pipe2 = glibc(
    "pipe2", as: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)
  private static let addChdir = glibc(
    "posix_spawn_file_actions_addchdir_np",
    as: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32)
      .self)
  private static let addClosefrom = glibc(
    "posix_spawn_file_actions_addclosefrom_np",
    as: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)

  private static func thread(_ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.stackSize = 1 << 18
    thread.start()
  }

  /// The program's end and outputs, guarded by `condition`.
  private final class State: @unchecked Sendable {
    let condition = NSCondition()
    var status: Int32?
    var readersLeft = 0
    var collected: [Data] = [Data(), Data()]
    /// Suspended tasks, each with what it waits for; resumed with true once that holds, or
    /// with false when its time runs out first.
    var watchers:
      [Int: (condition: @Sendable (State) -> Bool, continuation: CheckedContinuation<Bool, Never>)] =
        [:]
    var nextWatcher = 0
    var didTimeOut = false

    /// The watching thread: waits for the end, then wakes whoever waits.
    func reap(_ pid: pid_t) {
      var raw: Int32 = 0
      while waitpid(pid, &raw, 0) < 0 {
        guard errno == EINTR else {
          raw = 0x7f  // cannot happen: no one else reaps it
          break
        }
      }
      condition.lock()
      status = raw
      let resumed = takeSatisfiedWatchers()
      condition.broadcast()
      condition.unlock()
      resumed.forEach { $0.resume(returning: true) }
    }

    /// A reading thread: everything the child writes to one output, until the last writer goes.
    func collect(_ fd: Int32, into index: Int) {
      var buffer = [UInt8](repeating: 0, count: 65536)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { break }
        condition.lock()
        collected[index].append(contentsOf: buffer[0..<count])
        condition.broadcast()
        condition.unlock()
      }
      close(fd)
      condition.lock()
      readersLeft -= 1
      let resumed = takeSatisfiedWatchers()
      condition.broadcast()
      condition.unlock()
      resumed.forEach { $0.resume(returning: true) }
    }

    /// The watchers whose condition now holds, removed (under the lock).
    func takeSatisfiedWatchers() -> [CheckedContinuation<Bool, Never>] {
      let satisfied = watchers.filter { $0.value.condition(self) }
      for key in satisfied.keys { watchers[key] = nil }
      return satisfied.values.map(\.continuation)
    }

    func timeOut(_ pid: pid_t) {
      condition.lock()
      defer { condition.unlock() }
      guard status == nil else { return }
      didTimeOut = true
      kill(pid, SIGKILL)
    }
  }

  // MARK: Its end

  /// Whether it has ended.
  var hasEnded: Bool {
    state.condition.lock()
    defer { state.condition.unlock() }
    return state.status != nil
  }

  var isRunning: Bool { !hasEnded }

  /// Blocks until it ends (not until its outputs are read); returns the exit code, or 128 +
  /// the signal that killed it.
  @available(*, noasync, message: "a test awaits waitAwaiting(), which holds no thread")
  @discardableResult
  func wait() -> Int32 {
    state.condition.lock()
    while state.status == nil { state.condition.wait() }
    state.condition.unlock()
    return exitCode
  }

  /// Blocks until it ends or `timeout` passes; whether it ended.
  func waitForExit(timeout: TimeInterval) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    state.condition.lock()
    defer { state.condition.unlock() }
    while state.status == nil && state.condition.wait(until: deadline) {}
    return state.status != nil
  }

  /// Suspends, without holding a thread, until `condition` holds (checked under the lock
  /// whenever the program ends or an output is read to its end) or `timeout` passes; whether
  /// it holds.
  private func until(timeout: TimeInterval? = nil, _ condition: @escaping @Sendable (State) -> Bool) async
    -> Bool
  {
    let state = state
    return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
      state.condition.lock()
      if condition(state) {
        state.condition.unlock()
        continuation.resume(returning: true)
        return
      }
      let key = state.nextWatcher
      state.nextWatcher += 1
      state.watchers[key] = (condition, continuation)
      state.condition.unlock()
      guard let timeout else { return }
      DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
        state.condition.lock()
        let expired = state.watchers.removeValue(forKey: key)
        state.condition.unlock()
        expired?.continuation.resume(returning: false)
      }
    }
  }

  /// Suspends until it has ended and its collected outputs are read, without holding a thread.
  func finished() async {
    _ = await until { $0.status != nil && $0.readersLeft == 0 }
  }

  /// `wait()`, awaited without holding a thread: suspends until it ends (not until its outputs
  /// are read); returns the exit code, or 128 + the signal that killed it.
  @discardableResult
  func waitAwaiting() async -> Int32 {
    _ = await until { $0.status != nil }
    return exitCode
  }

  /// The exit code, or 128 + the signal that killed it; nil while it runs.
  private var endCode: (code: Int32, signal: Int32)? {
    state.condition.lock()
    defer { state.condition.unlock() }
    guard let status = state.status else { return nil }
    let signal = status & 0x7f
    return signal == 0 ? ((status >> 8) & 0xff, 0) : (signal, signal)
  }

  /// The exit code, or 128 + the signal that killed it (0 while it runs).
  var exitCode: Int32 {
    guard let end = endCode else { return 0 }
    return end.signal == 0 ? end.code : 128 + end.signal
  }

  /// Foundation's `Process` names, for the tests written against it.
  var processIdentifier: Int32 { pid }
  /// The exit code, or the signal's number when a signal ended it (as `Process` says).
  var terminationStatus: Int32 { endCode?.code ?? 0 }
  /// Whether a signal ended it.
  var wasSignaled: Bool { (endCode?.signal ?? 0) != 0 }
  var terminationReason: TerminationReason { wasSignaled ? .uncaughtSignal : .exit }
  enum TerminationReason { case exit, uncaughtSignal }
  func terminate() { if isRunning { kill(pid, SIGTERM) } }
  @available(*, noasync, message: "a test awaits waitAwaiting(), which holds no thread")
  func waitUntilExit() { wait() }

  /// What it printed and how it ended, once it has ended and its outputs are read (all of
  /// them; a grandchild holding a pipe is waited for up to `drain` seconds when given).
  @available(*, noasync, message: "a test awaits resultAwaiting(), which holds no thread")
  func result(drain: TimeInterval? = nil) -> RunResult {
    wait()
    state.condition.lock()
    if let drain {
      let deadline = Date().addingTimeInterval(drain)
      while state.readersLeft > 0 && state.condition.wait(until: deadline) {}
    } else {
      while state.readersLeft > 0 { state.condition.wait() }
    }
    state.condition.unlock()
    return currentResult
  }

  /// `result()`, awaited without holding a thread.
  func resultAwaiting() async -> RunResult {
    await finished()
    return currentResult
  }

  private var currentResult: RunResult {
    var result = RunResult(code: terminationStatus, wasSignaled: wasSignaled, stdout: stdout, stderr: stderr)
    state.condition.lock()
    result.timedOut = state.didTimeOut
    state.condition.unlock()
    return result
  }

  // MARK: Its output and input

  private func text(_ index: Int) -> String {
    if let file = files[index] { return (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }
    state.condition.lock()
    defer { state.condition.unlock() }
    return String(decoding: state.collected[index], as: UTF8.self)
  }

  /// Its stdout so far.
  var stdout: String { text(0) }
  /// Its stderr so far.
  var stderr: String { text(1) }
  var output: String { stdout }
  var errorOutput: String { stderr }

  /// Waits until stdout contains `text`; false when the child ended or time ran out first.
  @available(*, noasync, message: "a test awaits waitForOutputAwaiting, which holds no thread")
  func waitForOutput(containing text: String, timeout: TimeInterval) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if output.contains(text) { return true }
      if !isRunning { return output.contains(text) }
      usleep(20_000)
    }
    return false
  }

  /// `waitForOutput`, awaited: polls without holding a thread.
  func waitForOutputAwaiting(containing text: String, timeout: TimeInterval) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if output.contains(text) { return true }
      if !isRunning { return output.contains(text) }
      try? await Task.sleep(for: .milliseconds(20))
    }
    return false
  }

  /// Types `text` on the child's stdin (`.typed` only).
  func type(_ text: String) {
    guard input >= 0 else { return }
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { send(input, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
  }

  func closeInput() {
    guard input >= 0 else { return }
    shutdown(input, Int32(SHUT_WR))
    close(input)
    input = -1
  }

  /// Waits for the child to end; nil (and the child killed) when it takes longer than
  /// `timeout`. A grandchild still holding its pipes is waited for up to 5 s.
  @available(*, noasync, message: "a test awaits waitAwaiting(timeout:), which holds no thread")
  func wait(timeout: TimeInterval) -> RunResult? {
    guard waitForExit(timeout: timeout) else {
      killNow()
      return nil
    }
    let result = result(drain: 5)
    closeInput()
    return result
  }

  /// `wait(timeout:)`, awaited without holding a thread.
  func waitAwaiting(timeout: TimeInterval) async -> RunResult? {
    guard await until(timeout: timeout, { $0.status != nil }) else {
      closeInput()
      if isRunning { kill(pid, SIGKILL) }
      await waitAwaiting()
      return nil
    }
    _ = await until(timeout: 5) { $0.readersLeft == 0 }
    let result = currentResult
    closeInput()
    return result
  }

  /// SIGTERM when it runs, and waits for its end, blocking: for a `defer`, which cannot await.
  func terminateAndWait() {
    terminate()
    wait()
  }

  /// SIGKILL, and waits for its end.
  func killNow() {
    closeInput()
    guard isRunning else { return }
    kill(pid, SIGKILL)
    wait()
  }
}

/// Runs `executable` with `arguments` (an exact environment when given, else this process's)
/// and waits, blocking the calling thread; `stdin` names a file to read from (else /dev/null).
/// Never waits for `ProgramGate`: it already holds a thread of its own, and a thread blocked on
/// the gate could be the one a slot's holder needs to finish.
@available(*, noasync, message: "a test awaits runProgramAwaiting, which holds no thread")
@discardableResult
func runProgram(
  _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
  currentDirectory: String? = nil, stdin: String? = nil, timeLimit: TimeInterval? = nil
) throws -> RunResult {
  try SpawnedProgram(
    executable, arguments, environment: environment, directory: currentDirectory,
    stdin: stdin.map { .file($0) } ?? .null, timeLimit: timeLimit
  ).result()
}

/// `runProgram`, awaited: the test's task is suspended while the program runs, so that it does
/// not hold one of the few threads that run the tests (and delay the other suites' programs).
/// It starts once `ProgramGate` has a slot for it; `gated: false` starts it at once, for a
/// test whose outcome depends on when it starts (beside a lock holder) or that times it.
@discardableResult
func runProgramAwaiting(
  _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
  currentDirectory: String? = nil, stdin: String? = nil, timeLimit: TimeInterval? = nil, gated: Bool = true
) async throws -> RunResult {
  try await ProgramGate.shared.run(gated: gated) {
    try await SpawnedProgram(
      executable, arguments, environment: environment, directory: currentDirectory,
      stdin: stdin.map { .file($0) } ?? .null, timeLimit: timeLimit
    ).resultAwaiting()
  }
}

/// Runs `steps` without a suspension point, holding the calling thread (one of the test pool's)
/// until they are done: for the part of a test that acts on a process it started while that
/// process is in a time window (holding a lock, paused at a failpoint, rewriting a file).
/// Awaited, each step would wait for a thread of the pool again, and with every test in flight
/// the pool can be busy for seconds (a test's synchronous stretch, a suite of synchronous tests:
/// up to 9 s measured on a loaded two-core machine), longer than a window of 2 to 20 s. Its runs
/// are the blocking ones (`Sandbox.run`, `CrashRig.run`, `runProgram`), which never wait for a
/// `ProgramGate` slot either.
func withinWindow<Value>(_ steps: () throws -> Value) rethrows -> Value { try steps() }

/// At most `slots` programs (one per core) run at once through `runProgramAwaiting`: without a
/// limit, every suspended test would start its program at once and they would all share two
/// cores. A program waiting for a slot suspends its task (no thread is held); slots are given
/// in the order they were asked for, and given back on every way out (a result, a throw).
///
/// Not gated: programs a test starts itself (`SpawnedProgram`, `Sandbox.start`), blocking
/// runs (each already holds a thread, and never waits here), and runs marked `gated: false`.
actor ProgramGate {
  /// The gate of the test run: as many slots as the machine has cores.
  static let shared = ProgramGate(slots: ProcessInfo.processInfo.activeProcessorCount)

  let slots: Int
  /// The slots taken.
  private(set) var running = 0
  private var waiting: [CheckedContinuation<Void, Never>] = []
  /// The bodies waiting for a slot.
  var queued: Int { waiting.count }

  init(slots: Int) { self.slots = max(1, slots) }

  /// Takes a slot, suspending until one is free.
  func enter() async {
    if running < slots {
      running += 1
      return
    }
    // The slot is handed over by `leave()`: `running` stays as it is.
    await withCheckedContinuation { waiting.append($0) }
  }

  /// Gives a slot back: to the longest waiter, else free.
  func leave() {
    if waiting.isEmpty {
      running -= 1
    } else {
      waiting.removeFirst().resume()
    }
  }

  /// `body` holding a slot (none when `gated` is false), given back however `body` ends.
  nonisolated func run<Value: Sendable>(gated: Bool = true, _ body: () async throws -> Value) async rethrows
    -> Value
  {
    guard gated else { return try await body() }
    await enter()
    do {
      let value = try await body()
      await leave()
      return value
    } catch {
      await leave()
      throw error
    }
  }
}
