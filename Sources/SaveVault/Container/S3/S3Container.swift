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
/// stored with one PUT (with Content-MD5 and a signed SHA-256) or, above `settings.multipartThreshold`,
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
/// upload, without a HEAD after it where the server honours the condition (where it does not,
/// a HEAD after a single PUT sees another upload of the same name that replaced it); and abandoned multipart uploads are looked for only when
/// this device's journal says one of its own was interrupted.
public final class S3Container: Container, @unchecked Sendable {
  public let displayName: String
  let prefix: String
  let settings: S3ContainerSettings
  /// Signs and sends the requests, and turns the answers into `ContainerError`.
  let client: S3Client
  /// Where upload and download progress goes.
  var progress: @Sendable (ProgressEvent) -> Void = { _ in }
  /// Points where an upload may stop (`Context.checkpoint`): a failed checkpoint aborts it.
  var checkpoint: @Sendable (String) throws -> Void = { _ in }
  static let staleUploadMs: Int64 = 3_600_000
  /// What this container keeps on this device (nil: nothing is kept, so the server is checked
  /// for conditional PUTs once per value and for abandoned uploads before every upload).
  var localState: S3LocalState?
  let known = NSLock()
  /// Whether the server honours `If-None-Match: *`, once known (`honoursConditionalPut`).
  var knownConditionalPut: Bool?
  /// How long an answer about conditional PUTs is believed before it is checked again.
  static let factsLifetimeMs: Int64 = 30 * 86_400_000

  var bucket: String { client.bucket }
  var region: String { settings.region }
  var clock: @Sendable () -> Int64 { client.clock }

  /// Throws `ContainerSetupError.unusableEndpoint` for an endpoint that is not http(s), or
  /// plain HTTP to another machine unless the settings allow it. HTTPS checks the server
  /// against `certificates`. Nothing is loaded or connected until the first request.
  public init(
    bucket: String, prefix: String, settings: S3ContainerSettings, credentials: AWSCredentials,
    displayName: String,
    clock: @escaping @Sendable () -> Int64, certificates: CertificateBundle = .choose(environment: [:])
  ) throws(ContainerSetupError) {
    self.prefix = prefix
    self.settings = settings
    self.displayName = displayName
    self.client = try S3Client(
      bucket: bucket, settings: settings, credentials: credentials, displayName: displayName, clock: clock,
      certificates: certificates)
  }

