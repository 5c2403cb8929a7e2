/// What a sync did.
public enum SyncAction: String, Sendable, Codable {
  case none, uploaded, restored, skipped
  /// A conflict nobody answered (exit 3). Nothing was changed. Spelt `unresolved` in JSON.
  case unanswered = "unresolved"
}

/// `sync`'s answer: the state found and the action taken.
public struct SyncReport: Encodable, Sendable, Equatable {
  public var game: String
  public var state: SyncState
  public var action: SyncAction
  /// The archive uploaded or restored.
  public var archive: String?
  /// Who settled a conflict: "player", or the policy.
  public var decidedBy: String?
  /// Where the replaced local save was kept, after a restore.
  public var preRestoreCopy: String?
  /// Both sides, when there was a conflict.
  public var conflict: Conflict?
  /// Why nothing was done, when that needs saying.
  public var note: String?
  /// The question nobody answered, when the action is `unresolved`.
  public var unanswered: UnansweredQuestion?

  enum CodingKeys: String, CodingKey {
    case game, state, action, archive, decidedBy, preRestoreCopy, conflict, note
  }
}

extension Vault {
  /// Brings the save directory and the container into agreement, as `Decision.plan` says:
  /// `in-sync` does nothing, `local-changed` and `cloud-empty` upload, `cloud-changed` and
  /// `local-missing` restore (keeping the local save), and a `conflict` is settled by `policy`
  /// (asking `resolver` for `prompt`). Nothing is ever lost: an upload only adds an archive,
  /// a restore keeps a pre-restore copy. An unresolved conflict changes nothing and reports
  /// `.unanswered`; a conflict or deletion left unanswered (or skipped) is noted in the agreement
  /// and stays a conflict, whatever the local save does meanwhile, until it is settled.
  public func sync(
    _ requested: Target, policy: ConflictPolicy, resolver: any ConflictResolver, phase: SyncPhase = .full
  ) throws -> SyncReport {
    let container = try makeContainer(requested, paths)
    let held = try lock(requested, purpose: phase == .full ? "sync" : "wrap")
    defer { withExtendedLifetime(held) {} }
    let target = try recovered(requested)  // local only: before anything can fail on the network
    // No separate probe of the container: its listing of the game (in `assess`) is the first
    // request, and an unreachable container fails it rather than listing nothing.
    let sentPending = try uploadPending(target, to: container)
    let found = try assess(target, container: container)
    var report = SyncReport(game: target.game, state: found.state, action: .none)

    /// `chosen`: the cloud's latest, when the player chose to upload over it.
    func upload(over chosen: StoredArchive? = nil) throws {
      let backup = try performBackup(
        target, container: container, seen: found.seen, force: true, over: chosen)
      report.action = .uploaded
      report.archive = backup.archive
    }
    func restore() throws {
      let restored = try performRestore(target, container: container, selection: .latest, seen: found.seen)
      report.action = .restored
      report.archive = restored.archive
      report.preRestoreCopy = restored.preRestoreCopy
    }

    let plan = found.plan(phase)
    verbose("\(plan.state.rawValue): \(plan.reason)")
    if let movedFrom = found.movedFrom {
      report.note =
        "this device's last agreement was about the save folder '\(movedFrom)'; this folder was compared by content"
    }
    switch plan.step {
    case .nothing:
      try agreeOnIdentical(found, target: target, container: container)
      // Nothing to upload, but what the game's locations leave out is not kept either.
      for location in leftOutLocations(target) {
        context.log.warning(
          "left out '\(location.portable.template)' (at '\(location.path)'): scanning finds a save there that the game's locations do not take, so its next backup is refused until they do or its \"exclude\" names it"
        )
      }
    case .upload:
      try upload()
    case .restore:
      try restore()
    case .restoreAtNextLaunch:
      report.note = "the cloud has a newer save than this device; it is restored at the next sync"
    case .ask:
      guard let conflict = conflict(found, target: target) else { break }
      report.conflict = conflict
      switch policy.resolve(conflict, resolver: resolver) {
      case .chosen(let choice, let by):
        report.decidedBy = by
        verbose("conflict settled by \(by): \(choice.rawValue)")
        switch choice {
        case .upload: try upload(over: found.latest)
        case .restore: try restore()
        case .skip:
          report.action = .skipped
          noteUnanswered(found, target: target)
        }
      case .unanswered(let reason):
        let question = UnansweredQuestion(game: target.game, reason: reason, kind: conflict.kind)
        report.action = .unanswered
        report.unanswered = question
        report.note = question.description
        noteUnanswered(found, target: target)
      }
    }
    // Archives kept while the container was unreachable went up first: that is an upload too,
    // whatever the state found after it (scripts, and `wrap`'s callers, see that it happened).
    if let sentPending, report.action == .none {
      report.action = .uploaded
      report.archive = sentPending
      report.note = report.note ?? "uploaded the save kept while the container was unreachable"
    }
    return report
  }
}

