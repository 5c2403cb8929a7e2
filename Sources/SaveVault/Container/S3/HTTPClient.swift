import Dispatch
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A response: status, headers (lowercased names) and, for small bodies, the body.
struct HTTPResponse: Sendable {
  var status: Int
  var headers: [String: String]
  var body: Data
}

/// A failure to talk to the server at all (connection refused, DNS, timeout), after retries.
struct HTTPTransportError: Error, Sendable, CustomStringConvertible {
  var description: String
}

/// What a request sends.
enum HTTPBody: Sendable {
  case none
  case data(Data)
  /// `count` bytes of the open file `fd` from `offset`: mapped for each attempt and handed to
  /// the session as bytes (which copies them), so the session never opens, reads or closes a
  /// file itself and no copy of the range is written anywhere first.
  case fileRange(fd: Int32, offset: Int64, count: Int)
}

extension HTTPBody {
  /// Whether the body is large enough that holding two at once matters (a part).
  var isLarge: Bool {
    switch self {
    case .none: false
    case .data(let data): data.count >= 1 << 20
    case .fileRange(_, _, let count): count >= 1 << 20
    }
  }

  /// The body's bytes: the file range mapped read-only, unmapped when the value goes away.
  func bytes() throws -> Data {
    switch self {
    case .none: return Data()
    case .data(let data): return data
    case .fileRange(let fd, let offset, let count):
      guard count > 0 else { return Data() }
      let page = Int64(sysconf(Int32(_SC_PAGESIZE)))
      let start = offset / page * page
      let length = Int(offset - start) + count
      guard let base = mmap(nil, length, PROT_READ, MAP_SHARED, fd, off_t(start)), base != MAP_FAILED else {
        throw ArchiveError.unreadable(
          path: "the archive being uploaded", reason: Platform.describe(errno: errno))
      }
      return Data(
        bytesNoCopy: base + Int(offset - start), count: count,
        deallocator: .custom { _, _ in munmap(base, length) })
    }
  }
}

/// Blocking HTTP over URLSession for the S3 container: an idle timeout so a stalled server
/// cannot hang a game launch, no redirects followed at all (credentials never go to another
/// host; S3 redirects are errors anyway), and bounded retries with exponential backoff and
/// jitter on transport errors, 5xx and 429.
final class HTTPClient: @unchecked Sendable {
  private let session: URLSession
  private let events = SessionEvents()
  let retry: RetryPolicy
  let idleTimeout: TimeInterval

  init(idleTimeout: TimeInterval = 20, retry: RetryPolicy = RetryPolicy()) {
    self.retry = retry
    self.idleTimeout = idleTimeout
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = idleTimeout
    configuration.timeoutIntervalForResource = 6 * 3600
    configuration.httpCookieStorage = nil
    configuration.urlCache = nil
    session = URLSession(configuration: configuration, delegate: events, delegateQueue: nil)
  }

  deinit { session.invalidateAndCancel() }

  /// Told how many body bytes the current single upload has sent.
  var onBytesSent: (@Sendable (Int64) -> Void)? {
    get { events.onBytesSent }
    set { events.onBytesSent = newValue }
  }

