import Foundation
import Testing

@testable import SaveVault

/// Large uploads to S3 send their parts while the archive is still being written.
@Suite("S3 uploads overlap packing and sending", .tags(.large))
struct S3StreamingUploadTests {
  /// Deterministic incompressible bytes.
  func bytes(_ count: Int) -> Data {
    var data = Data(count: count)
    data.withUnsafeMutableBytes { buffer in
      var state: UInt64 = 7
      for index in 0..<buffer.count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        buffer[index] = UInt8(truncatingIfNeeded: state >> 33)
      }
    }
    return data
  }

  func write(_ data: Data, to fd: Int32) throws {
    if let failure = data.withUnsafeBytes({ Platform.writeAll(fd, $0) }) {
      throw SystemError(operation: "write", path: "test", code: failure)
    }
  }

  @Test("the first part is sent before the writer has finished", arguments: S3TestServer.Kind.allCases)
  func partsSentWhileWriting(kind: S3TestServer.Kind) throws {
    let server = try #require(S3TestServer.shared(kind), "the \(kind.rawValue) S3 server did not start")
    let container = try server.container(partSize: 5 << 20)
    let sent = DispatchSemaphore(value: 0)
    container.progress = { event in if event.done > 0 { sent.signal() } }
    let data = bytes(12 << 20)
    let name = ArchiveName(createdMs: 1_795_968_071_700, device: "stream").description
    var sawPartSent = false
    try container.upload(game: "g", name: name) { fd in
      try write(data.prefix(11 << 20), to: fd)
      // Held back until a part has gone (bounded, so a regression fails instead of hanging).
      sawPartSent = sent.wait(timeout: .now() + 60) == .success
      try write(data.suffix(from: 11 << 20), to: fd)
      return Int64(data.count)
    }
    #expect(sawPartSent, "no part was sent while the archive was being written")
    #expect(try container.read(game: "g", name: name, body: readAll) == data)
  }

  @Test(
    "a writer that fails after parts went out fails the upload with its own error and leaves nothing",
    arguments: S3TestServer.Kind.allCases)
  func writerFailureAborts(kind: S3TestServer.Kind) throws {
    let server = try #require(S3TestServer.shared(kind), "the \(kind.rawValue) S3 server did not start")
    let container = try server.container(partSize: 5 << 20)
    let name = ArchiveName(createdMs: 1_795_968_071_800, device: "stream").description
    let data = bytes(12 << 20)
    #expect(throws: ArchiveError.changedWhileReading(path: "slot.sav")) {
      try container.upload(game: "g", name: name) { fd in
        try write(data, to: fd)
        throw ArchiveError.changedWhileReading(path: "slot.sav")
      }
    }
    #expect(try container.list(game: "g").contains { $0.name == name } == false)
    let uploads = try container.client.request(
      "GET", key: nil, query: [("uploads", ""), ("prefix", container.keyPrefix(game: "g") + name)])
    let open = XMLNode.parse(uploads.body)?.all("Upload") ?? []
    #expect(open.isEmpty, "the multipart upload was left open")
  }

  @Test("a body over a file range holds exactly that range, wherever it starts")
  func fileRangeBody() throws {
    let (fd, path) = try Platform.makeTemporaryFile(prefix: NSTemporaryDirectory() + "/savevault-range-test-")
    defer {
      close(fd)
      unlink(path)
    }
    let data = bytes(3 * 4096 + 123)
    try write(data, to: fd)
    for (offset, count) in [(0, data.count), (4096, 4096), (5000, 3000), (data.count - 1, 1), (7, 0)] {
      let body = try Self.readWhole(HTTPBody.fileRange(fd: fd, offset: Int64(offset), count: count))
      #expect(body == data.subdata(in: offset..<offset + count), "offset \(offset), count \(count)")
    }
  }

  /// The body as the HTTP client reads it while sending: in pieces smaller than a page.
  static func readWhole(_ body: HTTPBody) throws -> Data {
    var whole = Data()
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1000, alignment: 16)
    defer { buffer.deallocate() }
    while true {
      let got = try body.read(into: buffer, capacity: 1000, from: Int64(whole.count))
      if got == 0 { return whole }
      whole.append(buffer.assumingMemoryBound(to: UInt8.self), count: got)
    }
  }

  @Test("parts are partSize for the first 2,000, then twice as large every 2,000, end to end")
  func partRanges() throws {
    let container = try CloudEndToEndTests.s3(
      endpoint: "http://127.0.0.1:9", allowsInsecureHTTP: false, partSize: 5 << 20)
    let part = Int64(5 << 20)
    #expect(container.partRange(0) == (0, part))
    #expect(container.partRange(1_999) == (1_999 * part, part))
    #expect(container.partRange(2_000) == (2_000 * part, 2 * part))
    #expect(container.partRange(4_000) == (6_000 * part, 4 * part))
    var end: Int64 = 0
    for index in 0..<10_000 {
      let (start, size) = container.partRange(index)
      #expect(start == end, "part \(index) does not start where the one before ends")
      end = start + size
    }
    #expect(end == 62_000 * part, "10,000 parts hold 62,000 first parts' worth")
  }
}