extension Vault {
  /// Both sides of the conflict `found` is in, as the player is asked about them (nil when the
  /// cloud has no archive).
  func conflict(_ found: Assessment, target: Target, choices: [ConflictChoice] = ConflictChoice.allCases)
    -> Conflict?
  {
    guard let latest = found.latest else { return nil }
    return Conflict(
      game: target.game, kind: found.conflictKind ?? .bothChanged, saveDir: target.saveDirectory,
      localModifiedMs: found.scan?.newestModifiedMs, localFiles: found.scan?.fileCount ?? 0,
      localBytes: found.scan?.byteCount ?? 0, cloudArchive: latest.name,
      cloudModifiedMs: latest.modifiedMs,
      cloudDevice: latest.device, cloudBytes: latest.size, container: target.containerURL,
      choices: found.hasSave ? choices : choices.filter { $0 != .upload })
  }

  /// Records the agreement an in-sync `found` stands for when the agreement does not say it yet: a
  /// new device (or folder) whose save is the cloud's, or both sides changed into the same
  /// content (a conflict that ended in identical saves), so that the next change is an upload.
  /// Returns the archive agreed on, nil when nothing needed recording.
  /// An agreement on the same archive is written anew when its fast path no longer matches (a
  /// save rewritten with the same bytes, an agreement from a version that kept less, files too
  /// recent for its index to vouch for), so that the next look needs no hashing; that returns
  /// nil too.
  @discardableResult
  func agreeOnIdentical(_ found: Assessment, target: Target, container: any Container) throws -> String? {
    guard found.state == .inSync, let latest = found.latest, let scan = found.scan else { return nil }
    let record = found.agreement
    if let record, record.archive == latest.name, record.unanswered == nil {
      // Those it had no place for and has now (the list gained them) are its own from now on.
      let unplaced = target.stillUnplaced(record)
      // Files too recent for the index to vouch for are hashed at every look until it is
      // recorded anew, from this later scan.
      let untrusted = Fingerprint(scan: scan).untrustedFiles(since: record)
      if record.metadataDigest != scan.metadataDigest || record.saveMount == nil || found.remadeFolder != nil
        || unplaced.count != record.unplacedLocations.count || !untrusted.isEmpty
      {
        try recordAgreement(
          target: target, archive: record.archive, scan: scan,
          content: try Fingerprint(scan: scan).contentEntries(
            known: agreements.loadIndex(target) ?? [:], untrusted: untrusted),
          rolledBackFrom: record.rolledBackFrom, ancestry: record.ancestry, unplaced: unplaced)
      }
      return nil
    }
    try recordAgreement(
      target: target, archive: latest.name, scan: scan,
      content: try Fingerprint(scan: scan).contentEntries(),
      ancestry: archiveLineage(latest.name, game: target.game, in: container))
    return latest.name
  }

  /// Remembers that the conflict (or deletion) `found` is in was left unanswered, so that it
  /// stays one whatever happens to the local save meanwhile (a save that reappears after an
  /// unmounted drive, a game that writes a new save): only the player settles it. Needs an
  /// agreement to attach to; a first mark is kept as it was.
  func noteUnanswered(_ found: Assessment, target: Target) {
    guard var record = found.agreement, record.unanswered == nil, let latest = found.latest else { return }
    record.unanswered = UnansweredConflict(
      kind: found.isLocalDeletion ? .deletion : .conflict, cloudLatest: latest.name, seenAtMs: context.clock()
    )
    do {
      try agreements.saveRecord(record)
    } catch {
      context.log.warning("could not note that the conflict of '\(target.game)' is unanswered: \(error)")
    }
  }
}
