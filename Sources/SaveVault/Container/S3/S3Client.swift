import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Signed requests to one S3 bucket: SigV4 (signed afresh for each try), retries and the idle
/// timeout (`HTTPClient`), and the server's answers turned into `ContainerError` where they
/// come back: transport failures, refused credentials, clock skew, a missing bucket, error
/// XML. Knows keys, not archives; `S3Container` is what stores archives with it.
final class S3Client: @unchecked Sendable {
  let bucket: String
  let region: String
  let credentials: AWSCredentials
  /// The container's URL, for messages.
  let displayName: String
  let clock: @Sendable () -> Int64
  let http: HTTPClient
  private let scheme: String
  private let host: String
  private let port: Int?
  private let isPathStyle: Bool
  private let known = NSLock()
  private var lastServer: String?

  /// Throws `ContainerSetupError.unusableEndpoint` for an endpoint that is not http(s), or
  /// plain HTTP to another machine unless the settings allow it. HTTPS checks the server
  /// against `certificates`. Nothing is loaded or connected until the first request.
  init(
    bucket: String, settings: S3ContainerSettings, credentials: AWSCredentials, displayName: String,
    clock: @escaping @Sendable () -> Int64, certificates: CertificateBundle
  ) throws(ContainerSetupError) {
    self.bucket = bucket
    self.region = settings.region
    self.credentials = credentials
    self.displayName = displayName
    self.clock = clock
    self.http = HTTPClient(
      idleTimeout: settings.idleTimeout, retry: settings.retry, certificates: certificates)
    if let endpoint = settings.endpoint {
      guard let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(), let host = url.host,
        scheme == "http" || scheme == "https"
      else {
        throw .unusableEndpoint(
          container: displayName, reason: "the endpoint '\(endpoint)' is not an http(s) URL")
      }
      if scheme == "http" && !settings.allowsInsecureHTTP && !Self.isLoopback(host) {
        throw .unusableEndpoint(
          container: displayName,
          reason:
            "the endpoint '\(endpoint)' is plain HTTP to another machine, which would send the credentials' signatures and your saves unencrypted; use https, or \(remedy: .allowInsecureHTTP)"
        )
      }
      self.scheme = scheme
      self.host = host
      self.port = url.port
      self.isPathStyle = true
    } else {
      self.scheme = "https"
      self.host = "\(bucket).s3.\(settings.region).amazonaws.com"
      self.port = nil
      self.isPathStyle = false
    }
  }

  /// The `Server` header of the last answer (nil before the first).
  var serverSoftware: String? { known.withLock { lastServer } }

