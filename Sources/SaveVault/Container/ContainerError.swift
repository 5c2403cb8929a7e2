/// Failures of a container, converted from `errno`, HTTP status or tool exit codes where they
/// happen. Nothing above the container layer looks at those.
public enum ContainerError: AdvisedError, Equatable, Sendable {
  /// The container cannot be reached or refuses us: a missing folder, an unmounted drive, a
  /// network failure, denied credentials. Never to be read as "no backups".
  case unavailable(container: String, reason: String)
  /// The named archive is not in the container.
  case notFound(container: String, name: String)
  /// An archive of that name already exists; containers never replace archives.
  case alreadyExists(container: String, name: String)
  /// Reading or writing an archive failed part way.
  case transferFailed(container: String, name: String, reason: String)
  /// The container's storage is full. Never retried, never answered by deleting backups.
  case noSpace(container: String)

  public var message: Advised {
    switch self {
    case .unavailable(let container, let reason):
      "container '\(container)' is unavailable: \(reason)"
    case .notFound(let container, let name):
      "container '\(container)' has no archive '\(name)': \(remedy: .listArchives) to see what it holds"
    case .alreadyExists(let container, let name):
      "container '\(container)' already holds '\(name)'; nothing was replaced"
    case .transferFailed(let container, let name, let reason):
      "transfer of '\(name)' with container '\(container)' failed: \(reason)"
    case .noSpace(let container):
      "container '\(container)' is full: free some space there and retry"
    }
  }
}

/// Settings a container cannot work with, found when it is made, before any request: the
/// caller's settings are wrong, not the container.
public enum ContainerSetupError: AdvisedError, Equatable, Sendable {
  /// The S3 endpoint is not an http(s) URL, or is plain HTTP to another machine without leave.
  case unusableEndpoint(container: String, reason: Advised)
  /// A program the container works through is not installed (`install`: how to get it).
  case missingProgram(container: String, program: String, install: String)

  public var message: Advised {
    switch self {
    case .unusableEndpoint(let container, let reason):
      "container URL '\(container)' is not usable: \(reason)"
    case .missingProgram(let container, let program, let install):
      "container '\(container)' needs \(program), which is not installed: \(install)"
    }
  }
}

extension ContainerError: ExitStatusProviding {
  public var exitStatus: ExitStatus {
    switch self {
    case .unavailable, .transferFailed, .noSpace: .containerUnavailable
    case .notFound, .alreadyExists: .failure
    }
  }
}
