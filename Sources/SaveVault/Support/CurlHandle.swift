import CPlatform
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One libcurl easy handle: one request at a time, from one thread at a time. The connection
/// of a request stays open for the next one to the same server (a listing, then a HEAD, then
/// the upload's parts), which is why a handle is kept rather than made per request.
///
/// Never follows a redirect (credentials go to no other host; to S3 a redirect is an error
/// anyway), sends no `Expect: 100-continue`, and checks the server against the CA bundle
/// SaveVault chose (`CertificateBundle`), not the path compiled into the libcurl at hand.
final class CurlHandle {
  /// How long a request may take.
  struct Limits: Sendable {
    /// Seconds to connect (name lookup, TCP, TLS).
    var connect: TimeInterval
    /// Seconds without a byte sent or received before the request is given up; nil: no limit.
    var idle: TimeInterval?
    /// Seconds for the whole request; nil: no limit.
    var total: TimeInterval?
    /// Whether a redirect to another HTTP or HTTPS address is followed (at most 5). Never for
    /// S3, whose signed requests must not go elsewhere; the manifest carries no credentials
    /// and may be published behind one (a release download).
    var followsRedirects = false
  }

  private let handle: UnsafeMutableRawPointer
  private let certificates: CertificateBundle

  /// Loads libcurl on first use. Throws `LibCurlUnavailable` when it cannot.
  init(certificates: CertificateBundle) throws(LibCurlUnavailable) {
    try LibCurl.load()
    guard let handle = savevault_curl_easy_init() else {
      throw LibCurlUnavailable(reason: "curl_easy_init made no handle")
    }
    self.handle = handle
    self.certificates = certificates
  }

  deinit { savevault_curl_easy_cleanup(handle) }

