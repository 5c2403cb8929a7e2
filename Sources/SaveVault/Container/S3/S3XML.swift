import Foundation

/// S3's error document: `<Error><Code>…</Code><Message>…</Message>…</Error>`.
struct S3ErrorDocument: Sendable, Equatable {
  var code: String
  var message: String
  /// For RequestTimeTooSkewed: the server's time.
  var serverTime: String?

  init?(_ data: Data) {
    guard let root = XMLNode.parse(data), root.name == "Error", let code = root.value("Code") else {
      return nil
    }
    self.code = code
    message = root.value("Message") ?? ""
    serverTime = root.value("ServerTime")
  }
}

/// One page of ListObjectsV2.
struct S3ListPage: Sendable, Equatable {
  struct Object: Sendable, Equatable {
    var key: String
    var size: Int64
    var lastModified: String
    var etag: String?
  }
  var objects: [Object]
  var nextToken: String?
  var isTruncated: Bool

  init?(_ data: Data) {
    guard let root = XMLNode.parse(data), root.name == "ListBucketResult" else { return nil }
    objects = root.all("Contents").compactMap { item in
      guard let key = item.value("Key"), let size = item.value("Size").flatMap({ Int64($0) }) else {
        return nil
      }
      return Object(
        key: key, size: size, lastModified: item.value("LastModified") ?? "", etag: item.value("ETag"))
    }
    isTruncated = root.value("IsTruncated") == "true"
    nextToken = root.value("NextContinuationToken")
  }
}

/// Milliseconds since the epoch for an ISO 8601 time such as `2026-11-29T16:03:47.000Z`.
func iso8601Ms(_ text: String) -> Int64? {
  let digits = text.filter { $0.isNumber }
  guard digits.count >= 14 else { return nil }
  let chars = Array(digits)
  func number(_ range: Range<Int>) -> Int64? { Int64(String(chars[range])) }
  guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
    let hour = number(8..<10),
    let minute = number(10..<12), let second = number(12..<14)
  else { return nil }
  let milli = chars.count >= 17 ? (number(14..<17) ?? 0) : 0
  let days = CivilTime.days(year: year, month: month, day: day)
  return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + milli
}
