/// Where a game stands between this device and the cloud.
public enum SyncState: String, Codable, Sendable, CaseIterable {
  case inSync = "in-sync"
  case localChanged = "local-changed"
  case cloudChanged = "cloud-changed"
  case conflict
  case cloudEmpty = "cloud-empty"
  case localMissing = "local-missing"
}

/// When a sync runs, or what a backup follows.
public enum SyncPhase: String, Sendable, CaseIterable {
  /// Any direction: upload, restore, or ask (`sync`, and `wrap` before the game).
  case full
  /// After the game (`wrap`): upload what the session changed, or ask on a conflict; never
  /// restore unasked (a cloud that changed meanwhile is restored before the next launch).
  case afterGame
  /// A manual backup (`backup` without `--force`): upload what changed here, or ask on a
  /// conflict; never restore. A cloud that changed while the local save did not leaves nothing
  /// to upload (the report names the newer archive), unless the archive agreed on is gone from
  /// the container: then nothing there holds the save, and it is uploaded. Nor is there anything
  /// to upload without a local save (`backup` refuses a missing or empty one).
  case backup
}

/// What this device's agreement with the cloud says when both sides hold a save.
public enum SinceAgreement: Sendable, Equatable {
  /// An agreement about this save folder, and what happened on both sides since.
  case recorded(Recorded)
  /// No agreement about this folder (a new device, a folder the game was pointed at since, or
  /// one on another drive than it was): is the local content identical to the cloud's latest?
  case none(identicalContent: Bool, isOnOtherDrive: Bool = false)
  /// A conflict, or a deletion, seen earlier is still unanswered: only content identical to the
  /// cloud's latest ends it.
  case unanswered(identicalContent: Bool, wasDeletion: Bool = false)
  /// A folder that held the save at the agreement was made anew since (the game uninstalled
  /// and installed again, its Proton prefix, install or Steam user folder deleted): the save
  /// there is a new one, not the agreed save changed. Is its content the cloud's latest's?
  /// `onlyRemadeEmpty`: the folders made anew hold no file and the rest of the save is as
  /// agreed (its content then does not matter).
  case remade(identicalContent: Bool, onlyRemadeEmpty: Bool = false)
  /// A location of the agreed archive that this device had no place for is one of the game's
  /// here now (its list gained it): the agreement does not say what this device holds there.
  /// Is the local content the cloud's latest's?
  case gained(identicalContent: Bool)

  /// An agreement with only the two facts of the table: no rollback, and a cloud that, if it
  /// changed, changed by one archive that descends from the agreed one.
  static func recorded(localChanged: Bool, cloudLatestIsAgreed: Bool) -> SinceAgreement {
    .recorded(Recorded(localChanged: localChanged, cloudLatestIsAgreed: cloudLatestIsAgreed))
  }

  /// What happened since an agreement about this save folder. The first facts come from the
  /// scan, the agreement and the listing; the last two cost a download (the cloud's latest, or
  /// its start) and are gathered only when `Decision.factNeeded` names them (nil until then).
  public struct Recorded: Sendable, Equatable {
    /// Whether the local save changed since the agreement (its fingerprint).
    public var localChanged: Bool
    /// Whether the agreement is a rollback: the player restored the agreed archive over the
    /// cloud's newer latest (`rolledBackFrom`), so the save is to be uploaded as the latest.
    public var isRollback: Bool
    /// Whether the cloud's latest is still the archive that was latest at the agreement.
    public var cloudLatestIsAgreed: Bool
    /// How many of the container's archives are newer than the one latest at the agreement.
    public var newArchivesSinceAgreement: Int
    /// Whether the archive agreed on is still in the container's listing.
    public var agreedArchiveIsListed: Bool
    /// Whether the local save holds the content of the cloud's latest archive.
    public var latestIdenticalToLocal: Bool?
    /// Whether the cloud's latest descends from the archive latest at the agreement: its
    /// header's `ancestry` names it (an archive of an earlier version: its `madeOver`). True
    /// for an archive that does not say.
    public var latestDescendsFromAgreed: Bool?