  /// Sends `request` with `body` and returns the server's answer, whatever its status. With
  /// `downloadTo`, a 2xx body is written to that file (created or truncated, mode 0600)
  /// instead of being kept in memory; any other body is kept in memory. `onBytesSent` is
  /// told how many body bytes have gone out, on this thread, as they go.
  ///
  /// Throws `HTTPTransportError` when there is no complete answer (`isTimeout` when a limit
  /// ran out), and the body's own error when it cannot be read.
  func perform(
    _ request: HTTPRequest, body: HTTPBody, limits: Limits, downloadTo: String? = nil,
    onBytesSent: ((Int64) -> Void)? = nil
  ) throws -> HTTPResponse {
    let transfer = CurlTransfer(body: body, downloadTo: downloadTo, onBytesSent: onBytesSent)
    var headers: UnsafeMutablePointer<curl_slist>?
    defer { savevault_curl_slist_free_all(headers) }
    for line in Self.headerLines(request) {
      guard let longer = savevault_curl_slist_append(headers, line) else {
        throw HTTPTransportError(description: "libcurl could not hold the request's headers")
      }
      headers = longer
    }
    var status = 0
    let code = withExtendedLifetime(transfer) { () -> CURLcode in
      // Nothing of this request (its buffers, lists, data pointer) stays set on the handle
      // once it is over; the connection stays open for the next.
      defer { savevault_curl_easy_reset(handle) }
      let context = UnsafeRawPointer(Unmanaged.passUnretained(transfer).toOpaque())
      let options = Options(handle: handle)
      options.set(CURLOPT_URL, request.url)
      options.set(CURLOPT_NOSIGNAL, 1)  // no alarm() for name lookups: signals are the program's
      options.set(CURLOPT_FOLLOWLOCATION, limits.followsRedirects ? 1 : 0)
      if limits.followsRedirects {
        options.set(CURLOPT_MAXREDIRS, 5)
        options.set(CURLOPT_REDIR_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS))
      }
      options.set(CURLOPT_USERAGENT, "savevault/\(BuildInfo.version)")
      options.set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(limits.connect))
      if let idle = limits.idle {
        // Less than one byte a second for `idle` seconds: nothing moves any more.
        options.set(CURLOPT_LOW_SPEED_LIMIT, 1)
        options.set(CURLOPT_LOW_SPEED_TIME, max(1, Int(idle.rounded(.up))))
      }
      if let total = limits.total { options.set(CURLOPT_TIMEOUT_MS, Self.milliseconds(total)) }
      if let file = certificates.file { options.set(CURLOPT_CAINFO, file) }
      if let directory = certificates.directory { options.set(CURLOPT_CAPATH, directory) }
      options.set(CURLOPT_ERRORBUFFER, pointer: transfer.errorText)
      options.set(CURLOPT_HTTPHEADER, pointer: headers)
      options.set(CURLOPT_HEADERFUNCTION, function: CurlTransfer.receiveHeader)
      options.set(CURLOPT_HEADERDATA, pointer: context)
      options.set(CURLOPT_WRITEFUNCTION, function: CurlTransfer.receiveBody)
      options.set(CURLOPT_WRITEDATA, pointer: context)
      switch request.method {
      case "GET": break
      case "HEAD": options.set(CURLOPT_NOBODY, 1)
      case "POST":
        options.set(CURLOPT_POST, 1)
        options.set(CURLOPT_POSTFIELDSIZE_LARGE, size: body.count)
      case "PUT":
        options.set(CURLOPT_UPLOAD, 1)
        options.set(CURLOPT_INFILESIZE_LARGE, size: body.count)
      default:
        options.set(CURLOPT_CUSTOMREQUEST, request.method)
        if body.count > 0 {
          options.set(CURLOPT_UPLOAD, 1)
          options.set(CURLOPT_INFILESIZE_LARGE, size: body.count)
        }
      }
      // Always given for a method that may send a body: libcurl's default reads stdin.
      options.set(CURLOPT_READFUNCTION, function: CurlTransfer.sendBody)
      options.set(CURLOPT_READDATA, pointer: context)
      // For a request sent again on a fresh connection when the kept one turned out closed.
      options.set(CURLOPT_SEEKFUNCTION, seek: CurlTransfer.rewindBody)
      options.set(CURLOPT_SEEKDATA, pointer: context)
      if onBytesSent != nil {
        options.set(CURLOPT_NOPROGRESS, 0)
        options.set(CURLOPT_XFERINFOFUNCTION, progress: CurlTransfer.reportProgress)
        options.set(CURLOPT_XFERINFODATA, pointer: context)
      }
      if options.failure != CURLE_OK { return options.failure }
      let code = savevault_curl_easy_perform(handle)
      _ = savevault_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
      return code
    }
    let saved = transfer.finishDownload(succeeded: code == CURLE_OK)
    if let error = transfer.bodyError { throw error }
    if let failure = transfer.writeFailure ?? saved {
      throw HTTPTransportError(description: failure)
    }
    guard code == CURLE_OK else {
      let errorText = String(cString: transfer.errorText)
      let detail = errorText.isEmpty ? String(cString: savevault_curl_easy_strerror(code)) : errorText
      throw HTTPTransportError(
        description: detail, isTimeout: code == CURLE_OPERATION_TIMEDOUT,
        isCertificateProblem: Self.certificateCodes.contains(code) || detail.contains("certificate")
          || detail.contains("SSL"))
    }
    return HTTPResponse(status: status, headers: transfer.headers, body: transfer.memory)
  }

  /// The codes of a TLS handshake that failed over the server's certificate or the CA bundle.
  static let certificateCodes: Set<CURLcode> = [
    CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM,
    CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
  ]

  /// The request's headers as libcurl takes them, with `Expect:` (no waiting for a
  /// `100 Continue` before a body) and, for a POST, no form `Content-Type` of libcurl's own.
  static func headerLines(_ request: HTTPRequest) -> [String] {
    // "Name:" would remove a header; "Name;" sends it empty.
    var lines = request.headers.map { $0.1.isEmpty ? "\($0.0);" : "\($0.0): \($0.1)" }
    let names = Set(request.headers.map { $0.0.lowercased() })
    if !names.contains("expect") { lines.append("Expect:") }
    if request.method == "POST" && !names.contains("content-type") { lines.append("Content-Type:") }
    return lines
  }

  private static func milliseconds(_ seconds: TimeInterval) -> Int {
    Int(min(seconds * 1000, Double(Int32.max)).rounded(.up))
  }

  /// Options set on a handle; the first refusal is kept (the request is then not sent).
  private final class Options {
    let handle: UnsafeMutableRawPointer
    var failure = CURLE_OK

    init(handle: UnsafeMutableRawPointer) { self.handle = handle }

    private func keep(_ code: CURLcode) {
      if failure == CURLE_OK { failure = code }
    }

    func set(_ option: CURLoption, _ value: Int) { keep(savevault_curl_setopt_long(handle, option, value)) }
    func set(_ option: CURLoption, size: Int64) {
      keep(savevault_curl_setopt_off_t(handle, option, curl_off_t(size)))
    }
    func set(_ option: CURLoption, _ text: String) {
      keep(savevault_curl_setopt_pointer(handle, option, text))
    }
    /// Any pointer (typed ones convert to a raw pointer as they are passed).
    func set(_ option: CURLoption, pointer: UnsafeRawPointer?) {
      keep(savevault_curl_setopt_pointer(handle, option, pointer))
    }
    func set(_ option: CURLoption, function: curl_write_callback) {
      keep(savevault_curl_setopt_data_function(handle, option, function))
    }
    func set(_ option: CURLoption, progress: curl_xferinfo_callback) {
      keep(savevault_curl_setopt_xferinfo_function(handle, option, progress))
    }
    func set(_ option: CURLoption, seek: curl_seek_callback) {
      keep(savevault_curl_setopt_seek_function(handle, option, seek))
    }
  }
}
