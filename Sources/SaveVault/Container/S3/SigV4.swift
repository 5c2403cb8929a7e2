import Foundation

/// Credentials for an S3-compatible store. `description` never shows the secret.
public struct AWSCredentials: Sendable, Equatable, CustomStringConvertible {
  public var accessKeyID: String
  public var secretAccessKey: String
  public var sessionToken: String?

  public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
    self.accessKeyID = accessKeyID
    self.secretAccessKey = secretAccessKey
    self.sessionToken = sessionToken
  }

  public var description: String { "AWSCredentials(\(accessKeyID), secret hidden)" }
}

/// An HTTP request as SigV4 sees it.
public struct SigV4Request: Sendable, Equatable {
  public var method: String
  /// The path, not yet encoded (`/bucket/my key.tar`).
  public var path: String
  /// Query parameters, not yet encoded.
  public var query: [(String, String)]
  /// Headers to sign (names in any case); `host` must be among them.
  public var headers: [(String, String)]
  /// Hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`.
  public var payloadHash: String

  public init(
    method: String, path: String, query: [(String, String)] = [], headers: [(String, String)],
    payloadHash: String
  ) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = headers
    self.payloadHash = payloadHash
  }

  public static func == (a: SigV4Request, b: SigV4Request) -> Bool {
    a.method == b.method && a.path == b.path && a.query.elementsEqual(b.query, by: ==)
      && a.headers.elementsEqual(b.headers, by: ==) && a.payloadHash == b.payloadHash
  }
}

/// AWS Signature Version 4, pure: the date is passed in. Checked against AWS's published
/// test-suite vectors (generic services) and S3's documented examples.
public enum SigV4 {
  /// Characters left as they are by AWS's URI encoding (RFC 3986 unreserved).
  static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~".utf8)

  /// AWS's URI encoding: every byte but unreserved ones as %XX (uppercase); `/` kept when
  /// `keepSlash`.
  public static func encode(_ text: String, keepSlash: Bool = false) -> String {
    var out = ""
    for byte in text.utf8 {
      if unreserved.contains(byte) || (keepSlash && byte == UInt8(ascii: "/")) {
        out.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        out += String(format: "%%%02X", byte)
      }
    }
    return out
  }

  /// The canonical URI. S3 encodes the path once and does not normalise it; other services
  /// normalise (`.`/`..`/`//`) and encode twice.
  static func canonicalURI(_ path: String, isS3: Bool) -> String {
    if isS3 { return encode(path.isEmpty ? "/" : path, keepSlash: true) }
    var parts: [String] = []
    for part in path.split(separator: "/", omittingEmptySubsequences: true) {
      if part == "." { continue }
      if part == ".." {
        if !parts.isEmpty { parts.removeLast() }
        continue
      }
      parts.append(String(part))
    }
    var normalized = "/" + parts.joined(separator: "/")
    if path.hasSuffix("/") && normalized != "/" { normalized += "/" }
    return encode(encode(normalized, keepSlash: true), keepSlash: true)
  }

  static func canonicalQuery(_ query: [(String, String)]) -> String {
    query.map { (encode($0.0), encode($0.1)) }
      .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
      .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
  }

  /// Lowercased names, values trimmed with inner runs of spaces folded, sorted by name;
  /// repeated names joined with commas.
  static func canonicalHeaders(_ headers: [(String, String)]) -> (text: String, signed: String) {
    var merged: [String: [String]] = [:]
    for (name, value) in headers {
      let folded = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
      merged[name.lowercased(), default: []].append(folded.trimmingCharacters(in: .whitespaces))
    }
    let names = merged.keys.sorted()
    let text = names.map { "\($0):\(merged[$0, default: []].joined(separator: ","))\n" }.joined()
    return (text, names.joined(separator: ";"))
  }

  /// The canonical request (step 1 of SigV4).
  public static func canonicalRequest(_ request: SigV4Request, isS3: Bool) -> String {
    let headers = canonicalHeaders(request.headers)
    return [
      request.method, canonicalURI(request.path, isS3: isS3), canonicalQuery(request.query), headers.text,
      headers.signed, request.payloadHash,
    ].joined(separator: "\n")
  }

  /// The string to sign (step 2).
  public static func stringToSign(canonicalRequest: String, amzDate: String, region: String, service: String)
    -> String
  {
    let scope = "\(amzDate.prefix(8))/\(region)/\(service)/aws4_request"
    return ["AWS4-HMAC-SHA256", amzDate, scope, SHA256.hex(of: canonicalRequest)].joined(separator: "\n")
  }

  /// The signature (step 3): HMAC chain over date, region, service.
  public static func signature(
    stringToSign: String, secret: String, amzDate: String, region: String, service: String
  )
    -> String
  {
    var key = HMACSHA256.mac(key: Array(("AWS4" + secret).utf8), message: Array(amzDate.prefix(8).utf8))
    key = HMACSHA256.mac(key: key, message: Array(region.utf8))
    key = HMACSHA256.mac(key: key, message: Array(service.utf8))
    key = HMACSHA256.mac(key: key, message: Array("aws4_request".utf8))
    return hexString(HMACSHA256.mac(key: key, message: Array(stringToSign.utf8)))
  }

  /// The `Authorization` header for `request`.
  public static func authorization(
    _ request: SigV4Request, credentials: AWSCredentials, amzDate: String, region: String,
    service: String = "s3",
    isS3: Bool = true
  ) -> String {
    let canonical = canonicalRequest(request, isS3: isS3)
    let toSign = stringToSign(canonicalRequest: canonical, amzDate: amzDate, region: region, service: service)
    let signed = canonicalHeaders(request.headers).signed
    let signature = signature(
      stringToSign: toSign, secret: credentials.secretAccessKey, amzDate: amzDate, region: region,
      service: service)
    return
      "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(amzDate.prefix(8))/\(region)/\(service)/aws4_request, SignedHeaders=\(signed), Signature=\(signature)"
  }

  /// `yyyyMMdd'T'HHmmss'Z'` for epoch milliseconds.
  public static func amzDate(epochMs: Int64) -> String {
    let time = CivilTime(epochMs: epochMs)
    return String(
      format: "%04lld%02lld%02lldT%02lld%02lld%02lldZ", time.year, time.month, time.day, time.hour,
      time.minute, time.second)
  }
}
