import Dispatch
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a program printed and how it ended.
public struct ProgramOutput: Sendable, Equatable {
  /// The exit code, or the signal number when `wasSignaled`.
  public var code: Int32
  public var wasSignaled: Bool
  public var stdout: String
  public var stderr: String
  /// Whether it was killed for running past its time limit.
  public var timedOut = false

  public init(code: Int32, wasSignaled: Bool = false, stdout: String, stderr: String) {
    self.code = code
    self.wasSignaled = wasSignaled
    self.stdout = stdout
    self.stderr = stderr
  }
}

/// Runs a helper program (a dialog, rclone) to its end with stdin from /dev/null, collecting
/// both outputs concurrently so that neither pipe can fill and block it.
public struct ProgramRunner: Sendable {
  public init() {}

  /// Runs `executable` with `arguments`; `environment` nil inherits this process's. With a
  /// `timeLimit`, the program is killed when it runs longer (`timedOut`). With `stdoutFile`,
  /// its stdout goes to that existing file instead of `stdout`. Throws when the program cannot
  /// be started.
  public func run(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
    currentDirectory: String? = nil, timeLimit: TimeInterval? = nil, stdoutFile: String? = nil
  ) throws -> ProgramOutput {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
    let output = Pipe()
    let errors = Pipe()
    let file = try stdoutFile.map { path in
      guard let handle = FileHandle(forWritingAtPath: path) else { throw CocoaError(.fileWriteUnknown) }
      return handle
    }
    defer { try? file?.close() }
    process.standardOutput = file ?? output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let killer = Killer()
    if let timeLimit {
      let pid = process.processIdentifier
      DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit) { killer.fire(pid) }
    }
    nonisolated(unsafe) var errorData = Data()
    let reader = DispatchGroup()
    reader.enter()
    DispatchQueue.global().async {
      errorData = errors.fileHandleForReading.readDataToEndOfFile()
      reader.leave()
    }
    if file != nil { try? output.fileHandleForWriting.close() }  // nothing comes through the pipe
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    reader.wait()
    process.waitUntilExit()
    var result = ProgramOutput(
      code: process.terminationStatus, wasSignaled: process.terminationReason == .uncaughtSignal,
      stdout: String(decoding: outputData, as: UTF8.self), stderr: String(decoding: errorData, as: UTF8.self))
    result.timedOut = killer.disarm()
    return result
  }

  /// Kills a program that runs past its limit, unless it was disarmed first.
  private final class Killer: @unchecked Sendable {
    private let lock = NSLock()
    private var isDone = false
    private var didFire = false

    func fire(_ pid: Int32) {
      lock.lock()
      defer { lock.unlock() }
      guard !isDone else { return }
      didFire = true
      kill(pid, SIGKILL)
    }

    /// Stops the timer; returns whether it had fired.
    func disarm() -> Bool {
      lock.lock()
      defer { lock.unlock() }
      isDone = true
      return didFire
    }
  }
}