    /// The facts that cost a download, gathered only when they can change the plan.
    public enum Fact: Sendable, CaseIterable {
      case latestIdenticalToLocal
      case latestDescendsFromAgreed
    }

    init(
      localChanged: Bool, isRollback: Bool = false, cloudLatestIsAgreed: Bool,
      newArchivesSinceAgreement: Int? = nil, agreedArchiveIsListed: Bool = true,
      latestIdenticalToLocal: Bool? = nil, latestDescendsFromAgreed: Bool? = nil
    ) {
      self.localChanged = localChanged
      self.isRollback = isRollback
      self.cloudLatestIsAgreed = cloudLatestIsAgreed
      self.newArchivesSinceAgreement = newArchivesSinceAgreement ?? (cloudLatestIsAgreed ? 0 : 1)
      self.agreedArchiveIsListed = agreedArchiveIsListed
      self.latestIdenticalToLocal = latestIdenticalToLocal
      self.latestDescendsFromAgreed = latestDescendsFromAgreed
    }

    /// The value of `fact` (nil when not gathered).
    public subscript(fact: Fact) -> Bool? {
      get {
        switch fact {
        case .latestIdenticalToLocal: latestIdenticalToLocal
        case .latestDescendsFromAgreed: latestDescendsFromAgreed
        }
      }
      set {
        switch fact {
        case .latestIdenticalToLocal: latestIdenticalToLocal = newValue
        case .latestDescendsFromAgreed: latestDescendsFromAgreed = newValue
        }
      }
    }
  }
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
  ///   `local-changed`, cloud only `cloud-changed`, both `conflict`). A rollback counts as a
  ///   local change. Both changed into the same content, the cloud by that one archive alone
  ///   (this device's upload whose agreement a kill cut short, or another device that made the
  ///   same change), is `in-sync`; two new archives are asked about, whatever their content.
  ///   A cloud change by an archive that does not descend from the agreed one (made apart from
  ///   this device's save, at the same moment as it) is a `conflict`: both changed since they
  ///   agreed.
  ///   With no agreement, identical content is `in-sync` and anything else a `conflict`: never a
  ///   guess. A save in a folder made anew since the agreement (a game installed again) is no
  ///   change of the agreed save: identical content is `in-sync`, anything else a `conflict`
  ///   (and with nothing there, the rest as agreed, nothing agreed explains it:
  ///   `local-missing`, restore). A location gained since the agreement (one the agreed
  ///   archive held that this device had no place for) is compared by content as with no
  ///   agreement, never uploaded as the agreed save changed (which would drop what the archive
  ///   held there). A conflict or deletion left unanswered stays a `conflict` until the content
  ///   is identical to the cloud's.
  /// - After a game, a restore waits for the next launch.
  /// - A backup never restores: where a sync would, it has nothing to upload, unless the archive
  ///   agreed on is gone from the container; without a local save there is nothing to upload.
  public static func plan(_ facts: SyncFacts, phase: SyncPhase) -> SyncPlan {
    let full = fullPlan(facts, phase: phase)
    guard phase == .backup else { return full }
    switch (facts, full.step) {
    case (.noLocalSave, _), (.cloudEmpty(hasSave: false), _),
      (.bothHaveSaves(.remade(_, onlyRemadeEmpty: true)), _):
      return SyncPlan(
        state: full.state, step: .nothing, reason: "there is no local save; nothing to back up")
    case (.bothHaveSaves(.recorded(let since)), .restore):
      return since.agreedArchiveIsListed
        ? SyncPlan(
          state: full.state, step: .nothing,
          reason: "only the cloud changed since the agreement; nothing to upload")
        : SyncPlan(
          state: full.state, step: .upload,
          reason:
            "only the cloud changed since the agreement, and the archive agreed on is no longer in the container; uploading the save"
        )
    default:
      return full
    }
  }

