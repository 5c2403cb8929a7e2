import Dispatch
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One conditional GET of a manifest, over within a deadline whatever the server does: a
/// launch waits at most that long. Separate from the S3 `HTTPClient`, whose retries and idle
/// timeout bound a transfer, not a total wait.
enum ManifestDownload {
  enum Answer: Equatable {
    /// 304: the copy whose ETag was sent is current.
    case notModified
    /// 200, with the whole body (its length checked against `Content-Length`).
    case body(Data, etag: String?)
  }

  /// GETs `url`, sending `If-None-Match: etag` when given. Throws `DownloadFailure` for
  /// anything but a whole 200 or a 304: no answer within `deadline` seconds, a transport
  /// error, another status, a body shorter than announced.
  static func get(url: String, etag: String?, deadline: TimeInterval) throws(DownloadFailure) -> Answer {
    guard let address = URL(string: url), ["http", "https"].contains(address.scheme?.lowercased() ?? "")
    else {
      throw DownloadFailure(reason: "not an http(s) URL")
    }
    var request = URLRequest(url: address)
    if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = deadline
    configuration.timeoutIntervalForResource = deadline
    configuration.urlCache = nil
    configuration.httpCookieStorage = nil
    let session = URLSession(configuration: configuration)
    defer { session.invalidateAndCancel() }
    let outcome = Outcome()
    let task = session.dataTask(with: request) { data, response, error in
      outcome.set(data: data, response: response as? HTTPURLResponse, error: error)
    }
    task.resume()
    guard outcome.done.wait(timeout: .now() + deadline) == .success else {
      task.cancel()
      throw DownloadFailure(reason: "no answer within \(Int(deadline.rounded(.up))) s")
    }
    let (data, response, error) = outcome.get()
    if let error { throw DownloadFailure(reason: error.localizedDescription) }
    guard let response else { throw DownloadFailure(reason: "not an HTTP response") }
    switch response.statusCode {
    case 304:
      return .notModified
    case 200:
      let body = data ?? Data()
      if let announced = response.value(forHTTPHeaderField: "Content-Length").flatMap(Int.init),
        announced != body.count
      {
        throw DownloadFailure(reason: "the body ended after \(body.count) of \(announced) bytes")
      }
      return .body(body, etag: response.value(forHTTPHeaderField: "ETag"))
    default:
      throw DownloadFailure(reason: "HTTP \(response.statusCode)")
    }
  }

  /// Where the session's thread leaves the answer for the waiting caller.
  private final class Outcome: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var value: (Data?, HTTPURLResponse?, (any Error)?) = (nil, nil, nil)

    func set(data: Data?, response: HTTPURLResponse?, error: (any Error)?) {
      lock.lock()
      value = (data, response, error)
      lock.unlock()
      done.signal()
    }

    func get() -> (Data?, HTTPURLResponse?, (any Error)?) {
      lock.lock()
      defer { lock.unlock() }
      return value
    }
  }
}

/// A download that did not give a usable manifest, in words.
struct DownloadFailure: Error, Equatable, Sendable {
  var reason: String
}
