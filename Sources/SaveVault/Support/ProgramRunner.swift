import Dispatch
import Foundation

/// What a program printed and how it ended.
public struct ProgramOutput: Sendable, Equatable {
  /// The exit code, or the signal number when `wasSignaled`.
  public var code: Int32
  public var wasSignaled: Bool
  public var stdout: String
  public var stderr: String

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

  /// Runs `executable` with `arguments`; `environment` nil inherits this process's.
  /// Throws when the program cannot be started.
  public func run(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
    currentDirectory: String? = nil
  ) throws -> ProgramOutput {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    try process.run()
    nonisolated(unsafe) var errorData = Data()
    let reader = DispatchGroup()
    reader.enter()
    DispatchQueue.global().async {
      errorData = errors.fileHandleForReading.readDataToEndOfFile()
      reader.leave()
    }
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    reader.wait()
    process.waitUntilExit()
    return ProgramOutput(
      code: process.terminationStatus, wasSignaled: process.terminationReason == .uncaughtSignal,
      stdout: String(decoding: outputData, as: UTF8.self), stderr: String(decoding: errorData, as: UTF8.self))
  }
}
