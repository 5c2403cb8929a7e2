import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// A file's hash: the SHA-256 of its bytes under 64 MiB, its hash by chunks from there, which
/// depends on the bytes alone (never on where the holes are) and never reads a hole.
@Suite("FileDigest: a file's hash, by its bytes or by chunks", .tags(.small))
struct FileDigestTests {
  /// The hash by chunks as docs/containers.md defines it, from the whole bytes.
  static func chunkHash(_ bytes: [UInt8]) -> String {
    let hash = SHA256()
    var zeroRun = 0
    func head(_ tag: UInt8, _ length: Int) {
      hash.update([tag] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: length >> (8 * $0)) })
    }
    for start in stride(from: 0, to: bytes.count, by: 65_536) {
      let chunk = Array(bytes[start..<min(start + 65_536, bytes.count)])
      if chunk.allSatisfy({ $0 == 0 }) {
        zeroRun += chunk.count
        continue
      }
      if zeroRun > 0 { head(0, zeroRun) }
      zeroRun = 0
      head(1, chunk.count)
      hash.update(chunk)
    }
    if zeroRun > 0 { head(0, zeroRun) }
    return hash.finalize()
  }

  /// 300 KiB and 5 bytes: data, a zero chunk written out, data across a chunk boundary, zeros
  /// to the end.
  static let sample: [UInt8] = {
    var bytes = [UInt8](repeating: 0, count: 300 * 1024 + 5)
    for index in 0..<70_000 { bytes[index] = UInt8(truncatingIfNeeded: index &* 7 &+ 1) }
    for index in 196_600..<196_700 { bytes[index] = 9 }
    return bytes
  }()

  /// Feeds `bytes` as `pieces` (data as bytes, a piece of all zeros as a hole when `holes`).
  func digest(_ bytes: [UInt8], pieces: [Int], holes: Bool, scheme: FileDigest.Scheme) -> String {
    let digest = FileDigest(size: Int64(bytes.count), scheme: scheme)
    var offset = 0
    for piece in pieces + [bytes.count] where offset < bytes.count {
      let end = min(offset + piece, bytes.count)
      let slice = Array(bytes[offset..<end])
      if holes && slice.allSatisfy({ $0 == 0 }) {
        digest.addZeros(Int64(slice.count))
      } else {
        slice.withUnsafeBytes { if let base = $0.baseAddress { digest.update(base, count: $0.count) } }
      }
      offset = end
    }
    return digest.finalize()
  }

  @Test("by chunks, the value is the definition's, however the bytes and holes come")
  func chunks() {
    let expected = Self.chunkHash(Self.sample)
    for pieces in [[Self.sample.count], [1, 65_535, 65_537, 3], [70_000, 126_600, 100, 114_525], [4096]] {
      for holes in [false, true] {
        #expect(
          digest(Self.sample, pieces: pieces, holes: holes, scheme: .chunks) == expected, "\(pieces) \(holes)"
        )
      }
    }
    #expect(Self.chunkHash(Self.sample) != Self.chunkHash(Self.sample + [0]))
    #expect(Self.chunkHash([UInt8](repeating: 0, count: 65_536)) != Self.chunkHash([]))
  }

  @Test("by bytes, the value is their SHA-256, holes fed as zeros")
  func bytes() {
    let plain = SHA256()
    plain.update(Self.sample)
    let expected = plain.finalize()
    #expect(
      digest(Self.sample, pieces: [70_000, 126_600, 100, 114_525], holes: true, scheme: .bytes) == expected)
    #expect(FileDigest.scheme(size: (64 << 20) - 1) == .bytes)
    #expect(FileDigest.scheme(size: 64 << 20) == .chunks)
  }

  @Test("a file on disk: its holes are not read, and it hashes as the same bytes written out")
  func fileOnDisk() throws {
    let dir = TemporaryDirectory("file-digest")
    let folder = dir.path
    let size: Int64 = (64 << 20) + 12_345
    let pieces: [(Int64, [UInt8])] = [
      (5, [1, 2, 3]), (40 << 20 | 4097, [UInt8](repeating: 7, count: 70_000)), (size - 2, [8, 9]),
    ]
    func make(_ name: String, sparse: Bool) throws -> String {
      let path = folder + "/" + name
      let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
      try #require(fd >= 0)
      defer { close(fd) }
      if sparse {
        try #require(ftruncate(fd, off_t(size)) == 0)
      } else {
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        var written: Int64 = 0
        while written < size {
          let count = Int(min(Int64(zeros.count), size - written))
          try #require(zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress, count, off_t(written)) } == count)
          written += Int64(count)
        }
      }
      for (offset, bytes) in pieces {
        try #require(
          bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) } == bytes.count)
      }
      return path
    }
    var whole = [UInt8](repeating: 0, count: Int(size))
    for (offset, bytes) in pieces {
      whole.replaceSubrange(Int(offset)..<Int(offset) + bytes.count, with: bytes)
    }
    let expected = Self.chunkHash(whole)
    for (name, sparse) in [("sparse", true), ("dense", false)] {
      let path = try make(name, sparse: sparse)
      let fd = open(path, O_RDONLY)
      try #require(fd >= 0)
      defer { close(fd) }
      let (got, digest) = try FileDigest.of(fd: fd, path: path)
      #expect(got == size, "\(name)")
      #expect(digest == expected, "\(name)")
    }
  }
}
