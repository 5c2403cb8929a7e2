import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension S3Container {
  /// Stores a large archive in parts, one in memory at a time; aborts the upload on any
  /// failure, so that nothing is left half-made under the name.
  func multipartUpload(key: String, name: String, fd: Int32, size: Int64, metadata: [(String, String)]) throws
  {
    let created = try request("POST", key: key, query: [("uploads", "")], headers: metadata)
    try expectSuccess(created, name: name)
    guard let uploadID = XMLNode.parse(created.body)?.value("UploadId") else {
      throw ContainerError.transferFailed(
        container: displayName, name: name, reason: "the server gave no upload id")
    }
    do {
      let part = max(partSize, (size + 9_999) / 10_000)
      var parts: [(Int, String)] = []
      var offset: Int64 = 0
      var number = 1
      while offset < size {
        let count = min(part, size - offset)
        let data = try readPart(fd: fd, offset: offset, count: count)
        let md5 = MD5()
        let sha = SHA256()
        data.withUnsafeBytes { buffer in
          if let base = buffer.baseAddress {
            md5.update(base, count: buffer.count)
            sha.update(base, count: buffer.count)
          }
        }
        let response = try request(
          "PUT", key: key, query: [("partNumber", String(number)), ("uploadId", uploadID)],
          headers: [("content-md5", md5.finalizeBase64())], payloadHash: sha.finalize(), body: .data(data))
        try expectSuccess(response, name: name)
        guard let etag = response.headers["etag"] else {
          throw ContainerError.transferFailed(
            container: displayName, name: name, reason: "the server gave no ETag for part \(number)")
        }
        parts.append((number, etag))
        offset += count
        progress(ProgressEvent(phase: .uploading, done: offset, total: size))
        number += 1
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

  /// Aborts this game's multipart uploads that started more than an hour ago: what a killed
  /// run left behind. Best effort: servers without the call are left alone.
  func abandonStaleUploads(game: String) {
    guard
      let response = try? request(
        "GET", key: nil, query: [("uploads", ""), ("prefix", keyPrefix(game: game))]),
      (200..<300).contains(response.status), let root = XMLNode.parse(response.body)
    else { return }
    let now = clock()
    for upload in root.all("Upload") {
      guard let key = upload.value("Key"), let id = upload.value("UploadId"),
        let initiated = upload.value("Initiated").flatMap(iso8601Ms), now - initiated > Self.staleUploadMs
      else { continue }
      _ = try? request("DELETE", key: key, query: [("uploadId", id)])
    }
  }

  private func readPart(fd: Int32, offset: Int64, count: Int64) throws -> Data {
    var data = Data(count: Int(count))
    var done = 0
    try data.withUnsafeMutableBytes { buffer in
      guard let base = buffer.baseAddress else { return }
      while done < Int(count) {
        let got = pread(fd, base + done, Int(count) - done, off_t(offset) + off_t(done))
        if got < 0 && errno == EINTR { continue }
        guard got > 0 else {
          throw ArchiveError.unreadable(path: "the archive being uploaded", reason: "short read")
        }
        done += got
      }
    }
    return data
  }

  static func escapeXML(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
  }
}
