import Foundation

/// One conditional GET of a manifest, over within a deadline whatever the server does: a
/// launch waits at most that long. Separate from the S3 `HTTPClient`, whose retries and idle
/// timeout bound a transfer, not a total wait.
enum LocationManifestDownload {
  enum Answer: Equatable {
    /// 304: the copy whose ETag was sent is current.
    case notModified
    /// 200, with the whole body (its length checked against `Content-Length`).
    case body(Data, etag: String?)
  }

  /// GETs `url`, sending `If-None-Match: etag` when given, and checking an HTTPS server
  /// against `certificates`. Throws `DownloadFailure` for anything but a whole 200 or a 304:
  /// no answer within `deadline` seconds, a transport error, another status, a body shorter
  /// than announced, no libcurl to speak HTTP with.
  static func get(url: String, etag: String?, deadline: TimeInterval, certificates: CertificateBundle)
    throws(DownloadFailure) -> Answer
  {
    guard let address = URL(string: url), ["http", "https"].contains(address.scheme?.lowercased() ?? "")
    else {
      throw DownloadFailure(reason: "not an http(s) URL")
    }
    let request = HTTPRequest(url: url, headers: etag.map { [("If-None-Match", $0)] } ?? [])
    let response: HTTPResponse
    do {
      let handle = try CurlHandle(certificates: certificates)
      response = try handle.perform(
        request, body: .none,
        limits: CurlHandle.Limits(connect: deadline, idle: nil, total: deadline, followsRedirects: true))
    } catch let error as HTTPTransportError {
      throw DownloadFailure(
        reason: error.isTimeout ? "no answer within \(Int(deadline.rounded(.up))) s" : error.description)
    } catch {
      throw DownloadFailure(reason: String(describing: error))
    }
    switch response.status {
    case 304:
      return .notModified
    case 200:
      if let announced = response.headers["content-length"].flatMap(Int.init),
        announced != response.body.count
      {
        throw DownloadFailure(reason: "the body ended after \(response.body.count) of \(announced) bytes")
      }
      return .body(response.body, etag: response.headers["etag"])
    default:
      throw DownloadFailure(reason: "HTTP \(response.status)")
    }
  }
}

/// A download that did not give a usable manifest, in words.
struct DownloadFailure: Error, Equatable, Sendable {
  var reason: String
}
