import CPlatform
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One request's state, which libcurl's callbacks reach through their data pointer.
final class CurlTransfer {
  let body: HTTPBody
  let downloadTo: String?
  let onBytesSent: ((Int64) -> Void)?
  /// Where libcurl writes why a request failed.
  let errorText: UnsafeMutablePointer<CChar>
  var position: Int64 = 0
  var bytesReported: Int64 = 0
  /// The status of the last status line (an interim `100 Continue` is replaced by the answer).
  var status = 0
  var headers: [String: String] = [:]
  var memory = Data()
  var file: Int32 = -1
  var bodyError: (any Error)?
  var writeFailure: String?

  init(body: HTTPBody, downloadTo: String?, onBytesSent: ((Int64) -> Void)?) {
    self.body = body
    self.downloadTo = downloadTo
    self.onBytesSent = onBytesSent
    errorText = .allocate(capacity: Int(CURL_ERROR_SIZE))
    errorText.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
  }

  deinit {
    if file >= 0 { close(file) }
    errorText.deallocate()
  }

  var isDownloading: Bool { downloadTo != nil && (200..<300).contains(status) }

  func header(_ bytes: UnsafeRawBufferPointer) {
    let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    if line.hasPrefix("HTTP/") {
      status = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
      headers = [:]
    } else if let colon = line.firstIndex(of: ":") {
      let name = line[..<colon].lowercased()
      let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      headers[name] = headers[name].map { $0 + ", " + value } ?? value
    }
  }

  /// Keeps a piece of the body; false when it cannot be written (the request then fails).
  func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard isDownloading, let downloadTo else {
      memory.append(contentsOf: bytes)
      return true
    }
    if file < 0 {
      file = open(downloadTo, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
      guard file >= 0 else {
        writeFailure = "cannot write the download to '\(downloadTo)': \(Platform.describe(errno: errno))"
        return false
      }
    }
    var done = 0
    while done < bytes.count {
      let wrote = write(file, bytes.baseAddress.map { $0 + done }, bytes.count - done)
      if wrote < 0 && errno == EINTR { continue }
      guard wrote > 0 else {
        writeFailure = "cannot write the download to '\(downloadTo)': \(Platform.describe(errno: errno))"
        return false
      }
      done += wrote
    }
    return true
  }

  /// Closes the download; after a whole 2xx answer with an empty body, the file is made empty.
  /// Returns why the file could not be made, if it could not.
  func finishDownload(succeeded: Bool) -> String? {
    if file >= 0 {
      close(file)
      file = -1
      return nil
    }
    guard succeeded, isDownloading, let downloadTo else { return nil }
    let empty = open(downloadTo, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard empty >= 0 else {
      return "cannot write the download to '\(downloadTo)': \(Platform.describe(errno: errno))"
    }
    close(empty)
    return nil
  }

  /// Fills `buffer` with the body's next bytes; nil when it cannot be read.
  func send(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int? {
    do {
      let count = try body.read(into: buffer, capacity: capacity, from: position)
      position += Int64(count)
      return count
    } catch {
      bodyError = error
      return nil
    }
  }

  func sent(_ total: Int64) {
    guard total > bytesReported, let onBytesSent else { return }
    bytesReported = total
    onBytesSent(total)
  }

  static func from(_ context: UnsafeMutableRawPointer) -> CurlTransfer {
    Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
  }

  // libcurl's callbacks: plain C functions, which find the request through their data pointer.

  static let receiveHeader: curl_write_callback = { data, size, count, context in
    guard let context else { return 0 }
    CurlTransfer.from(context).header(UnsafeRawBufferPointer(start: data, count: size * count))
    return size * count
  }

  static let receiveBody: curl_write_callback = { data, size, count, context in
    guard let context else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
    return CurlTransfer.from(context).receive(bytes) ? size * count : 0
  }

  static let sendBody: curl_write_callback = { buffer, size, count, context in
    guard let buffer, let context else { return Int(CURL_READFUNC_ABORT) }
    return CurlTransfer.from(context).send(into: buffer, capacity: size * count) ?? Int(CURL_READFUNC_ABORT)
  }

  static let rewindBody: curl_seek_callback = { context, offset, origin in
    guard let context, origin == SEEK_SET, offset >= 0 else { return CURL_SEEKFUNC_CANTSEEK }
    let transfer = CurlTransfer.from(context)
    guard Int64(offset) <= transfer.body.count else { return CURL_SEEKFUNC_CANTSEEK }
    transfer.position = Int64(offset)
    return CURL_SEEKFUNC_OK
  }

  static let reportProgress: curl_xferinfo_callback = { context, _, _, _, sent in
    guard let context else { return 0 }
    CurlTransfer.from(context).sent(Int64(sent))
    return 0
  }
}
