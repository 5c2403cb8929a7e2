/// Failures of a container, converted from `errno`, HTTP status or tool exit codes where they
/// happen. Nothing above the container layer looks at those.
public enum ContainerError: AdvisedError, Equatable, Sendable {
  /// The container cannot be reached or refuses us: a missing folder, an unmounted drive, a
  /// network failure, denied credentials. Never to be read as "no backups".
  case unavailable(container: String, cause: Cause)
  /// The named archive is not in the container.
  case notFound(container: String, name: String)
  /// An archive of that name already exists; containers never replace archives.
  case alreadyExists(container: String, name: String)
  /// Reading or writing an archive failed part way.
  case transferFailed(container: String, name: String, reason: String)
  /// The container's storage is full. Never retried, never answered by deleting backups.
  case noSpace(container: String)
  /// The name cannot be stored: empty, over 255 bytes, with a `/` or a NUL, or hidden (`.…`,
  /// which containers keep for their own temporary and probe files).
  case refusedName(container: String, name: String)

  /// Why a container is unavailable, decided where the failure happens (an `errno`, a curl
  /// code, an S3 error code, an rclone exit), so that nothing above reads its words. Each
  /// cause carries what its message says.
  public enum Cause: Sendable, Equatable, CustomStringConvertible {
    /// The server could not be reached (a connection refused, a name not resolved, a timeout):
    /// `endpoint` is what was dialled, `detail` the transport's words.
    case network(endpoint: String, detail: String)
    /// HTTPS could not check the server's certificate (a missing CA bundle, a self-signed or
    /// expired certificate): `detail` is the TLS library's words.
    case certificate(endpoint: String, detail: String)
    /// The server refused the credentials; `reason` says which and what to check.
    case credentialsRefused(reason: String)
    /// The server refused the request's time: this machine's clock is `minutes` ahead of the
    /// server's (negative: behind), nil when the server did not say its time.
    case clockSkew(minutes: Int64?)
    /// libcurl, which HTTP goes through, cannot be loaded; `reason` is the loader's words.
    case httpLibraryMissing(reason: String)
    /// The container's root (a folder, a bucket, an rclone path) does not exist; `reason`
    /// names it and says how to make it.
    case missing(reason: String)
    /// Anything else, in words.
    case other(String)

    public var description: String {
      switch self {
      case .network(let endpoint, let detail), .certificate(let endpoint, let detail):
        "cannot reach \(endpoint): \(detail)"
      case .credentialsRefused(let reason), .missing(let reason), .other(let reason): reason
      case .clockSkew(let minutes):
        "your clock is \(minutes.map { $0 >= 0 ? "\($0) minutes ahead of" : "\(-$0) minutes behind" } ?? "off from") the server's (S3 allows 15): set the system time right"
      case .httpLibraryMissing(let reason): LibCurlUnavailable(reason: reason).description
      }
    }
  }

  /// `.unavailable` for a cause with no kind of its own (`.other`).
  public static func unavailable(container: String, reason: String) -> ContainerError {
    .unavailable(container: container, cause: .other(reason))
  }

  public var message: Advised {
    switch self {
    case .unavailable(let container, let cause):
      "container '\(container)' is unavailable: \(cause)"
    case .notFound(let container, let name):
      "container '\(container)' has no archive '\(name)': \(remedy: .listArchives) to see what it holds"
    case .alreadyExists(let container, let name):
      "container '\(container)' already holds '\(name)'; nothing was replaced"
    case .transferFailed(let container, let name, let reason):
      "transfer of '\(name)' with container '\(container)' failed: \(reason)"
    case .noSpace(let container):
      "container '\(container)' is full: free some space there and retry"
    case .refusedName(let container, let name):
      "container '\(container)' cannot store a file named '\(name)': a name is 1 to 255 bytes, without '/' and not starting with '.'"
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
    case .notFound, .alreadyExists, .refusedName: .failure
    }
  }
}
