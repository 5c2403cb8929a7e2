import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The content hash of one file, as a manifest entry and an agreement record it (`sha256`),
/// fed with the file's bytes in order and told of its holes, which are zeros it never reads.
///
/// A file under `chunkedFrom` (64 MiB) is hashed by its bytes: the value is their SHA-256. A
/// larger file is hashed by chunks (`Scheme.chunks`), so that its runs of zeros (a sparse
/// file's holes, or zeros written out) cost nothing to hash and the work is bounded by its
/// data, not its size: the file is cut into 64 KiB chunks from its start (the last one may be
/// shorter), and the value is the SHA-256 of one record per chunk with a non-zero byte (the
/// byte `01`, the chunk's length as 8 bytes big-endian, its bytes) and one per maximal run of
/// all-zero chunks (`00`, the run's length in bytes as 8 bytes big-endian), in file order.
/// The value depends on the bytes alone, never on where the holes are: a file and a copy of
/// it with its holes filled hash alike. Both are 64 hex digits.
final class FileDigest {
  /// How a file's bytes become its hash.
  enum Scheme: Sendable, Equatable {
    /// The SHA-256 of the bytes.
    case bytes
    /// The SHA-256 of the chunk records.
    case chunks
  }

  /// The smallest file hashed by chunks.
  static let chunkedFrom: Int64 = 64 << 20
  static let chunkSize = 64 << 10

  /// The scheme of a file of `size` bytes.
  static func scheme(size: Int64) -> Scheme { size >= chunkedFrom ? .chunks : .bytes }

  let scheme: Scheme
  private let hash = SHA256()
  /// Zeros, made at the first hole or chunk: most files have neither.
  private var zeros: UnsafeMutableRawPointer?
  /// The chunk being gathered, for `.chunks`: `filled` bytes of it so far.
  private var partial: UnsafeMutableRawPointer?
  private var filled = 0
  /// The length of the run of all-zero chunks not yet recorded.
  private var zeroRun: Int64 = 0

  /// A digest of a file of `size` bytes, by its size's scheme unless `scheme` says otherwise.
  init(size: Int64, scheme: Scheme? = nil) {
    self.scheme = scheme ?? Self.scheme(size: size)
  }

  deinit {
    zeros?.deallocate()
    partial?.deallocate()
  }

  /// Feeds the next `count` bytes of the file.
  func update(_ bytes: UnsafeRawPointer, count: Int) {
    guard scheme == .chunks else { return hash.update(bytes, count: count) }
    var offset = 0
    if filled > 0 {
      let taken = min(Self.chunkSize - filled, count)
      gathered().advanced(by: filled).copyMemory(from: bytes, byteCount: taken)
      filled += taken
      offset = taken
      if filled == Self.chunkSize { finishGathered() }
    }
    while count - offset >= Self.chunkSize {
      record(chunk: bytes + offset, count: Self.chunkSize)
      offset += Self.chunkSize
    }
    if offset < count {
      gathered().copyMemory(from: bytes + offset, byteCount: count - offset)
      filled = count - offset
    }
  }

  /// Feeds `count` zero bytes, a hole: by chunks, whole chunks of it are never touched.
  func addZeros(_ count: Int64) {
    var remaining = count
    let zeros = zeroBlock()
    guard scheme == .chunks else {
      while remaining > 0 {
        let step = Int(min(Int64(Self.chunkSize), remaining))
        hash.update(zeros, count: step)
        remaining -= Int64(step)
      }
      return
    }
    if filled > 0 {
      let taken = Int(min(Int64(Self.chunkSize - filled), remaining))
      update(zeros, count: taken)
      remaining -= Int64(taken)
    }
    let whole = remaining - remaining % Int64(Self.chunkSize)
    zeroRun += whole
    remaining -= whole
    if remaining > 0 { update(zeros, count: Int(remaining)) }
  }

  /// Finishes the digest and returns it as 64 lowercase hex digits. Call once.
  func finalize() -> String {
    if scheme == .chunks {
      if filled > 0 { finishGathered() }
      recordZeroRun()
    }
    return hash.finalize()
  }

  private func record(chunk: UnsafeRawPointer, count: Int) {
    if memcmp(chunk, zeroBlock(), count) == 0 {
      zeroRun += Int64(count)
      return
    }
    recordZeroRun()
    recordHead(1, length: Int64(count))
    hash.update(chunk, count: count)
  }

  private func recordZeroRun() {
    guard zeroRun > 0 else { return }
    recordHead(0, length: zeroRun)
    zeroRun = 0
  }

  private func recordHead(_ tag: UInt8, length: Int64) {
    var head = [UInt8](repeating: tag, count: 9)
    for index in 0..<8 { head[8 - index] = UInt8(truncatingIfNeeded: length >> (8 * index)) }
    hash.update(head)
  }

  private func finishGathered() {
    record(chunk: gathered(), count: filled)
    filled = 0
  }

  private func gathered() -> UnsafeMutableRawPointer {
    if let partial { return partial }
    let made = UnsafeMutableRawPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
    partial = made
    return made
  }

  private func zeroBlock() -> UnsafeMutableRawPointer {
    if let zeros { return zeros }
    let made = UnsafeMutableRawPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
    made.initializeMemory(as: UInt8.self, repeating: 0, count: Self.chunkSize)
    zeros = made
    return made
  }
}

extension FileDigest {
  /// The size and hash of the file open at `fd`, read from its start: only its data regions
  /// are read when it has holes (`Platform.dataRegions`), which are fed as zeros; a file
  /// without holes is read to its end. A sparse file that ends early (it shrank meanwhile) is
  /// hashed as far as it goes, with that size. A read error throws `SystemError` naming `path`.
  static func of(fd: Int32, path: String) throws -> (size: Int64, digest: String) {
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw SystemError(operation: "stat", path: path, code: errno) }
    let size = Int64(info.st_size)
    let digest = FileDigest(size: size)
    func feed(_ chunk: UnsafeRawBufferPointer) {
      if let base = chunk.baseAddress { digest.update(base, count: chunk.count) }
    }
    // Only a file that takes less room than its size can have holes worth asking for.
    guard Int64(info.st_blocks) * 512 < size, let regions = Platform.dataRegions(of: fd, size: size) else {
      guard lseek(fd, 0, SEEK_SET) == 0 else { throw SystemError(operation: "seek", path: path, code: errno) }
      let total = try Platform.forEachChunk(of: fd, path: path, feed)
      return (total, digest.finalize())
    }
    var position: Int64 = 0
    for region in regions {
      digest.addZeros(region.lowerBound - position)
      guard lseek(fd, off_t(region.lowerBound), SEEK_SET) == region.lowerBound else {
        throw SystemError(operation: "seek", path: path, code: errno)
      }
      let length = region.upperBound - region.lowerBound
      let read = try Platform.forEachChunk(of: fd, path: path, upTo: length, feed)
      position = region.lowerBound + read
      if read < length { return (position, digest.finalize()) }
    }
    digest.addZeros(size - position)
    return (size, digest.finalize())
  }
}
