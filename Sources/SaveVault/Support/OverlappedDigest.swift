import Dispatch

/// File digests (`FileDigest`, usually one) fed on a second thread while the caller writes the
/// same bytes, so that a restore's verification overlaps its writing instead of adding to it
/// (OpenSSL hashes ~1.8 GB/s on one core; writing into the page cache runs at about the same).
///
/// `update` hands a block over and returns at once: the block must stay valid and unchanged
/// until the next call (`update`, `addZeros`, `wait` or `finalize`), which waits for the
/// digests to take it. Blocks are fed in order. Small blocks and holes are fed inline (a
/// hand-over costs more).
final class OverlappedDigest: @unchecked Sendable {
  /// Blocks under this many bytes are fed on the caller's thread.
  static let overlapThreshold = 128 << 10

  private let digests: [FileDigest]
  /// Made at the first large block only: most files of a save are small.
  private var worker: (queue: DispatchQueue, group: DispatchGroup)?

  init(_ digests: [FileDigest]) { self.digests = digests }

  func update(_ bytes: UnsafeRawPointer, count: Int) {
    wait()
    guard count >= Self.overlapThreshold else {
      for digest in digests { digest.update(bytes, count: count) }
      return
    }
    let worker = worker ?? (DispatchQueue(label: "savevault.overlapped-digest"), DispatchGroup())
    self.worker = worker
    let block = Block(bytes: bytes, count: count)
    worker.queue.async(group: worker.group) {
      for digest in self.digests { digest.update(block.bytes, count: block.count) }
    }
  }

  /// Feeds `count` zeros, a hole.
  func addZeros(_ count: Int64) {
    wait()
    for digest in digests { digest.addZeros(count) }
  }

  /// Waits until every block handed over is fed (before its buffer is reused).
  func wait() { worker?.group.wait() }

  /// Finishes the digests (64 lowercase hex digits each, in the order given). Call once.
  func finalize() -> [String] {
    wait()
    return digests.map { $0.finalize() }
  }

  /// A block in flight; valid until `wait` returns, which the contract above guarantees.
  private struct Block: @unchecked Sendable {
    let bytes: UnsafeRawPointer
    let count: Int
  }
}