  /// A container with `S3ContainerSettings` of these values and the defaults.
  public convenience init(
    bucket: String, prefix: String, endpoint: String? = nil, region: String = "us-east-1",
    allowsInsecureHTTP: Bool = false, credentials: AWSCredentials, displayName: String,
    clock: @escaping @Sendable () -> Int64, retry: RetryPolicy = RetryPolicy(),
    idleTimeout: TimeInterval = 20,
    certificates: CertificateBundle = .choose(environment: [:])
  ) throws(ContainerSetupError) {
    try self.init(
      bucket: bucket, prefix: prefix,
      settings: S3ContainerSettings(
        endpoint: endpoint, region: region, allowsInsecureHTTP: allowsInsecureHTTP, retry: retry,
        idleTimeout: idleTimeout),
      credentials: credentials, displayName: displayName, clock: clock, certificates: certificates)
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
      let page = try listPage(prefix: folder, token: token, maxKeys: settings.pageSize)
      for object in page.objects {
        let name = String(object.key.dropFirst(folder.count))
        guard object.key.hasPrefix(folder), ContainerFile.isStorable(name) else { continue }
        files.append(
          ContainerFile(
            name: name, size: object.size, modifiedMs: iso8601Ms(object.lastModified) ?? 0,
            version: S3Client.plainETag(object.etag).map(ContainerFile.Version.init),
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
        let (available, isComplete) = try staged.wait(until: settings.multipartThreshold + 1)
        try checkpoint("s3.staged")  // written whole (a small archive), or its first part
        guard isComplete, available <= settings.multipartThreshold else {
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
        client.http.onBytesSent = { report(ProgressEvent(phase: .uploading, done: $0, total: written)) }
        defer { client.http.onBytesSent = nil }
        let sent = ObjectCheck(size: written, md5: md5)
        let response = try storing(key: key, name: name, isConditional: isConditional, sent: sent) {
          condition in
          try client.request(
            "PUT", key: key, headers: metadata + condition + [("content-md5", md5)], payloadHash: sha,
            body: .fileRange(fd: staged.fd, offset: 0, count: Int(written)))
        }
        try confirm(response, key: key, name: name, sent: sent)
        let etag = S3Client.plainETag(response.headers["etag"])
        try checkpoint("s3.stored")
        // Where the server ignores `If-None-Match`, another upload of the same name (a device
        // of the same name, in the same millisecond) may have replaced this one after the HEAD
        // before it: a HEAD after it sees that (another size, or another MD5 where the server's
        // ETags are MD5s), and the archive goes again under the next name.
        // An upload that lands after this HEAD still replaces it unseen: such a server leaves
        // that window open.
        if !isConditional, let etag, let stored = try client.head(key), stored.etag != etag,
          stored.size != written || (etag == sent.md5Hex && stored.etag.map(Self.isMD5) == true)
        {
          throw ContainerError.alreadyExists(container: displayName, name: name)
        }
        return (written, etag)
      } catch {
        _ = try? staged.finish()  // the writer ends before the body it runs goes away
        throw error
      }
    }
    return ContainerFile(
      name: name, size: written, modifiedMs: clock(), version: etag.map(ContainerFile.Version.init),
      metadata: ["key": key])
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
    var response = try client.request(
      "GET", key: key, headers: range.map { [("range", $0)] } ?? [], downloadTo: path)
    if response.status == 416 && range != nil {
      // An empty archive has no first byte to give: read it whole (nothing).
      response = try client.request("GET", key: key, downloadTo: path)
    }
    try client.expectSuccess(response, name: name)
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
    guard try client.head(key) != nil else {
      try probe()  // a missing bucket is "unavailable", not "no such archive"
      throw ContainerError.notFound(container: displayName, name: name)
    }
    try client.expectSuccess(try client.request("DELETE", key: key), name: name)
  }

  public func checkWritable() throws -> WriteCheck {
    let key = keyPrefix(game: nil) + WriteCheck.probeName()
    let sentMs = clock()
    let stored = try client.request(
      "PUT", key: key, payloadHash: SHA256.hex(of: WriteCheck.probeText),
      body: .data(Data(WriteCheck.probeText.utf8)))
    let answeredMs = clock()
    try client.expectSuccess(stored, name: nil)
    try client.expectSuccess(try client.request("DELETE", key: key), name: nil)
    // The Date header has whole seconds: compare with the middle of the request.
    let offset = stored.headers["date"].flatMap(S3Client.httpDateMs).map { (sentMs + answeredMs) / 2 - $0 }
    return WriteCheck(clockOffsetMs: offset)
  }

  // MARK: Requests

  /// `prefix/game/` (or `prefix/` for the container itself).
  func keyPrefix(game: String?) -> String {
    let root = prefix.isEmpty ? "" : prefix + "/"
    return game.map { root + $0 + "/" } ?? root
  }

  private func listPage(prefix: String, token: String?, maxKeys: Int?) throws -> S3ListPage {
    var query = [("list-type", "2"), ("prefix", prefix)]
    if let token { query.append(("continuation-token", token)) }
    if let maxKeys { query.append(("max-keys", String(maxKeys))) }
    let response = try client.request("GET", key: nil, query: query)
    try client.expectSuccess(response, name: nil)
    guard let page = S3ListPage(response.body) else {
      throw ContainerError.unavailable(
        container: displayName, reason: "the server's listing is not valid XML")
    }
    return page
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
