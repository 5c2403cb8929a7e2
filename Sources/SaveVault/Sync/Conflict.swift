/// Both sides of a conflict: everything the player needs to choose.
public struct Conflict: Sendable, Equatable, Encodable {
  public var game: String
  public var saveDir: String
  /// The local save's newest modification, in epoch ms (nil for an empty save).
  public var localModifiedMs: Int64?
  public var localFiles: Int
  public var localBytes: Int64
  /// The cloud's latest archive.
  public var cloudArchive: String
  /// When it was made, in epoch ms.
  public var cloudModifiedMs: Int64
  /// The device that made it (nil for an archive another tool put there).
  public var cloudDevice: String?
  public var cloudBytes: Int64
  public var container: String
}

/// What the player (or a policy) chose.
public enum ConflictChoice: String, Sendable, Codable, CaseIterable {
  /// Upload the local save; the cloud's archive stays in the container.
  case upload
  /// Restore the cloud's latest; the local save is kept as a pre-restore copy.
  case restore
  /// Change nothing.
  case skip
}

/// Asks the player to resolve a conflict: a terminal prompt, a desktop dialog.
public protocol ConflictResolver: Sendable {
  /// The player's choice, or nil when nobody can be asked (no terminal, no desktop session).
  func choose(_ conflict: Conflict) -> ConflictChoice?
}

/// A resolver that can never ask (launch scripts with no terminal and no desktop).
public struct NobodyToAsk: ConflictResolver {
  public init() {}
  public func choose(_ conflict: Conflict) -> ConflictChoice? { nil }
}

/// `--on-conflict`: what to do when both sides changed.
public enum ConflictPolicy: String, Sendable, CaseIterable {
  /// Ask the player; with nobody to ask, leave the conflict (exit 3).
  case prompt
  /// Upload the local save.
  case upload
  /// Restore the cloud's latest (the local save is kept).
  case restore
  /// The larger millisecond timestamp wins (the local save's newest change against the cloud
  /// archive's creation); only when named. Equal times change nothing.
  case newer
  /// Change nothing, exit 0.
  case skip
  /// Change nothing, exit 3.
  case fail

  /// How a conflict was settled.
  public enum Resolution: Equatable, Sendable {
    case chosen(ConflictChoice, by: String)
    case unresolved(reason: String)
  }

  /// Settles `conflict` under this policy; asks `resolver` only for `prompt`. Pure apart from
  /// the resolver.
  public func resolve(_ conflict: Conflict, resolver: any ConflictResolver) -> Resolution {
    switch self {
    case .prompt:
      guard let choice = resolver.choose(conflict) else {
        return .unresolved(reason: "there is no terminal or desktop to ask")
      }
      return .chosen(choice, by: "player")
    case .upload: return .chosen(.upload, by: "policy upload")
    case .restore: return .chosen(.restore, by: "policy restore")
    case .skip: return .chosen(.skip, by: "policy skip")
    case .fail: return .unresolved(reason: "the policy is 'fail'")
    case .newer:
      let local = conflict.localModifiedMs ?? Int64.min
      if local > conflict.cloudModifiedMs { return .chosen(.upload, by: "policy newer (local is newer)") }
      if local < conflict.cloudModifiedMs { return .chosen(.restore, by: "policy newer (cloud is newer)") }
      return .chosen(.skip, by: "policy newer (same millisecond)")
    }
  }
}
