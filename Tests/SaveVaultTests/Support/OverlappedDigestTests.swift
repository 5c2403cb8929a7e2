import Foundation
import Testing

@testable import SaveVault

@Suite("OverlappedDigest: hashing on a second thread gives the digests of the same bytes", .tags(.small))
struct OverlappedDigestTests {
  @Test(
    "mixed block sizes and holes through one reused buffer, rewritten as soon as each call returns",
    arguments: [FileDigest.Scheme.bytes, .chunks])
  func matchesInlineDigest(scheme: FileDigest.Scheme) throws {
    var generator = SplitMix64(seed: 42)
    let sizes = [0, 1, 4096, 131_071, 131_072, 1 << 20, 65_536, 3, 2 << 20, 200_000]
    let inline = FileDigest(size: 0, scheme: scheme)
    let overlapped = OverlappedDigest([
      FileDigest(size: 0, scheme: scheme), FileDigest(size: 0, scheme: .bytes),
    ])
    let plain = SHA256()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 << 20, alignment: 16)
    defer { buffer.deallocate() }
    let base = try #require(buffer.baseAddress)
    for size in sizes {
      // The caller's contract: the block may change only once the next call has returned,
      // which is when the buffer is rewritten here (as libarchive reuses its read buffer).
      overlapped.wait()
      for index in 0..<size { buffer[index] = UInt8(truncatingIfNeeded: generator.next()) }
      inline.update(base, count: size)
      plain.update(base, count: size)
      overlapped.update(base, count: size)
      inline.addZeros(Int64(size / 3))
      plain.update([UInt8](repeating: 0, count: size / 3))
      overlapped.addZeros(Int64(size / 3))
    }
    #expect(overlapped.finalize() == [inline.finalize(), plain.finalize()])
  }
}
