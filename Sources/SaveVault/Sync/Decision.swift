/// Where a game stands between this device and the cloud.
public enum SyncState: String, Codable, Sendable, CaseIterable {
  case inSync = "in-sync"
  case localChanged = "local-changed"
  case cloudChanged = "cloud-changed"
  case conflict
  case cloudEmpty = "cloud-empty"
  case localMissing = "local-missing"
}

/// When a sync runs.
public enum SyncPhase: String, Sendable {
  /// Any direction: upload, restore, or ask (`sync`, and `wrap` before the game).
  case full
  /// After the game (`wrap`): upload what the session changed, or ask on a conflict; never
  /// restore unasked (a cloud that changed meanwhile is restored before the next launch).
  case afterGame
}

/// What this device's agreement with the cloud says when both sides hold a save.
public enum SinceAgreement: Sendable, Equatable {
  /// An agreement about this save folder: did the local save change since, and is the cloud's
  /// latest archive still the one agreed on?
  case recorded(localChanged: Bool, cloudLatestIsAgreed: Bool)
  /// No agreement about this folder (a new device, a folder the game was pointed at since, or
  /// one on another drive than it was): is the local content identical to the cloud's latest?
  case none(identicalContent: Bool, isOnOtherDrive: Bool = false)
  /// A conflict, or a deletion, seen earlier is still unanswered: only content identical to the
  /// cloud's latest ends it.
  case unanswered(identicalContent: Bool, wasDeletion: Bool = false)
}

/// What the sync decision looks at, gathered by reading the save folder, the container and the
/// agreement. Each case holds only what the decision needs in it, so that nothing is hashed
/// or downloaded that cannot change the outcome.
public enum SyncFacts: Sendable, Equatable {
  /// The container holds no archive of the game.
  case cloudEmpty(hasSave: Bool)
  /// The container holds archives; the save folder is missing or empty.
  case noLocalSave(NoLocalSave)
  /// Both sides hold a save.
  case bothHaveSaves(SinceAgreement)

  /// Why there is no local save, as far as this device can tell.
  public enum NoLocalSave: Sendable, Equatable {
    /// This device agreed on nothing that explains it (a new device, a cloud that moved on).
    case unexplained
    /// The save was there when this device agreed with the cloud's latest, which has not
    /// changed: deleted here, or its drive not mounted.
    case deletedSinceAgreement
    /// It was missing or empty at the agreement already (a deletion uploaded on purpose, an
    /// empty archive restored), and the cloud's latest is still that archive.
    case agreedEmpty
  }
}

/// What a sync does next.
public enum SyncStep: Sendable, Equatable {
  case nothing
  /// Upload the local save as the cloud's latest.
  case upload
  /// Restore the cloud's latest, keeping the local save.
  case restore
  /// Restore the cloud's latest, but not now: after a game, a newer cloud save waits for the
  /// next launch, so that the session just played is never replaced unasked.
  case restoreAtNextLaunch
  /// Ask the player (or apply the conflict policy): the two sides cannot both be kept as they
  /// are, and which one wins is the player's choice.
  case ask(ConflictKind)
}

/// The decision: the state, the step, and the reason in words.
public struct SyncPlan: Sendable, Equatable {
  public var state: SyncState
  public var step: SyncStep
  /// Why, in words (`--verbose`).
  public var reason: String
}

/// The sync decision: pure, no I/O. Every rule of which way a save goes lives here.
public enum Decision {
  /// The plan for `facts` in `phase`.
  ///
  /// - An empty cloud is `cloud-empty`: upload the local save, if there is one.
  /// - A missing or empty local save is `local-missing`: restore, unless it was deleted since
  ///   the agreement (ask: restoring would undo the player's change) or agreed on as empty
  ///   (`in-sync`).
  /// - With both sides: the agreement's table (unchanged/unchanged `in-sync`, local only
  ///   `local-changed`, cloud only `cloud-changed`, both `conflict`). With no agreement, identical
  ///   content is `in-sync` and anything else a `conflict`: never a guess. A conflict or
  ///   deletion left unanswered stays a `conflict` until the content is identical to the cloud's.
  /// - After a game, a restore waits for the next launch.
  public static func plan(_ facts: SyncFacts, phase: SyncPhase) -> SyncPlan {
    let restore: SyncStep = phase == .full ? .restore : .restoreAtNextLaunch
    let restoring =
      phase == .full
      ? "restoring the cloud's latest, keeping the local save"
      : "it is restored before the next game, not over the session just played"
    switch facts {
    case .cloudEmpty(let hasSave):
      return hasSave
        ? SyncPlan(
          state: .cloudEmpty, step: .upload,
          reason: "the container has no archive of this game; uploading the local save")
        : SyncPlan(
          state: .cloudEmpty, step: .nothing,
          reason: "the container has no archive of this game and there is no local save; nothing to do")
    case .noLocalSave(.agreedEmpty):
      return SyncPlan(
        state: .inSync, step: .nothing,
        reason: "the save is missing or empty, as agreed with the cloud's latest; nothing to do")
    case .noLocalSave(.deletedSinceAgreement):
      return SyncPlan(
        state: .localMissing, step: .ask(.localDeleted),
        reason:
          "the local save was deleted (or its drive is not mounted) since the agreement; asking, or applying the conflict policy"
      )
    case .noLocalSave(.unexplained):
      return SyncPlan(state: .localMissing, step: restore, reason: "there is no local save; \(restoring)")
    case .bothHaveSaves(.recorded(let localChanged, let cloudLatestIsAgreed)):
      switch (localChanged, cloudLatestIsAgreed) {
      case (false, true):
        return SyncPlan(state: .inSync, step: .nothing, reason: "local and cloud agree; nothing to do")
      case (true, true):
        return SyncPlan(
          state: .localChanged, step: .upload,
          reason: "only the local save changed since the agreement; uploading it")
      case (false, false):
        return SyncPlan(
          state: .cloudChanged, step: restore,
          reason: "only the cloud changed since the agreement; \(restoring)")
      case (true, false):
        return SyncPlan(
          state: .conflict, step: .ask(.bothChanged),
          reason: "both changed since the agreement; asking, or applying the conflict policy")
      }
    case .bothHaveSaves(.none(true, _)), .bothHaveSaves(.unanswered(true, _)):
      return SyncPlan(
        state: .inSync, step: .nothing,
        reason: "the local save is the content of the cloud's latest; nothing to do")
    case .bothHaveSaves(.none(false, let isOnOtherDrive)):
      return SyncPlan(
        state: .conflict, step: .ask(isOnOtherDrive ? .otherDrive : .noAgreement),
        reason: (isOnOtherDrive
          ? "the save folder is on another drive than at the agreement"
          : "no agreement about this save folder on this device")
          + ", and it differs from the cloud's latest; asking, or applying the conflict policy")
    case .bothHaveSaves(.unanswered(false, let wasDeletion)):
      return SyncPlan(
        state: .conflict, step: .ask(wasDeletion ? .reappeared : .stillUnanswered),
        reason: (wasDeletion
          ? "the save was missing when last looked at and has come back different from the cloud's"
          : "a conflict seen before is still unanswered and the saves still differ")
          + "; asking, or applying the conflict policy")
    }
  }
}
