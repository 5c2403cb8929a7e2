import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One part, hashed and ready to send.
private struct HashedPart {
  var start: Int64
  var length: Int64
  var sha256: String
  var md5: String
  /// The archive's bytes written when the part was taken.
  var available: Int64
}

extension S3Container {
  /// Parts of `partSize` for the first 2,000, then twice as large every 2,000 more: S3's
  /// 10,000 parts then hold 62,000 × `partSize` (300 GiB at 5 MiB), while a save of the usual
  /// sizes is sent in parts small enough to keep each in memory while it is sent.
  static let partsPerTier = 2_000

  /// Where part `index` (from 0) starts and how long it is (the last part of an archive may
  /// be shorter).
  func partRange(_ index: Int) -> (start: Int64, size: Int64) {
    let tier = index / Self.partsPerTier
    let before = settings.partSize * Int64(Self.partsPerTier) * ((1 << tier) - 1)
    let size = settings.partSize << tier
    return (before + Int64(index % Self.partsPerTier) * size, size)
  }

  /// Stores a large archive in parts while it is still being written; aborts the upload on
  /// any failure (the writer's included), so that nothing is left half-made under the name.
  ///
  /// One part at a time is sent, read from the archive as it goes out (never copied to another
  /// file or held whole in memory); meanwhile the next part is hashed on another thread
  /// (SHA-256 for the signature, MD5 for Content-MD5, in one read) as soon as the writer has
  /// written it.
  ///
  /// The upload is noted in this device's journal while it is under way, so that the next
  /// upload aborts it if this one is cut short. With `isConditional`, the request that
  /// completes it carries `If-None-Match: *` (`storing`).
  func multipartUpload(
    game: String, key: String, name: String, archive: GrowingArchive, metadata: [(String, String)],
    isConditional: Bool
  ) throws {
    let journalEntry = localState?.begin(game: game, key: key, nowMs: clock())
    let created = try client.request("POST", key: key, query: [("uploads", "")], headers: metadata)
    try client.expectSuccess(created, name: name)
    guard let uploadID = XMLNode.parse(created.body)?.value("UploadId") else {
      throw ContainerError.transferFailed(
        container: displayName, name: name, reason: "the server gave no upload id")
    }
    let hash = { @Sendable [self] (index: Int) throws -> HashedPart? in
      let (start, size) = partRange(index)
      let (available, isComplete) = try archive.wait(until: start + size)
      if isComplete && start >= available { return nil }
      guard index < 10_000 else {
        throw ContainerError.transferFailed(
          container: displayName, name: name, reason: "the archive needs more than 10,000 parts")
      }
      let length = min(size, available - start)
      let (sha, md5) = try digests(fd: archive.fd, offset: start, count: length)
      return HashedPart(start: start, length: length, sha256: sha, md5: md5, available: available)
    }
    // The next part is hashed on another thread while this one is sent.
    var next = Background { try hash(0) }
    do {
      var etags: [String] = []
      var sent: Int64 = 0
      while let part = try next.get() {
        let index = etags.count
        next = Background { try hash(index + 1) }
        let response = try client.request(
          "PUT", key: key, query: [("partNumber", String(index + 1)), ("uploadId", uploadID)],
          headers: [("content-md5", part.md5)], payloadHash: part.sha256,
          body: .fileRange(fd: archive.fd, offset: part.start, count: Int(part.length)))
        try client.expectSuccess(response, name: name)
        guard let etag = response.headers["etag"] else {
          throw ContainerError.transferFailed(
            container: displayName, name: name, reason: "the server gave no ETag for part \(index + 1)")
        }
        etags.append(etag)
        sent += part.length
        progress(ProgressEvent(phase: .uploading, done: sent, total: max(sent, part.available)))
        try checkpoint("s3.part")
      }
      try checkpoint("s3.parts-sent")
      guard try archive.finish() == sent else {
        throw ContainerError.transferFailed(container: displayName, name: name, reason: "a part was not sent")
      }
      let list = etags.enumerated().map {
        "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\(Self.escapeXML($0.element))</ETag></Part>"
      }
      let document = Data(("<CompleteMultipartUpload>" + list.joined() + "</CompleteMultipartUpload>").utf8)
      let completed = try storing(key: key, name: name, isConditional: isConditional) { condition in
        try client.request(
          "POST", key: key, query: [("uploadId", uploadID)], headers: condition,
          payloadHash: SHA256.hex(of: String(decoding: document, as: UTF8.self)), body: .data(document))
      }
      try client.expectSuccess(completed, name: name)
      // A 200 to CompleteMultipartUpload can still carry an error in its body.
      if let failure = S3ErrorDocument(completed.body) {
        throw ContainerError.transferFailed(
          container: displayName, name: name,
          reason: "completing the upload failed: \(failure.code): \(failure.message)")
      }
    } catch {
      let aborted = try? client.request("DELETE", key: key, query: [("uploadId", uploadID)])
      if let aborted, (200..<300).contains(aborted.status) { localState?.end(journalEntry) }
      _ = try? next.get()  // the part being hashed reads the archive: let it end first
      throw error
    }
    localState?.end(journalEntry)
  }

  /// Aborts what an interrupted run of this device left of this game's multipart uploads, when
  /// the journal says there is any (without a journal, looks every time): this device's
  /// uploads of the game (they run under the game's lock, so none is under way) and anyone's
  /// that started more than an hour ago. The journal's entries go once every upload found
  /// was aborted. Best effort: servers without the call are left alone.
  func abandonInterruptedUploads(game: String, device: String?) {
    let entries = localState?.interrupted(game: game)
    if let entries, entries.isEmpty { return }
    guard let uploads = try? openUploads(game: game) else { return }
    let now = clock()
    var isClean = true
    for upload in uploads {
      let isMine =
        device != nil
        && ArchiveName(parsing: String(upload.key.split(separator: "/").last ?? ""))?.device == device
      let isOld = upload.initiatedMs.map { now - $0 > Self.staleUploadMs } ?? false
      guard isMine || isOld else { continue }
      let aborted = try? client.request("DELETE", key: upload.key, query: [("uploadId", upload.id)])
      if !(aborted.map { (200..<300).contains($0.status) || $0.status == 404 } ?? false) { isClean = false }
    }
    guard isClean else { return }
    for entry in entries ?? [] { localState?.end(entry.path) }
  }

  /// The multipart uploads open under `game`'s folder (ListMultipartUploads). Throws what a
  /// failed request throws.
  func openUploads(game: String) throws -> [(key: String, id: String, initiatedMs: Int64?)] {
    let response = try client.request(
      "GET", key: nil, query: [("uploads", ""), ("prefix", keyPrefix(game: game))])
    try client.expectSuccess(response, name: nil)
    guard let root = XMLNode.parse(response.body) else {
      throw ContainerError.unavailable(
        container: displayName, reason: "the server's upload list is not valid XML")
    }
    return root.all("Upload").compactMap { upload in
      guard let key = upload.value("Key"), let id = upload.value("UploadId") else { return nil }
      return (key, id, upload.value("Initiated").flatMap(iso8601Ms))
    }
  }

  static func escapeXML(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
  }
}
