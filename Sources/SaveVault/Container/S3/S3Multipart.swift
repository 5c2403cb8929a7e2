import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The parts of a multipart upload that workers share: which part is next, the ETags, the
/// bytes sent, and the first failure or the end of the archive (after which no worker takes
/// another part).
private final class PartProgress: @unchecked Sendable {
  private let lock = NSLock()
  private var next = 0
  private var isStopped = false
  private var sent: Int64 = 0
  private var etags: [Int: String] = [:]
  private(set) var failure: (any Error)?

  func take() -> Int? {
    lock.lock()
    defer { lock.unlock() }
    guard failure == nil, !isStopped else { return nil }
    next += 1
    return next - 1
  }

  /// No part starts at or after the end of the archive.
  func stop() {
    lock.lock()
    defer { lock.unlock() }
    isStopped = true
  }

  func finish(_ index: Int, etag: String, bytes: Int64) -> Int64 {
    lock.lock()
    defer { lock.unlock() }
    etags[index] = etag
    sent += bytes
    return sent
  }

  func etag(_ index: Int) -> String? {
    lock.lock()
    defer { lock.unlock() }
    return etags[index]
  }

  func fail(_ error: any Error) {
    lock.lock()
    defer { lock.unlock() }
    if failure == nil { failure = error }
  }
}

extension S3Container {
  /// Stores a large archive in parts while it is still being written, no part in memory;
  /// aborts the upload on any failure (the writer's included), so that nothing is left
  /// half-made under the name.
  func multipartUpload(key: String, name: String, archive: GrowingArchive, metadata: [(String, String)])
    throws
  {
    let created = try request("POST", key: key, query: [("uploads", "")], headers: metadata)
    try expectSuccess(created, name: name)
    guard let uploadID = XMLNode.parse(created.body)?.value("UploadId") else {
      throw ContainerError.transferFailed(
        container: displayName, name: name, reason: "the server gave no upload id")
    }
    do {
      // The size is not known until the writer ends: parts of `partSize` (16 MiB: S3's 10,000
      // parts then reach 160 GiB, past the largest save SaveVault backs up).
      let part = partSize
      // Each part is copied to a small file while it is hashed, then sent from that file, so
      // no part is held in memory. Two workers take parts in turn: while one hashes, the other
      // sends; each waits until the writer has written its part.
      let shared = PartProgress()
      DispatchQueue.concurrentPerform(iterations: uploadWorkers) { _ in
        while let index = shared.take() {
          do {
            let start = Int64(index) * part
            let (available, isComplete) = try archive.wait(until: start + part)
            if isComplete && start >= available {
              shared.stop()
              break
            }
            guard index < 10_000 else {
              throw ContainerError.transferFailed(
                container: displayName, name: name, reason: "the archive needs more than 10,000 parts")
            }
            let length = min(part, available - start)
            let path = try StagedArchive.emptyFile(prefix: "savevault-part-")
            defer { unlink(path) }
            let out = open(path, O_WRONLY | O_TRUNC)
            guard out >= 0 else {
              throw ArchiveError.writeFailed(path: path, reason: Platform.describe(errno: errno))
            }
            let hashed = Result { try self.digests(fd: archive.fd, offset: start, count: length, copy: out) }
            close(out)
            let (sha, md5) = try hashed.get()
            let response = try request(
              "PUT", key: key, query: [("partNumber", String(index + 1)), ("uploadId", uploadID)],
              headers: [("content-md5", md5)], payloadHash: sha, body: .file(URL(fileURLWithPath: path)))
            try expectSuccess(response, name: name)
            guard let etag = response.headers["etag"] else {
              throw ContainerError.transferFailed(
                container: displayName, name: name, reason: "the server gave no ETag for part \(index + 1)")
            }
            let done = shared.finish(index, etag: etag, bytes: length)
            progress(ProgressEvent(phase: .uploading, done: done, total: max(done, available)))
            try checkpoint("s3.part")
          } catch {
            shared.fail(error)
          }
        }
      }
      if let failure = shared.failure { throw failure }
      try checkpoint("s3.parts-sent")
      let size = try archive.finish()
      let count = Int((size + part - 1) / part)
      let parts = (0..<count).map { ($0 + 1, shared.etag($0) ?? "") }
      guard parts.allSatisfy({ !$0.1.isEmpty }) else {
        throw ContainerError.transferFailed(container: displayName, name: name, reason: "a part was not sent")
      }
      let list = parts.map {
        "<Part><PartNumber>\($0.0)</PartNumber><ETag>\(Self.escapeXML($0.1))</ETag></Part>"
      }
      let document = Data(("<CompleteMultipartUpload>" + list.joined() + "</CompleteMultipartUpload>").utf8)
      let completed = try request(
        "POST", key: key, query: [("uploadId", uploadID)],
        payloadHash: SHA256.hex(of: String(decoding: document, as: UTF8.self)),
        body: .data(document))
      try expectSuccess(completed, name: name)
      // A 200 to CompleteMultipartUpload can still carry an error in its body.
      if let failure = S3ErrorDocument(completed.body) {
        throw ContainerError.transferFailed(
          container: displayName, name: name,
          reason: "completing the upload failed: \(failure.code): \(failure.message)")
      }
    } catch {
      _ = try? request("DELETE", key: key, query: [("uploadId", uploadID)])
      throw error
    }
  }

  /// Aborts what killed runs left of this game's multipart uploads: this device's (its
  /// uploads of a game run under the game's lock, so none is under way) and anyone's that
  /// started more than an hour ago. Best effort: servers without the call are left alone.
  func abandonStaleUploads(game: String, device: String?) {
    guard
      let response = try? request(
        "GET", key: nil, query: [("uploads", ""), ("prefix", keyPrefix(game: game))]),
      (200..<300).contains(response.status), let root = XMLNode.parse(response.body)
    else { return }
    let now = clock()
    for upload in root.all("Upload") {
      guard let key = upload.value("Key"), let id = upload.value("UploadId") else { continue }
      let isMine =
        device != nil
        && ArchiveName(parsing: String(key.split(separator: "/").last ?? ""))?.device == device
      let isOld = upload.value("Initiated").flatMap(iso8601Ms).map { now - $0 > Self.staleUploadMs } ?? false
      guard isMine || isOld else { continue }
      _ = try? request("DELETE", key: key, query: [("uploadId", id)])
    }
  }

  static func escapeXML(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
  }
}
