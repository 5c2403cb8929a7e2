import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One HTTP request: method, absolute URL, and headers sent as given (libcurl adds `Host`
/// from the URL).
struct HTTPRequest: Sendable {
  var method: String
  var url: String
  var headers: [(String, String)]

  init(method: String = "GET", url: String, headers: [(String, String)] = []) {
    self.method = method
    self.url = url
    self.headers = headers
  }
}

/// A response: status, headers (lowercased names) and, for small bodies, the body.
struct HTTPResponse: Sendable {
  var status: Int
  var headers: [String: String]
  var body: Data
}

/// A failure to talk to the server at all (connection refused, DNS, TLS, timeout).
struct HTTPTransportError: Error, Sendable, CustomStringConvertible {
  var description: String
  /// The server gave no answer (or stopped answering) within the time allowed.
  var isTimeout = false
  /// TLS could not check the server's certificate (or the CA bundle to check it with).
  var isCertificateProblem = false
}

/// The file a request's body is read from could not be read (its reason in words).
struct HTTPBodyUnreadable: Error, Equatable, Sendable {
  var reason: String
}

/// What a request sends.
enum HTTPBody: Sendable {
  case none
  case data(Data)
  /// `count` bytes of the open file `fd` from `offset`, read with `pread` as they are sent:
  /// nothing opens, copies or closes the file, and no more than a buffer of it is in memory.
  case fileRange(fd: Int32, offset: Int64, count: Int)
}

extension HTTPBody {
  /// How many bytes the body holds.
  var count: Int64 {
    switch self {
    case .none: 0
    case .data(let data): Int64(data.count)
    case .fileRange(_, _, let count): Int64(count)
    }
  }

  /// Copies up to `capacity` bytes of the body from `position` into `buffer`; returns how
  /// many (0 at the end). Throws `HTTPBodyUnreadable` when the file cannot be read or ends
  /// before the range does.
  func read(into buffer: UnsafeMutableRawPointer, capacity: Int, from position: Int64) throws -> Int {
    let wanted = Int(min(Int64(capacity), max(0, count - position)))
    guard wanted > 0 else { return 0 }
    switch self {
    case .none:
      return 0
    case .data(let data):
      let start = data.startIndex + Int(position)
      data.copyBytes(to: buffer.assumingMemoryBound(to: UInt8.self), from: start..<start + wanted)
      return wanted
    case .fileRange(let fd, let offset, _):
      while true {
        let got = pread(fd, buffer, wanted, off_t(offset + position))
        if got < 0 && errno == EINTR { continue }
        guard got > 0 else {
          throw HTTPBodyUnreadable(reason: got < 0 ? Platform.describe(errno: errno) : "short read")
        }
        return got
      }
    }
  }
}
