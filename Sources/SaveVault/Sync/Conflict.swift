/// Why the two sides are in conflict: what the question tells the player.
public enum ConflictKind: String, Sendable, Equatable, Encodable {
  /// Both the local save and the cloud changed since this device last agreed with it.
  case bothChanged = "both-changed"
  /// This device has agreed on nothing with the cloud about this save folder (a new device,
  /// or the game was pointed at a new folder), and the two saves differ.
  case noAgreement = "no-agreement"
  /// The local save is missing or empty (deleted, or its drive not mounted) while the cloud
  /// still holds the archive last agreed on.
  case localDeleted = "local-deleted"
  /// A conflict seen earlier was not answered, and the saves still differ.
  case stillUnanswered = "still-unanswered"
  /// The local save was missing when an earlier sync looked (a drive not mounted?), nobody
  /// answered, and it has come back different from the cloud's; or it is in folders made anew
  /// since the agreement (the game uninstalled and installed again): perhaps a new game's save.
  case reappeared
  /// The save folder is on another filesystem than when this device last agreed with the
  /// cloud (its drive not mounted, a folder left where it mounts), and differs from the
  /// cloud's.
  case otherDrive = "other-drive"

  /// Whether a policy may upload the local save: not when it may be a folder left where a
  /// drive mounts, or a new game's save written there.
  public var mayUploadByPolicy: Bool { self != .reappeared && self != .otherDrive }

  /// What happened, as the part of a sentence after the game's name.
  public var situation: String {
    switch self {
    case .bothChanged: "both the local save and the cloud changed since they last agreed"
    case .noAgreement:
      "this device has not agreed with the cloud about this save folder yet, and the two saves differ"
    case .localDeleted:
      "the local save is missing or empty (deleted, or its drive is not mounted) since it last agreed with the cloud"
    case .stillUnanswered: "a conflict seen before is still unanswered, and the two saves still differ"
    case .reappeared:
      "the local save went missing since it last agreed with the cloud (a drive not mounted, or the game uninstalled with its folders) and has come back different from the cloud's; it may be a new game's save"
    case .otherDrive:
      "the save folder is on another drive than when it last agreed with the cloud (is its drive mounted?), and it differs from the cloud's save"
    }
  }
}

/// Both sides of a conflict: everything the player needs to choose.
public struct Conflict: Sendable, Equatable, Encodable {
  public var game: String
  public var kind: ConflictKind = .bothChanged
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
  /// What the player may choose here, in the order offered.
  public var choices: [ConflictChoice] = ConflictChoice.allCases

  /// Why `choice` may not be made by `policy` (nil: it may). A missing or empty save is never
  /// uploaded over the cloud's (only `backup --force` makes it the latest), and a save that
  /// reappeared after it was seen missing is uploaded only when the player says so, never by a
  /// policy: it may be a new game's first save.
  public func refusal(of choice: ConflictChoice, by policy: ConflictPolicy) -> String? {
    guard choices.contains(choice) else {
      return choice == .upload
        ? "no choice uploads a missing or empty save over the cloud's (a forced backup does it on purpose)"
        : "'\(choice.rawValue)' is not one of the choices here"
    }
    if choice == .upload && !kind.mayUploadByPolicy && policy != .prompt {
      return
        "it may not be the save this device agreed on (a drive not mounted?), so no policy uploads it; choose in a terminal or dialog, or make a forced backup"
    }
    return nil
  }
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

/// What asking the player came to: a choice, or no answer and why.
public enum ConflictAnswer: Sendable, Equatable {
  case chosen(ConflictChoice)
  /// Nobody answered: nobody to ask, the end of input, a dialog that could not open, or no
  /// answer in the time the question waits. `reason` completes "…, and": "nobody answered …".
  case none(reason: String)

  /// The choice, when there is one.
  public var choice: ConflictChoice? {
    guard case .chosen(let choice) = self else { return nil }
    return choice
  }

