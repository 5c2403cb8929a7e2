import Foundation

/// Everything the library takes from the outside world, passed in one value so that tests can
/// replace any of it: the environment, the working directory, the clock and the log.
///
/// The library never reads the process environment, the real clock or the terminal by itself.
public struct Context: Sendable {
  /// Environment variables (XDG directories, `SAVEVAULT_*`, `HOME`).
  public var environment: [String: String]
  /// The directory relative paths are resolved against.
  public var currentDirectory: String
  /// The current time in milliseconds since the Unix epoch.
  public var clock: @Sendable () -> Int64
  /// Where warnings and explanations go (the CLI sends them to stderr).
  public var log: Log
  /// This machine's host name, the default device name.
  public var hostName: String
  /// Where progress of packing, uploads, downloads and extraction goes (the CLI draws a bar
  /// on a terminal).
  public var progress: @Sendable (ProgressEvent) -> Void
  /// Where tests stop a command (inert unless `SAVEVAULT_FAILPOINTS` is set).
  public var failpoints: Failpoints
  /// Where the executable records a signal asking the command to stop.
  public var interruption = Interruption()
  /// How this program was started (`argv[0]`): a path, or a name found on `PATH`. Doctor
  /// tells from it whether a launcher's own `PATH` finds the program.
  public var invokedAs = "savevault"

  public init(
    environment: [String: String], currentDirectory: String, clock: @escaping @Sendable () -> Int64,
    log: Log, hostName: String, progress: @escaping @Sendable (ProgressEvent) -> Void = { _ in }
  ) {
    self.environment = environment
    self.currentDirectory = currentDirectory
    self.clock = clock
    self.log = log
    self.hostName = hostName
    self.progress = progress
    self.failpoints = Failpoints(environment: environment)
  }

  /// A point where a command may stop: reaches the failpoint `point`, then throws
  /// `Interrupted` if a signal asked the command to stop.
  public func checkpoint(_ point: String) throws {
    try failpoints.hit(point, interruption: interruption)
    try interruption.check()
  }

  /// The progress sink the library reports to: `progress`, with the `progress.<phase>`
  /// failpoints reached first.
  public var reportProgress: @Sendable (ProgressEvent) -> Void {
    guard !failpoints.isInert else { return progress }
    return { [failpoints, progress, interruption] event in
      failpoints.reach("progress.\(event.phase.rawValue)", interruption: interruption)
      progress(event)
    }
  }

  /// The real process: its environment, working directory, wall clock and host name.
  public static func live(log: Log) -> Context {
    var context = Context(
      environment: ProcessInfo.processInfo.environment,
      currentDirectory: FileManager.default.currentDirectoryPath,
      clock: { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) },
      log: log,
      hostName: Platform.hostName())
    context.invokedAs = CommandLine.arguments.first ?? "savevault"
    return context
  }
}

/// Sinks for messages that are not results: warnings (always shown unless quiet) and verbose
/// explanations of each decision.
public struct Log: Sendable {
  public var warning: @Sendable (String) -> Void
  public var verbose: @Sendable (String) -> Void

  public init(
    warning: @escaping @Sendable (String) -> Void, verbose: @escaping @Sendable (String) -> Void
  ) {
    self.warning = warning
    self.verbose = verbose
  }

  /// A log that drops everything.
  public static let silent = Log(warning: { _ in }, verbose: { _ in })
}