  /// The session's delegate: refuses every redirect and reports upload progress.
  private final class SessionEvents: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    var onBytesSent: (@Sendable (Int64) -> Void)?

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
      totalBytesExpectedToSend: Int64
    ) {
      onBytesSent?(totalBytesSent)
    }

    /// Never follow a redirect.
    func urlSession(
      _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
      newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
      completionHandler(nil)
    }
  }

  /// Sends a request built afresh for each attempt by `make` (so it is signed with the time
  /// of that attempt), retrying as the policy says. With `downloadTo`, a 2xx body is written
  /// to that file instead of being kept in memory.
  func send(_ make: () throws -> URLRequest, body: HTTPBody, downloadTo: URL? = nil) throws -> HTTPResponse {
    var attempt = 0
    let started = Date()
    while true {
      attempt += 1
      let request = try make()
      do {
        let response = try once(request, body: body, downloadTo: downloadTo)
        let isRetryable = response.status >= 500 || response.status == 429
        if !isRetryable || !retry.allowsAnother(after: attempt, elapsed: Date().timeIntervalSince(started)) {
          return response
        }
      } catch let error as HTTPTransportError {
        // Another try may itself wait a whole idle timeout: start it only if that still ends
        // within the policy's bound.
        if !retry.allowsAnother(after: attempt, elapsed: Date().timeIntervalSince(started) + idleTimeout) {
          throw error
        }
      }
      Thread.sleep(forTimeInterval: retry.delay(after: attempt))
    }
  }

  private func once(_ request: URLRequest, body: HTTPBody, downloadTo: URL?) throws -> HTTPResponse {
    let outcome = Outcome()
    let idle = Int(idleTimeout)  // captured by value: the session's threads must not own the client
    let finish: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = { data, response, error in
      if let error {
        let description =
          (error as? URLError)?.code == .timedOut
          ? "no answer for \(idle) s (timed out)" : error.localizedDescription
        outcome.result = .failure(HTTPTransportError(description: description))
      } else if let http = response as? HTTPURLResponse {
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
          if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
        }
        outcome.result = .success(
          HTTPResponse(status: http.statusCode, headers: headers, body: data ?? Data()))
      } else {
        outcome.result = .failure(HTTPTransportError(description: "not an HTTP response"))
      }
      outcome.done.signal()
    }
    let started = Lingering()
    func start(_ task: URLSessionTask) {
      task.resume()
      started.task = task
    }
    if let downloadTo {
      start(
        session.downloadTask(with: request) { location, response, error in
          var body: Data?
          if let location, let http = response as? HTTPURLResponse {
            if (200..<300).contains(http.statusCode) {
              try? FileManager.default.removeItem(at: downloadTo)
              do {
                try FileManager.default.moveItem(at: location, to: downloadTo)
              } catch {
                finish(nil, nil, error)
                return
              }
            } else {
              body = try? Data(contentsOf: location)
            }
          }
          finish(body, response, error)
        })
    } else {
      switch body {
      case .none: start(session.dataTask(with: request, completionHandler: finish))
      case .data, .fileRange:
        start(session.uploadTask(with: request, from: try body.bytes(), completionHandler: finish))
      }
    }
    outcome.done.wait()
    // The session keeps its copy of a request's body until it lets go of the task, a moment
    // after the completion handler: wait for that (briefly), so that the next part's body is
    // not copied while this one is still held (two parts in memory instead of one).
    // Only a part's body is worth waiting for; other requests return at once.
    var waits = 0
    while body.isLarge && started.task != nil && waits < 200 {
      usleep(500)
      waits += 1
    }
    return try outcome.result.get()
  }

  /// A task the session may still hold once it has answered.
  private final class Lingering: @unchecked Sendable {
    weak var task: URLSessionTask?
  }

  /// Where a task's completion handler leaves its result for the waiting caller.
  private final class Outcome: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    var result: Result<HTTPResponse, HTTPTransportError> = .failure(
      HTTPTransportError(description: "no response"))
  }
}

/// Bounded retries: exponential backoff with jitter, at most `maxAttempts` tries and never
/// starting a new try after `maxSeconds` (so a launch script waits a known, bounded time).
public struct RetryPolicy: Sendable, Equatable {
  public var maxAttempts = 5
  public var baseDelay: TimeInterval = 0.25
  public var maxDelay: TimeInterval = 4
  public var maxSeconds: TimeInterval = 30

  public init(
    maxAttempts: Int = 5, baseDelay: TimeInterval = 0.25, maxDelay: TimeInterval = 4,
    maxSeconds: TimeInterval = 30
  ) {
    self.maxAttempts = maxAttempts
    self.baseDelay = baseDelay
    self.maxDelay = maxDelay
    self.maxSeconds = maxSeconds
  }

  func allowsAnother(after attempt: Int, elapsed: TimeInterval) -> Bool {
    attempt < maxAttempts && elapsed + delay(after: attempt, jitter: 0) < maxSeconds
  }

  /// The pause after `attempt` failed tries: base × 2^(attempt-1), capped, with up to 50 %
  /// jitter (`jitter` in 0...1).
  func delay(after attempt: Int, jitter: Double = Double.random(in: 0...1)) -> TimeInterval {
    let exponential = min(maxDelay, baseDelay * pow(2, Double(attempt - 1)))
    return exponential * (0.5 + 0.5 * jitter)
  }
}
