/// How a savevault run ends, as its process exit code: the command-line contract's table, in
/// one place. The CLI ends with it, `doctor` maps its problems onto it, the signal handling
/// exits with it, and the help and the manual page list it.
public enum ExitStatus: Equatable, Hashable, Sendable {
  /// 0: done (or already in sync).
  case success
  /// 1: a runtime error: local I/O, and anything not below.
  case failure
  /// 2: a usage error: bad flags, config or missing settings.
  case usage
  /// 3: a conflict left unresolved (no terminal, no dialog, no policy); nothing was changed.
  case conflictUnanswered
  /// 4: the container is unavailable or refusing.
  case containerUnavailable
  /// 5: an archive refused (corrupt, truncated or hostile) or failing verification; nothing
  /// was extracted into the save directory (and an upload that must carry a location forward
  /// from it uploaded nothing).
  case archiveRefused
  /// 6: another savevault holds the game's lock.
  case busy
  /// 127: `wrap` could not start the game.
  case gameNotStarted
  /// 128 + N: stopped by signal N, after cleaning up what it could.
  case signal(Int32)
  /// `wrap`: the game's own exit code.
  case game(Int32)

  /// The status an error ends a run with: the one it states (`ExitStatusProviding`), else
  /// `failure`.
  public init(for error: any Error) {
    self = (error as? any ExitStatusProviding)?.exitStatus ?? .failure
  }

  /// The process exit code.
  public var code: Int32 {
    switch self {
    case .success: 0
    case .failure: 1
    case .usage: 2
    case .conflictUnanswered: 3
    case .containerUnavailable: 4
    case .archiveRefused: 5
    case .busy: 6
    case .gameNotStarted: 127
    case .signal(let number): 128 + number
    case .game(let code): code
    }
  }

  /// Every status a run can end with but a game's own, as the help lists them: the code
  /// (`128+N` for a signal) and what it means.
  public static let table: [(code: String, meaning: String)] = [
    ("0", "done"),
    ("1", "runtime error"),
    ("2", "usage error"),
    ("3", "conflict unresolved"),
    ("4", "container unavailable"),
    ("5", "archive refused"),
    ("6", "busy (another savevault holds the game)"),
    ("127", "the game could not be started (wrap)"),
    ("128+N", "stopped by signal N"),
  ]
}

/// An error that states the exit status it ends a run with.
public protocol ExitStatusProviding: Error {
  var exitStatus: ExitStatus { get }
}

extension Interrupted: ExitStatusProviding {
  public var exitStatus: ExitStatus { .signal(signal) }
}