  /// Whether `host` is this machine: `localhost`, an IPv4 literal in 127.0.0.0/8, or `::1`.
  /// Names that merely start like one (`127.0.0.1.nip.io`) are other machines.
  static func isLoopback(_ host: String) -> Bool {
    let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    if bare.lowercased() == "localhost" { return true }
    var v4 = in_addr()
    if inet_pton(AF_INET, bare, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
    var v6 = in6_addr()
    var loopback6 = in6addr_loopback
    if inet_pton(AF_INET6, bare, &v6) == 1 {
      return memcmp(&v6, &loopback6, MemoryLayout<in6_addr>.size) == 0
    }
    return false
  }

  /// The object's size and ETag, or nil if it does not exist.
  func head(_ key: String) throws -> (size: Int64, etag: String?)? {
    let response = try request("HEAD", key: key)
    if response.status == 404 { return nil }
    try expectSuccess(response, name: key)
    return (
      response.headers["content-length"].flatMap { Int64($0) } ?? 0, Self.plainETag(response.headers["etag"])
    )
  }

  /// Signs and sends one request (re-signed on each retry).
  func request(
    _ method: String, key: String?, query: [(String, String)] = [], headers extra: [(String, String)] = [],
    payloadHash: String = SHA256.hex(of: ""), body: HTTPBody = .none, downloadTo: String? = nil
  ) throws -> HTTPResponse {
    let path = isPathStyle ? "/" + bucket + (key.map { "/" + $0 } ?? "") : "/" + (key ?? "")
    let hostHeader = port.map { "\(host):\($0)" } ?? host
    let make = { () throws -> HTTPRequest in
      let amzDate = SigV4.amzDate(epochMs: self.clock())
      var headers =
        [("host", hostHeader), ("x-amz-date", amzDate), ("x-amz-content-sha256", payloadHash)] + extra
      if let token = self.credentials.sessionToken { headers.append(("x-amz-security-token", token)) }
      let signing = SigV4Request(
        method: method, path: path, query: query, headers: headers, payloadHash: payloadHash)
      let authorization = SigV4.authorization(
        signing, credentials: self.credentials, amzDate: amzDate, region: self.region)
      let queryText = SigV4.canonicalQuery(query)
      let text =
        "\(self.scheme)://\(hostHeader)\(SigV4.encode(path, keepSlash: true))"
        + (queryText.isEmpty ? "" : "?" + queryText)
      guard URL(string: text) != nil else {
        throw ContainerError.transferFailed(
          container: self.displayName, name: key ?? "", reason: "cannot form a URL")
      }
      // libcurl sends Host from the URL, as signed.
      let sent = headers.filter { $0.0 != "host" } + [("Authorization", authorization)]
      return HTTPRequest(method: method, url: text, headers: sent)
    }
    do {
      let response = try http.send(make, body: body, downloadTo: downloadTo)
      if let server = response.headers["server"] { known.withLock { lastServer = server } }
      return response
    } catch let error as HTTPTransportError {
      let endpoint = "\(scheme)://\(hostHeader)"
      throw ContainerError.unavailable(
        container: displayName,
        cause: error.isCertificateProblem
          ? .certificate(endpoint: endpoint, detail: error.description)
          : .network(endpoint: endpoint, detail: error.description))
    } catch let error as LibCurlUnavailable {
      throw ContainerError.unavailable(
        container: displayName, cause: .httpLibraryMissing(reason: error.reason))
    } catch let error as HTTPBodyUnreadable {
      throw ArchiveError.unreadable(path: "the archive being uploaded", reason: error.reason)
    }
  }

  /// Turns an error status into our errors, with what to check.
  func expectSuccess(_ response: HTTPResponse, name: String?) throws {
    guard !(200..<300).contains(response.status) else { return }
    let document = S3ErrorDocument(response.body)
    let code = document?.code ?? ""
    // rclone serve s3 says a clock a day off with AccessDenied and this message.
    let isSkew =
      code == "AccessDenied" && document?.message.contains("request time and the server's time") == true
    let detail = document.map { "\($0.code): \($0.message)" } ?? "HTTP \(response.status)"
    switch (response.status, isSkew ? "RequestTimeTooSkewed" : code) {
    case (_, "RequestTimeTooSkewed"):
      let server =
        document?.serverTime.flatMap(iso8601Ms) ?? response.headers["date"].flatMap(Self.httpDateMs)
      let minutes = server.map { server in
        let offset = clock() - server
        return (offset + (offset < 0 ? -30_000 : 30_000)) / 60_000  // to the nearest minute
      }
      throw ContainerError.unavailable(container: displayName, cause: .clockSkew(minutes: minutes))
    case (_, "NoSuchBucket"):
      throw ContainerError.unavailable(
        container: displayName, cause: .missing(reason: "the bucket '\(bucket)' does not exist"))
    case (_, "InvalidAccessKeyId"):
      throw ContainerError.unavailable(
        container: displayName,
        cause: .credentialsRefused(
          reason:
            "refused the access key (HTTP \(response.status)): check AWS_ACCESS_KEY_ID or the profile's aws_access_key_id"
        ))
    case (_, "SignatureDoesNotMatch"):
      throw ContainerError.unavailable(
        container: displayName,
        cause: .credentialsRefused(
          reason:
            "refused the signature (HTTP \(response.status)): check AWS_SECRET_ACCESS_KEY or the profile's aws_secret_access_key"
        ))
    case (401, _), (403, _):
      throw ContainerError.unavailable(
        container: displayName,
        cause: .credentialsRefused(
          reason:
            "refused the credentials (HTTP \(response.status), \(detail)): check AWS_ACCESS_KEY_ID / AWS_PROFILE and their permissions"
        ))
    case (404, _) where name == nil:
      throw ContainerError.unavailable(
        container: displayName, cause: .missing(reason: "the bucket '\(bucket)' does not exist (\(detail))"))
    case (404, _):
      throw ContainerError.notFound(container: displayName, name: name ?? "")
    case (301, _), (302, _), (307, _), (308, _):
      throw ContainerError.unavailable(
        container: displayName,
        reason: "the server redirects elsewhere (\(detail)): check the region and endpoint")
    default:
      if response.status >= 500 || response.status == 429 {
        throw ContainerError.unavailable(
          container: displayName, reason: "the server keeps failing (\(detail))")
      }
      throw ContainerError.transferFailed(container: displayName, name: name ?? "", reason: detail)
    }
  }

  static func httpDateMs(_ text: String) -> Int64? {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
    return formatter.date(from: text).map { Int64($0.timeIntervalSince1970 * 1000) }
  }

  /// An ETag without its quotes, in lower case.
  static func plainETag(_ header: String?) -> String? {
    header?.trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
  }
}
