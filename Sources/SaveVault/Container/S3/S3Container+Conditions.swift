import Foundation

/// How an S3 container stores an archive under a name without ever replacing one, and checks
/// what the server stored: a conditional PUT where the server honours one (learned once per
/// server and kept on this device), a HEAD where it does not, and the server's ETag against
/// the MD5 sent.
extension S3Container {
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
      if let sent, let stored = try client.head(key), stored.size == sent.size, stored.etag == sent.md5Hex {
        return HTTPResponse(status: 200, headers: ["etag": "\"\(sent.md5Hex)\""], body: Data())
      }
      throw ContainerError.alreadyExists(container: displayName, name: name)
    }
    guard response.status == 501 || code == "NotImplemented" else { return response }
    rememberConditionalPut(false)
    try refuseTaken(key, name: name)
    return try send([])
  }

  /// Whether an ETag is an MD5 in hex (what S3 and its kind answer for a single PUT).
  static func isMD5(_ etag: String) -> Bool { etag.count == 32 && etag.allSatisfy(\.isHexDigit) }

  /// Throws `.alreadyExists` when the server holds `key` (a HEAD).
  func refuseTaken(_ key: String, name: String) throws {
    if try client.head(key) != nil { throw ContainerError.alreadyExists(container: displayName, name: name) }
  }

  /// Checks a single PUT's answer: a success, with the MD5 of what was sent as its ETag where
  /// the ETag is one (S3 and its kind answer with the MD5 of what they stored, except for
  /// objects encrypted with KMS or a customer's key). An ETag that is not that MD5 is checked
  /// with a HEAD: a server whose ETags are something else holds the size sent; otherwise what
  /// it stored is removed.
  func confirm(_ response: HTTPResponse, key: String, name: String, sent: ObjectCheck) throws {
    try client.expectSuccess(response, name: name)
    let encryption = response.headers["x-amz-server-side-encryption"] ?? ""
    guard encryption.isEmpty || encryption == "AES256",
      response.headers["x-amz-server-side-encryption-customer-algorithm"] == nil,
      let etag = S3Client.plainETag(response.headers["etag"]), Self.isMD5(etag), etag != sent.md5Hex
    else { return }
    let stored = try client.head(key)
    guard stored?.size != sent.size else { return }
    _ = try? client.request("DELETE", key: key)
    throw ContainerError.transferFailed(
      container: displayName, name: name,
      reason:
        "the server does not hold the \(sent.size) bytes sent (its ETag \(etag), the MD5 sent \(sent.md5Hex))"
    )
  }

  /// Whether the server refuses a PUT with `If-None-Match: *` over an existing object. Known
  /// from this device's state unless that answer is over 30 days old or the server now answers
  /// with another `Server` header; otherwise checked with a probe object at the container's
  /// root (stored on that condition, stored again on it, removed) and remembered.
  func honoursConditionalPut() throws -> Bool {
    let answer = known.withLock { knownConditionalPut }
    let server = client.serverSoftware
    if let answer { return answer }
    if let facts = localState?.facts(), clock() - facts.checkedAtMs < Self.factsLifetimeMs,
      server == nil || server == facts.serverSoftware
    {
      known.withLock { knownConditionalPut = facts.honoursConditionalPut }
      return facts.honoursConditionalPut
    }
    let key = keyPrefix(game: nil) + WriteCheck.probeName()
    func put() throws -> HTTPResponse {
      try client.request(
        "PUT", key: key, headers: [("if-none-match", "*")], payloadHash: SHA256.hex(of: WriteCheck.probeText),
        body: .data(Data(WriteCheck.probeText.utf8)))
    }
    let first = try put()
    defer { _ = try? client.request("DELETE", key: key) }
    let refused = first.status == 501 || S3ErrorDocument(first.body)?.code == "NotImplemented"
    if !refused { try client.expectSuccess(first, name: nil) }
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
  func rememberConditionalPut(_ answer: Bool) {
    known.withLock { knownConditionalPut = answer }
    let server = client.serverSoftware
    guard let localState else { return }
    localState.remember(
      .init(
        server: localState.server, honoursConditionalPut: answer, checkedAtMs: clock(),
        serverSoftware: server))
  }
}
