import SaveVault

/// A command of savevault: declared once (`declaration`), built from a parsed command line by
/// an initialiser that checks everything it reads, then run.
protocol Command: Sendable {
  static var declaration: CommandDeclaration { get }

  /// Reads the command line `arguments`, already checked against `declaration`; throws for
  /// whatever else it cannot run with. Nothing runs before it returns.
  init(_ arguments: ParsedArguments) throws(UsageError)

  /// What the command prints with no config, no HOME and no container (a completion script,
  /// the manual page), or nil when it runs against the vault.
  var standaloneText: String? { get }

  /// Whether it prints JSON (no progress bar).
  var isJSON: Bool { get }

  /// Whether its warnings go to stderr as JSON lines (`wrap --json`).
  var warnsInJSON: Bool { get }

  /// Whether it starts with a warning about config keys SaveVault does not read (`doctor`
  /// lists them itself).
  var warnsAboutUnknownConfigKeys: Bool { get }

  /// Whether a signal that came once nothing could stop any more is still reported (not
  /// for `wrap`, whose signals are the game's).
  var reportsLateSignal: Bool { get }

  /// The file in the state directory that keeps a copy of its messages on stderr (`wrap`,
  /// whose stderr nobody may see), or nil.
  var logFileName: String? { get }

  func run(_ session: Session) throws -> ExitStatus

  /// What a signal that stopped the command left, in words.
  func stopped(by interrupted: Interrupted, hasFinished: Bool) -> String
}

extension Command {
  var standaloneText: String? { nil }
  var isJSON: Bool { false }
  var warnsInJSON: Bool { false }
  var warnsAboutUnknownConfigKeys: Bool { true }
  var reportsLateSignal: Bool { true }
  var logFileName: String? { nil }

  func stopped(by interrupted: Interrupted, hasFinished: Bool) -> String {
    hasFinished
      ? "stopped by \(interrupted.signalName) after '\(Self.declaration.name)' had finished"
      : interrupted.description
  }
}

/// Every command, in the order the help lists them.
enum Commands {
  static let all: [any Command.Type] = [
    BackupCommand.self, StatusCommand.self, RestoreCommand.self, SyncCommand.self, WrapCommand.self,
    ListCommand.self, VerifyCommand.self, PruneCommand.self, AddCommand.self, GamesCommand.self,
    RemoveCommand.self, ScanCommand.self, ManifestCommand.self, DoctorCommand.self, CompletionsCommand.self,
    ManpageCommand.self,
  ]

  static var declarations: [CommandDeclaration] { all.map { $0.declaration } }

  /// The command called `name`, if there is one.
  static func named(_ name: String) -> (any Command.Type)? {
    all.first { $0.declaration.name == name }
  }
}
