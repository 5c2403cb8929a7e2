import Foundation

/// How far a long step has got, for a progress bar.
public struct ProgressEvent: Sendable, Equatable {
  public enum Phase: String, Sendable {
    case packing, uploading, downloading, extracting
  }
  public var phase: Phase
  public var done: Int64
  public var total: Int64
}

/// Counts bytes for one phase and reports them to the context's progress sink; each report
/// is also a checkpoint where a signal stops the command.
final class ProgressMeter {
  let phase: ProgressEvent.Phase
  let total: Int64
  private let sink: @Sendable (ProgressEvent) -> Void
  private let interruption: Interruption
  private(set) var done: Int64 = 0

  init(_ phase: ProgressEvent.Phase, total: Int64, context: Context) {
    self.phase = phase
    self.total = total
    self.sink = context.reportProgress
    self.interruption = context.interruption
  }

  func add(_ bytes: Int64) throws {
    done += bytes
    sink(ProgressEvent(phase: phase, done: done, total: total))
    try interruption.check()
  }

  /// Reports `position` as done (for a count kept elsewhere, such as the archive bytes read).
  func reach(_ position: Int64) throws {
    try add(position - done)
  }
}
