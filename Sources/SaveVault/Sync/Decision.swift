/// Where a game stands between this device and the cloud (the sync decision table in docs/architecture.md).
public enum SyncState: String, Codable, Sendable, CaseIterable {
  case inSync = "in-sync"
  case localChanged = "local-changed"
  case cloudChanged = "cloud-changed"
  case conflict
  case cloudEmpty = "cloud-empty"
  case localMissing = "local-missing"
}

/// What this device knows of its last agreement with the cloud, reduced to the facts the
/// decision needs.
public enum Agreement: Sendable, Equatable {
  /// A ledger exists: did the local save change since, and is the cloud's latest archive
  /// still the one agreed on?
  case recorded(localChanged: Bool, cloudLatestIsAgreed: Bool)
  /// No ledger (a new device, or an agreement about another save folder): is the local content
  /// identical to the cloud's latest?
  case none(identicalContent: Bool)
  /// A conflict or deletion seen earlier is still unanswered: only content identical to the
  /// cloud's latest ends it.
  case unresolved(identicalContent: Bool)
}

/// The sync decision: pure, no I/O.
public enum Decision {
  /// The state of a game.
  ///
  /// - An empty cloud is `cloud-empty` (upload, if there is a local save).
  /// - A missing or empty local save is `local-missing` (restore).
  /// - Otherwise the ledger table: unchanged/unchanged `in-sync`, local only `local-changed`,
  ///   cloud only `cloud-changed`, both `conflict`. With no ledger, identical content is
  ///   `in-sync` and anything else a `conflict`: never a guess. A conflict or deletion left
  ///   unanswered stays a `conflict` until the content is identical to the cloud's latest.
  public static func state(localExists: Bool, cloudHasArchives: Bool, agreement: () throws -> Agreement)
    rethrows -> SyncState
  {
    guard cloudHasArchives else { return .cloudEmpty }
    guard localExists else { return .localMissing }
    switch try agreement() {
    case .recorded(let localChanged, let cloudLatestIsAgreed):
      switch (localChanged, cloudLatestIsAgreed) {
      case (false, true): return .inSync
      case (true, true): return .localChanged
      case (false, false): return .cloudChanged
      case (true, false): return .conflict
      }
    case .none(let identicalContent), .unresolved(let identicalContent):
      return identicalContent ? .inSync : .conflict
    }
  }
}
