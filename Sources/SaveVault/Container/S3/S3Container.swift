import CLibCrypto
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A container in an S3-compatible bucket: archives at `<prefix>/<game>/<name>`.
///
/// Spoken natively (SigV4 over libcurl). Uploads are packed to a local temporary file, then
/// stored with one PUT (with Content-MD5 and a signed SHA-256) or, above `multipartThreshold`,
/// a multipart upload sent while the file is still being written (one part in memory at a
/// time, aborted on failure; what a killed run left behind is aborted by a later upload). Bodies
/// are sent from ranges of the temporary file, never copied to another file. Downloads stream
/// to a temporary file.
///
/// Every request is a round trip to a server that may be far away, so none is made that a
/// guarantee does not need: names are never replaced, by a conditional PUT (`If-None-Match:
/// *`) where the server honours one (checked once and remembered, `S3LocalState`) and a HEAD
/// before the upload where it does not (and before a multipart upload); the server's own
/// checks of the body (Content-MD5, the signed SHA-256, the ETag it answers with) confirm the
/// upload, without a HEAD after it; and abandoned multipart uploads are looked for only when
/// this device's journal says one of its own was interrupted.
public final class S3Container: Container, @unchecked Sendable {
  public let displayName: String
  let bucket: String
  let prefix: String
  /// A custom endpoint (MinIO, Garage, R2, B2, …), addressed path-style; nil: AWS itself,
  /// addressed virtual-hosted.
  let endpoint: String?
  let region: String
  let credentials: AWSCredentials
  let clock: @Sendable () -> Int64
  let http: HTTPClient
  /// ListObjectsV2 page size (the server's default when nil); tests make it small.
  var pageSize: Int?
  /// Where upload and download progress goes.
  var progress: @Sendable (ProgressEvent) -> Void = { _ in }
  /// Points where an upload may stop (`Context.checkpoint`): a failed checkpoint aborts it.
  var checkpoint: @Sendable (String) throws -> Void = { _ in }
  /// Archives above this size are sent in parts (which start going out while the archive is
  /// still being written), no larger than a part.
  var multipartThreshold: Int64 = 5 << 20
  /// The size of the first 2,000 parts (S3's smallest allowed; `partRange`).
  var partSize: Int64 = 5 << 20
  static let staleUploadMs: Int64 = 3_600_000
  /// What this container keeps on this device (nil: nothing is kept, so the server is checked
  /// for conditional PUTs once per value and for abandoned uploads before every upload).
  var localState: S3LocalState?
  private let known = NSLock()
  private var knownConditionalPut: Bool?
  /// The `Server` header of the last answer: a server that changed is checked again.
  private var lastServer: String?
  /// How long an answer about conditional PUTs is believed before it is checked again.
  static let factsLifetimeMs: Int64 = 30 * 86_400_000

  private let scheme: String
  private let host: String
  private let port: Int?
  private let isPathStyle: Bool

