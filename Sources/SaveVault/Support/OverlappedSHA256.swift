import Dispatch

/// A SHA-256 that hashes large blocks on a second thread while the caller writes the same
/// bytes, so that a restore's verification overlaps its writing instead of adding to it
/// (OpenSSL hashes ~1.8 GB/s on one core; writing into the page cache runs at about the same).
///
/// `update` hands a block over and returns at once: the block must stay valid and unchanged
/// until the next call (`update`, `wait` or `finalize`), which waits for the hash to take it.
/// Blocks are hashed in order. Small blocks are hashed inline (a hand-over costs more).
final class OverlappedSHA256: @unchecked Sendable {
  /// Blocks under this many bytes are hashed on the caller's thread.
  static let overlapThreshold = 128 << 10

  private let hash = SHA256()
  /// Made at the first large block only: most files of a save are small.
  private var worker: (queue: DispatchQueue, group: DispatchGroup)?

  func update(_ bytes: UnsafeRawPointer, count: Int) {
    wait()
    guard count >= Self.overlapThreshold else { return hash.update(bytes, count: count) }
    let worker = worker ?? (DispatchQueue(label: "savevault.overlapped-sha256"), DispatchGroup())
    self.worker = worker
    let block = Block(bytes: bytes, count: count)
    worker.queue.async(group: worker.group) { self.hash.update(block.bytes, count: block.count) }
  }

  /// Waits until every block handed over is hashed (before its buffer is reused).
  func wait() { worker?.group.wait() }

  /// Finishes the digest (64 lowercase hex digits). Call once.
  func finalize() -> String {
    wait()
    return hash.finalize()
  }

  /// A block in flight; valid until `wait` returns, which the contract above guarantees.
  private struct Block: @unchecked Sendable {
    let bytes: UnsafeRawPointer
    let count: Int
  }
}
