import Foundation
import Testing

@testable import SaveVault

@Suite("OverlappedSHA256: hashing on a second thread gives the plain digest", .tags(.small))
struct OverlappedSHA256Tests {
  @Test("mixed block sizes through one reused buffer, rewritten as soon as each call returns")
  func matchesPlainDigest() {
    var generator = SplitMix64(seed: 42)
    let sizes = [0, 1, 4096, 131_071, 131_072, 1 << 20, 65_536, 3, 2 << 20, 200_000]
    let plain = SHA256()
    let overlapped = OverlappedSHA256()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 << 20, alignment: 16)
    defer { buffer.deallocate() }
    for size in sizes {
      // The caller's contract: the block may change only once the next call has returned,
      // which is when the buffer is rewritten here (as libarchive reuses its read buffer).
      overlapped.wait()
      for index in 0..<size { buffer[index] = UInt8(truncatingIfNeeded: generator.next()) }
      plain.update(buffer.baseAddress!, count: size)
      overlapped.update(buffer.baseAddress!, count: size)
    }
    #expect(overlapped.finalize() == plain.finalize())
  }
}