  /// Throws `ContainerSetupError.unusableEndpoint` for an endpoint that is not http(s), or
  /// plain HTTP to another machine unless `allowsInsecureHTTP`. HTTPS checks the server
  /// against `certificates`. Nothing is loaded or connected until the first request.
  public init(
    bucket: String, prefix: String, endpoint: String? = nil, region: String = "us-east-1",
    allowsInsecureHTTP: Bool = false, credentials: AWSCredentials, displayName: String,
    clock: @escaping @Sendable () -> Int64, retry: RetryPolicy = RetryPolicy(),
    idleTimeout: TimeInterval = 20,
    certificates: CertificateBundle = .choose(environment: [:])
  ) throws(ContainerSetupError) {
    self.bucket = bucket
    self.prefix = prefix
    self.endpoint = endpoint
    self.region = region
    self.credentials = credentials
    self.displayName = displayName
    self.clock = clock
    self.http = HTTPClient(idleTimeout: idleTimeout, retry: retry, certificates: certificates)
    if let endpoint {
      guard let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(), let host = url.host,
        scheme == "http" || scheme == "https"
      else {
        throw .unusableEndpoint(
          container: displayName, reason: "the endpoint '\(endpoint)' is not an http(s) URL")
      }
      if scheme == "http" && !allowsInsecureHTTP && !Self.isLoopback(host) {
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
      self.host = "\(bucket).s3.\(region).amazonaws.com"
      self.port = nil
      self.isPathStyle = false
    }
  }

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

  // MARK: Container

  public func probe() throws {
    _ = try listPage(prefix: keyPrefix(game: nil), token: nil, maxKeys: 1)
  }

  public func list(game: String) throws -> [ContainerFile] {
    let folder = keyPrefix(game: game)
    var token: String?
    var files: [ContainerFile] = []
    repeat {
      let page = try listPage(prefix: folder, token: token, maxKeys: pageSize)
      for object in page.objects {
        let name = String(object.key.dropFirst(folder.count))
        guard object.key.hasPrefix(folder), ContainerFile.isStorable(name) else { continue }
        files.append(
          ContainerFile(
            name: name, size: object.size, modifiedMs: iso8601Ms(object.lastModified) ?? 0,
            version: Self.plainETag(object.etag).map(ContainerFile.Version.init),
            metadata: ["key": object.key]))
      }
      token = page.isTruncated ? page.nextToken : nil
      if page.isTruncated && token == nil {
        throw ContainerError.unavailable(
          container: displayName, reason: "the server cut the listing short without a continuation token")
      }
    } while token != nil
    return files
  }

  @discardableResult
  public func upload(game: String, name: String, body: (Int32) throws -> Int64) throws -> ContainerFile {
    guard ContainerFile.isStorable(name) else {
      throw ContainerError.refusedName(container: displayName, name: name)
    }
    let key = keyPrefix(game: game) + name
    let isConditional = try honoursConditionalPut()
    // Where the server ignores `If-None-Match`, a HEAD is the only way to see the name is free.
    if !isConditional { try refuseTaken(key, name: name) }
    let parsed = ArchiveName(parsing: name)
    abandonInterruptedUploads(game: game, device: parsed?.device)
    var metadata: [(String, String)] = []
    if let parsed {
      metadata = [
        ("x-amz-meta-savevault-created-ms", String(parsed.createdMs)),
        ("x-amz-meta-savevault-device", parsed.device),
      ]
    }
    // The archive is written on a second thread while its parts are sent: a small one is sent
    // whole once written, a large one in parts as soon as each part is there.
    // What it was stored as: its size, and the ETag a single PUT got (an archive of the same
    // name that another upload stored over it lists with another ETag).
    let (written, etag) = try withoutActuallyEscaping(body) { body -> (Int64, String?) in
      let staged = try GrowingArchive(container: displayName, name: name, prefix: "savevault-s3-", body: body)
      do {
        let (available, isComplete) = try staged.wait(until: multipartThreshold + 1)
        try checkpoint("s3.staged")  // written whole (a small archive), or its first part
        guard isComplete, available <= multipartThreshold else {
          // Only a PUT's condition was checked, not CompleteMultipartUpload's: a HEAD as well
          // (one request more on a path of four or more).
          if isConditional { try refuseTaken(key, name: name) }
          try multipartUpload(
            game: game, key: key, name: name, archive: staged, metadata: metadata,
            isConditional: isConditional)
          // Not the ETag of a multipart upload: servers do not all list it as they answered it.
          return (try staged.finish(), nil)
        }
        let written = try staged.finish()
        let (sha, md5) = try digests(fd: staged.fd, offset: 0, count: written)
        let report = progress
        http.onBytesSent = { report(ProgressEvent(phase: .uploading, done: $0, total: written)) }
        defer { http.onBytesSent = nil }
        let sent = ObjectCheck(size: written, md5: md5)
        let response = try storing(key: key, name: name, isConditional: isConditional, sent: sent) {
          condition in
          try request(
            "PUT", key: key, headers: metadata + condition + [("content-md5", md5)], payloadHash: sha,
            body: .fileRange(fd: staged.fd, offset: 0, count: Int(written)))
        }
        try confirm(response, key: key, name: name, sent: sent)
        return (written, Self.plainETag(response.headers["etag"]))
      } catch {
        _ = try? staged.finish()  // the writer ends before the body it runs goes away
        throw error
      }
    }
    return ContainerFile(
      name: name, size: written, modifiedMs: clock(), version: etag.map(ContainerFile.Version.init),
      metadata: ["key": key])
  }

  /// What a single PUT sent: its size, and its MD5 in base64 (Content-MD5).
  struct ObjectCheck {
    var size: Int64
    var md5: String
    /// The MD5 in hex, as an ETag spells it.
    var md5Hex: String { Data(base64Encoded: md5).map { hexString([UInt8]($0)) } ?? "" }
  }

  /// Sends the request that makes an archive visible under `name` (`send` puts the condition
  /// it is given into its headers) and reads the answer the condition may get:
  /// - 412, or AWS's 409 `ConditionalRequestConflict`: the name is taken, unless it holds what
  ///   `sent` describes (a retry after a try the server had stored: the upload is done);
  /// - 501 or `NotImplemented`: the server no longer takes the condition. That is remembered,
  ///   and the request goes again without it once a HEAD finds the name free.
  func storing(
    key: String, name: String, isConditional: Bool, sent: ObjectCheck? = nil,
    send: ([(String, String)]) throws -> HTTPResponse
  ) throws -> HTTPResponse {
    guard isConditional else { return try send([]) }
    let response = try send([("if-none-match", "*")])
    let code = S3ErrorDocument(response.body)?.code
    if response.status == 412 || (response.status == 409 && code == "ConditionalRequestConflict") {
      if let sent, let stored = try head(key), stored.size == sent.size, stored.etag == sent.md5Hex {
        return HTTPResponse(status: 200, headers: ["etag": "\"\(sent.md5Hex)\""], body: Data())
      }
      throw ContainerError.alreadyExists(container: displayName, name: name)
    }
    guard response.status == 501 || code == "NotImplemented" else { return response }
    rememberConditionalPut(false)
    try refuseTaken(key, name: name)
    return try send([])
  }

  /// Throws `.alreadyExists` when the server holds `key` (a HEAD).
  private func refuseTaken(_ key: String, name: String) throws {
    if try head(key) != nil { throw ContainerError.alreadyExists(container: displayName, name: name) }
  }

  /// Checks a single PUT's answer: a success, with the MD5 of what was sent as its ETag where
  /// the ETag is one (S3 and its kind answer with the MD5 of what they stored, except for
  /// objects encrypted with KMS or a customer's key). An ETag that is not that MD5 is checked
  /// with a HEAD: a server whose ETags are something else holds the size sent; otherwise what
  /// it stored is removed.
  private func confirm(_ response: HTTPResponse, key: String, name: String, sent: ObjectCheck) throws {
    try expectSuccess(response, name: name)
    let encryption = response.headers["x-amz-server-side-encryption"] ?? ""
    guard encryption.isEmpty || encryption == "AES256",
      response.headers["x-amz-server-side-encryption-customer-algorithm"] == nil,
      let etag = Self.plainETag(response.headers["etag"]), etag.count == 32, etag.allSatisfy(\.isHexDigit),
      etag != sent.md5Hex
    else { return }
    let stored = try head(key)
    guard stored?.size != sent.size else { return }
    _ = try? request("DELETE", key: key)
    throw ContainerError.transferFailed(
      container: displayName, name: name,
      reason:
        "the server does not hold the \(sent.size) bytes sent (its ETag \(etag), the MD5 sent \(sent.md5Hex))"
    )
  }

  /// An ETag without its quotes, in lower case.
  static func plainETag(_ header: String?) -> String? {
    header?.trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
  }

  /// Whether the server refuses a PUT with `If-None-Match: *` over an existing object. Known
  /// from this device's state unless that answer is over 30 days old or the server now answers
  /// with another `Server` header; otherwise checked with a probe object at the container's
  /// root (stored on that condition, stored again on it, removed) and remembered.
  func honoursConditionalPut() throws -> Bool {
    let (answer, server) = known.withLock { (knownConditionalPut, lastServer) }
    if let answer { return answer }
    if let facts = localState?.facts(), clock() - facts.checkedAtMs < Self.factsLifetimeMs,
      server == nil || server == facts.serverSoftware
    {
      known.withLock { knownConditionalPut = facts.honoursConditionalPut }
      return facts.honoursConditionalPut
    }
    let key = keyPrefix(game: nil) + WriteCheck.probeName()
    func put() throws -> HTTPResponse {
      try request(
        "PUT", key: key, headers: [("if-none-match", "*")], payloadHash: SHA256.hex(of: WriteCheck.probeText),
        body: .data(Data(WriteCheck.probeText.utf8)))
    }
    let first = try put()
    defer { _ = try? request("DELETE", key: key) }
    let refused = first.status == 501 || S3ErrorDocument(first.body)?.code == "NotImplemented"
    if !refused { try expectSuccess(first, name: nil) }
    let again = refused ? first : try put()
    // 412: honoured. 2xx: ignored (the probe was stored again). 501 or 400: not taken.
    // Anything else (a 5xx that outlasted the retries) says nothing: a HEAD this time.
    switch again.status {
    case 412: rememberConditionalPut(true)
    case 200..<300, 400, 501: rememberConditionalPut(false)
    default: return false
    }
    return again.status == 412
  }

  /// Keeps `answer` for this value and, with the server's `Server` header, on this device.
  private func rememberConditionalPut(_ answer: Bool) {
    let server = known.withLock {
      knownConditionalPut = answer
      return lastServer
    }
    guard let localState else { return }
    localState.remember(
      .init(
        server: localState.server, honoursConditionalPut: answer, checkedAtMs: clock(),
        serverSoftware: server))
  }

  public func read<Result>(game: String, name: String, body: (Int32) throws -> Result) throws -> Result {
    try read(game: game, name: name, range: nil, body: body)
  }

  public func readStart<Result>(game: String, name: String, count: Int, body: (Int32) throws -> Result)
    throws -> Result
  {
    try read(game: game, name: name, range: "bytes=0-\(count - 1)", body: body)
  }

  /// Downloads `name` (only `range` of it, when given: a server that ignores it sends all).
  private func read<Result>(game: String, name: String, range: String?, body: (Int32) throws -> Result)
    throws -> Result
  {
    guard ContainerFile.isStorable(name) else {
      throw ContainerError.notFound(container: displayName, name: name)
    }
    let key = keyPrefix(game: game) + name
    let path = try StagedArchive.emptyFile(prefix: "savevault-s3-")
    defer { unlink(path) }
    var response = try request(
      "GET", key: key, headers: range.map { [("range", $0)] } ?? [], downloadTo: path)
    if response.status == 416 && range != nil {
      // An empty archive has no first byte to give: read it whole (nothing).
      response = try request("GET", key: key, downloadTo: path)
    }
    try expectSuccess(response, name: name)
    if range == nil, let size = response.headers["content-length"].flatMap({ Int64($0) }) {
      progress(ProgressEvent(phase: .downloading, done: size, total: size))
    }
    let input = open(path, O_RDONLY)
    guard input >= 0 else {
      throw ContainerError.transferFailed(container: displayName, name: name, reason: "the download vanished")
    }
    defer { close(input) }
    return try body(input)
  }

  public func delete(game: String, name: String) throws {
    guard ContainerFile.isStorable(name) else {
      throw ContainerError.notFound(container: displayName, name: name)
    }
    let key = keyPrefix(game: game) + name
    guard try head(key) != nil else {
      try probe()  // a missing bucket is "unavailable", not "no such archive"
      throw ContainerError.notFound(container: displayName, name: name)
    }
    try expectSuccess(try request("DELETE", key: key), name: name)
  }

  public func checkWritable() throws -> WriteCheck {
    let key = keyPrefix(game: nil) + WriteCheck.probeName()
    let sentMs = clock()
    let stored = try request(
      "PUT", key: key, payloadHash: SHA256.hex(of: WriteCheck.probeText),
      body: .data(Data(WriteCheck.probeText.utf8)))
    let answeredMs = clock()
    try expectSuccess(stored, name: nil)
    try expectSuccess(try request("DELETE", key: key), name: nil)
    // The Date header has whole seconds: compare with the middle of the request.
    let offset = stored.headers["date"].flatMap(Self.httpDateMs).map { (sentMs + answeredMs) / 2 - $0 }
    return WriteCheck(clockOffsetMs: offset)
  }

  // MARK: Requests

  /// `prefix/game/` (or `prefix/` for the container itself).
  func keyPrefix(game: String?) -> String {
    let root = prefix.isEmpty ? "" : prefix + "/"
    return game.map { root + $0 + "/" } ?? root
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

  private func listPage(prefix: String, token: String?, maxKeys: Int?) throws -> S3ListPage {
    var query = [("list-type", "2"), ("prefix", prefix)]
    if let token { query.append(("continuation-token", token)) }
    if let maxKeys { query.append(("max-keys", String(maxKeys))) }
    let response = try request("GET", key: nil, query: query)
    try expectSuccess(response, name: nil)
    guard let page = S3ListPage(response.body) else {
      throw ContainerError.unavailable(
        container: displayName, reason: "the server's listing is not valid XML")
    }
    return page
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

  // MARK: Helpers

  /// Hex SHA-256 and base64 MD5 of `count` bytes of `fd` from `offset`, in one read.
  func digests(fd: Int32, offset: Int64, count: Int64) throws -> (String, String) {
    let sha = SHA256()
    let md5 = MD5()
    let size = 256 << 10
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    defer { buffer.deallocate() }
    var done: Int64 = 0
    while done < count {
      let got = pread(fd, buffer, Int(min(Int64(size), count - done)), off_t(offset + done))
      if got < 0 && errno == EINTR { continue }
      guard got > 0 else {
        throw ArchiveError.unreadable(path: "the archive being uploaded", reason: "short read")
      }
      sha.update(buffer, count: got)
      md5.update(buffer, count: got)
      done += Int64(got)
    }
    return (sha.finalize(), md5.finalizeBase64())
  }
}
