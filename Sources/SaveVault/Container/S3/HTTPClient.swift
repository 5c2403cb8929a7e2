import Foundation

/// Blocking HTTP for the S3 container, over libcurl (loaded by the first request): an idle
/// timeout so a stalled server cannot hang a game launch, no redirects followed at all
/// (credentials never go to another host; S3 redirects are errors anyway), and bounded retries
/// with exponential backoff and jitter on transport errors, 5xx and 429.
///
/// Requests from one thread at a time share one libcurl handle, and so its open connection;
/// a request made while another is under way gets a handle of its own.
final class HTTPClient: @unchecked Sendable {
  let retry: RetryPolicy
  let idleTimeout: TimeInterval
  let certificates: CertificateBundle
  private let lock = NSLock()
  private var idleHandles: [CurlHandle] = []
  private var bytesSent: (@Sendable (Int64) -> Void)?

  init(idleTimeout: TimeInterval = 20, retry: RetryPolicy = RetryPolicy(), certificates: CertificateBundle) {
    self.retry = retry
    self.idleTimeout = idleTimeout
    self.certificates = certificates
  }

  /// Told how many body bytes the current single upload has sent.
  var onBytesSent: (@Sendable (Int64) -> Void)? {
    get { lock.withLock { bytesSent } }
    set { lock.withLock { bytesSent = newValue } }
  }

  /// Sends a request built afresh for each attempt by `make` (so it is signed with the time
  /// of that attempt), retrying as the policy says. With `downloadTo`, a 2xx body is written
  /// to that file instead of being kept in memory. Throws `HTTPTransportError` when no attempt
  /// got an answer, `LibCurlUnavailable` when libcurl cannot be loaded, and what `make` or
  /// reading the body throws.
  func send(_ make: () throws -> HTTPRequest, body: HTTPBody, downloadTo: String? = nil) throws
    -> HTTPResponse
  {
    let handle = try borrowHandle()
    defer { lock.withLock { idleHandles.append(handle) } }
    // A whole upload may take hours; only a stall ends it.
    let limits = CurlHandle.Limits(connect: idleTimeout, idle: idleTimeout, total: 6 * 3600)
    let progress = onBytesSent
    var attempt = 0
    let started = Date()
    while true {
      attempt += 1
      let request = try make()
      do {
        let response = try handle.perform(
          request, body: body, limits: limits, downloadTo: downloadTo, onBytesSent: progress)
        // 501 Not Implemented is an answer, not a passing failure.
        let isRetryable = (response.status >= 500 && response.status != 501) || response.status == 429
        if !isRetryable || !retry.allowsAnother(after: attempt, elapsed: Date().timeIntervalSince(started)) {
          return response
        }
      } catch let error as HTTPTransportError {
        // Another try may itself wait a whole idle timeout: start it only if that still ends
        // within the policy's bound.
        if !retry.allowsAnother(after: attempt, elapsed: Date().timeIntervalSince(started) + idleTimeout) {
          guard error.isTimeout else { throw error }
          throw HTTPTransportError(
            description: "no answer for \(Int(idleTimeout)) s (timed out)", isTimeout: true)
        }
      }
      Thread.sleep(forTimeInterval: retry.delay(after: attempt))
    }
  }

  /// A handle no other request is using: the last one given back, or a new one.
  private func borrowHandle() throws(LibCurlUnavailable) -> CurlHandle {
    if let kept = lock.withLock({ idleHandles.popLast() }) { return kept }
    return try CurlHandle(certificates: certificates)
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
