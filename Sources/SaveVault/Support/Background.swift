import Foundation

/// A value worked out on another thread while this one does something else: a multipart
/// upload hashes its next part while the one before is sent; a look at a game lists the
/// container while the save folder is scanned.
final class Background<Value>: @unchecked Sendable {
  private let done = DispatchSemaphore(value: 0)
  /// Set by the work before `done` is signalled.
  private var outcome: Result<Value, any Error> = .failure(CancellationError())

  /// Starts `work` at once on another thread.
  init(_ work: @escaping @Sendable () throws -> Value) {
    DispatchQueue.global().async {
      self.outcome = Result { try work() }
      self.done.signal()
    }
  }

  /// The value, or the error `work` threw; waits for the work to end. May be asked again.
  func get() throws -> Value {
    done.wait()
    done.signal()
    return try outcome.get()
  }
}