  /// The reason of a resolver that only says there was no answer.
  public static let nobodyAnswered = "nobody answered (no terminal or desktop to ask, or no answer)"
}

/// Asks the player to resolve a conflict: a terminal prompt, a desktop dialog.
public protocol ConflictResolver: Sendable {
  /// The player's choice, or nil when nobody can be asked (no terminal, no desktop session).
  func choose(_ conflict: Conflict) -> ConflictChoice?
  /// The player's choice, or why there is none (by default `choose`'s, with
  /// `ConflictAnswer.nobodyAnswered`).
  func ask(_ conflict: Conflict) -> ConflictAnswer
}

extension ConflictResolver {
  public func ask(_ conflict: Conflict) -> ConflictAnswer {
    choose(conflict).map(ConflictAnswer.chosen) ?? .none(reason: ConflictAnswer.nobodyAnswered)
  }
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
    case unanswered(reason: String)
  }

  /// Settles `conflict` under this policy; asks `resolver` only for `prompt`. A choice the
  /// conflict does not allow (`Conflict.refusal`) leaves it unresolved. Pure apart from the
  /// resolver.
  public func resolve(_ conflict: Conflict, resolver: any ConflictResolver) -> Resolution {
    let resolution = settle(conflict, resolver: resolver)
    if case .chosen(let choice, _) = resolution, let reason = conflict.refusal(of: choice, by: self) {
      return .unanswered(reason: reason)
    }
    return resolution
  }

  private func settle(_ conflict: Conflict, resolver: any ConflictResolver) -> Resolution {
    switch self {
    case .prompt:
      switch resolver.ask(conflict) {
      case .chosen(let choice): return .chosen(choice, by: "player")
      case .none(let reason): return .unanswered(reason: reason)
      }
    case .upload: return .chosen(.upload, by: "policy upload")
    case .restore: return .chosen(.restore, by: "policy restore")
    case .skip: return .chosen(.skip, by: "policy skip")
    case .fail: return .unanswered(reason: "the policy is 'fail'")
    case .newer:
      let local = conflict.localModifiedMs ?? Int64.min
      if local > conflict.cloudModifiedMs { return .chosen(.upload, by: "policy newer (local is newer)") }
      if local < conflict.cloudModifiedMs { return .chosen(.restore, by: "policy newer (cloud is newer)") }
      return .chosen(.skip, by: "policy newer (same millisecond)")
    }
  }
}

/// A question nobody answered (no terminal or dialog to ask, or the `fail` policy): nothing
/// was changed, and it stays a question until the player answers it. A sync reports it in its
/// `SyncReport`; a backup throws it. Either way the exit code is 3.
public struct UnansweredQuestion: AdvisedError, Sendable, Equatable {
  public var game: String
  /// Why nobody answered.
  public var reason: String
  public var kind: ConflictKind
  /// What the player can do, when it is more particular than the kind's own advice.
  public var hint: Advised?

  public init(game: String, reason: String, kind: ConflictKind, hint: Advised? = nil) {
    self.game = game
    self.kind = kind
    self.reason = reason
    self.hint = hint
  }

  public var message: Advised {
    if kind == .localDeleted {
      return
        "\(game): the local save was deleted (or its drive is not mounted) since it last agreed with the cloud, and \(reason); nothing was changed. Run \(remedy: .syncWithSomeoneToAsk), or bring back the cloud's save with \(remedy: .restorePolicy) (a save that comes back meanwhile is asked about too); to make the deletion the cloud's latest, run \(remedy: .forcedBackup)"
    }
    let advice: Advised =
      hint
      ?? (kind.mayUploadByPolicy
        ? "\(remedy: .seeBothSides), then \(remedy: .syncWithSomeoneToAsk), or \(remedy: .choosePolicy)"
        : "\(remedy: .seeBothSides), then \(remedy: .syncWithSomeoneToAsk); \(remedy: .forcedBackup) uploads this save, \(remedy: .restorePolicy) takes the cloud's")
    return "\(game): \(kind.situation), and \(reason); nothing was changed. \(advice)"
  }
}

extension UnansweredQuestion: ExitStatusProviding {
  public var exitStatus: ExitStatus { .conflictUnanswered }
}