  /// The fact of `since` that can still change the plan in some phase and is not gathered yet
  /// (nil: the plan is decided). Asked again after each fact is gathered, so that nothing is
  /// downloaded that cannot change the outcome.
  public static func factNeeded(_ since: SinceAgreement.Recorded) -> SinceAgreement.Recorded.Fact? {
    SinceAgreement.Recorded.Fact.allCases.first { fact in
      guard since[fact] == nil else { return false }
      var yes = since
      var no = since
      yes[fact] = true
      no[fact] = false
      return SyncPhase.allCases.contains { phase in
        let (ifYes, ifNo) = (
          plan(.bothHaveSaves(.recorded(yes)), phase: phase),
          plan(.bothHaveSaves(.recorded(no)), phase: phase)
        )
        return ifYes.state != ifNo.state || ifYes.step != ifNo.step
      }
    }
  }

  /// The plan of a sync in `phase` (`full` or `afterGame`; `backup` is `full` here).
  private static func fullPlan(_ facts: SyncFacts, phase: SyncPhase) -> SyncPlan {
    let restore: SyncStep = phase == .afterGame ? .restoreAtNextLaunch : .restore
    let restoring =
      phase == .afterGame
      ? "it is restored before the next game, not over the session just played"
      : "restoring the cloud's latest, keeping the local save"
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
    case .bothHaveSaves(.recorded(let since)):
      let bothChanged = SyncPlan(
        state: .conflict, step: .ask(.bothChanged),
        reason: "both changed since the agreement; asking, or applying the conflict policy")
      switch (since.localChanged || since.isRollback, since.cloudLatestIsAgreed) {
      case (false, true):
        return SyncPlan(state: .inSync, step: .nothing, reason: "local and cloud agree; nothing to do")
      case (true, true):
        return SyncPlan(
          state: .localChanged, step: .upload,
          reason: since.localChanged
            ? "only the local save changed since the agreement; uploading it"
            : "the player restored an older archive over the cloud's latest; uploading it as the latest")
      case (false, false):
        guard since.latestDescendsFromAgreed != false else {
          return SyncPlan(
            state: .conflict, step: .ask(.bothChanged),
            reason:
              "the cloud's latest does not descend from the agreed archive (it was made apart from this device's save, at the same moment as it): both changed since the agreement; asking, or applying the conflict policy"
          )
        }
        return SyncPlan(
          state: .cloudChanged, step: restore,
          reason: "only the cloud changed since the agreement; \(restoring)")
      case (true, false):
        guard since.newArchivesSinceAgreement == 1, since.latestIdenticalToLocal == true else {
          return bothChanged
        }
        return SyncPlan(
          state: .inSync, step: .nothing,
          reason:
            "both changed since the agreement, into the same content, the cloud by one archive; nothing to do"
        )
      }
    case .bothHaveSaves(.remade(_, onlyRemadeEmpty: true)):
      return SyncPlan(
        state: .localMissing, step: restore,
        reason:
          "the save went with the folders made anew since the agreement; the rest of it is as agreed; \(restoring)"
      )
    case .bothHaveSaves(.none(true, _)), .bothHaveSaves(.unanswered(true, _)),
      .bothHaveSaves(.remade(true, _)),
      .bothHaveSaves(.gained(true)):
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
    case .bothHaveSaves(.gained(false)):
      return SyncPlan(
        state: .conflict, step: .ask(.noAgreement),
        reason:
          "a location this device had no place for when it agreed is one of the game's now, so the agreement does not vouch for it, and the save differs from the cloud's latest; asking, or applying the conflict policy"
      )
    case .bothHaveSaves(.remade(false, _)):
      return SyncPlan(
        state: .conflict, step: .ask(.reappeared),
        reason:
          "a folder that held the save was made anew since the agreement (the game installed again, or its prefix deleted), and the save there differs from the cloud's latest: it is asked about, never uploaded as a change; asking, or applying the conflict policy"
      )
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
