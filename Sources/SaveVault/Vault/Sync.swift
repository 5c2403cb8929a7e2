/// When a sync runs.
public enum SyncPhase: String, Sendable {
  /// Any direction: upload, restore, or ask (`sync`, and `wrap` before the game).
  case full
  /// After the game (`wrap`): upload what the session changed, or ask on a conflict; never
  /// restore unasked (a cloud that changed meanwhile is restored before the next launch).
  case afterGame
}

/// What a sync did.
public enum SyncAction: String, Sendable, Codable {
  case none, uploaded, restored, skipped
  /// A conflict nobody resolved (exit 3). Nothing was changed.
  case unresolved
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
}

extension Vault {
  /// Brings the save directory and the container into agreement, following DESIGN.md's table:
  /// `in-sync` does nothing, `local-changed` and `cloud-empty` upload, `cloud-changed` and
  /// `local-missing` restore (keeping the local save), and a `conflict` is settled by `policy`
  /// (asking `resolver` for `prompt`). Nothing is ever lost: an upload only adds an archive,
  /// a restore keeps a pre-restore copy. An unresolved conflict changes nothing and reports
  /// `.unresolved`.
  public func sync(
    _ target: Target, policy: ConflictPolicy, resolver: any ConflictResolver, phase: SyncPhase = .full
  ) throws -> SyncReport {
    let container = try makeContainer(target, paths)
    let held = try lock(target, purpose: phase == .full ? "sync" : "wrap")
    defer { withExtendedLifetime(held) {} }
    recoverInterruptedRestore(target)  // local only: before anything can fail on the network
    try container.probe()
    let sentPending = try uploadPending(target, to: container)
    let found = try assess(target, container: container)
    var report = SyncReport(game: target.game, state: found.state, action: .none)

    func upload() throws {
      let backup = try performBackup(target, container: container, force: true, known: found)
      report.action = .uploaded
      report.archive = backup.archive
    }
    func restore() throws {
      let restored = try performRestore(target, container: container, selection: .latest, known: found)
      report.action = .restored
      report.archive = restored.archive
      report.preRestoreCopy = restored.preRestoreCopy
    }

    // A save that vanished while the cloud kept the agreed archive was deleted here (or its
    // drive is not mounted): restoring it unasked would undo the player's own change.
    let isLocalDeletion =
      found.state == .localMissing && found.record != nil && found.latest?.name == found.record?.archive

    func restoreBeforeTheGame() throws {
      if phase == .full {
        try restore()
      } else {
        report.note = "the cloud has a newer save than this device; it is restored at the next sync"
      }
    }

    verbose(
      "\(found.state.rawValue): \(Self.plan(found.state, phase: phase, isLocalDeletion: isLocalDeletion))")
    switch found.state {
    case .inSync:
      if found.record == nil, let latest = found.latest, let snapshot = found.snapshot {
        // A new device whose save is the cloud's: remember the agreement, so that its next
        // change is an upload, not a conflict.
        try recordAgreement(
          target: target, archive: latest.name, snapshot: snapshot,
          content: try Fingerprint(snapshot: snapshot).contentEntries())
      }
    case .localChanged:
      try upload()
    case .cloudEmpty:
      if found.snapshot.map({ !$0.isEmpty }) == true { try upload() }
    case .cloudChanged:
      try restoreBeforeTheGame()
    case .localMissing where !isLocalDeletion:
      try restoreBeforeTheGame()
    case .conflict, .localMissing:
      guard let latest = found.latest else { break }
      if isLocalDeletion {
        report.note = "the local save was deleted (or its drive is not mounted) since the last agreement"
      }
      let conflict = Conflict(
        game: target.game, saveDir: target.saveDirectory, localModifiedMs: found.snapshot?.newestModifiedMs,
        localFiles: found.snapshot?.fileCount ?? 0, localBytes: found.snapshot?.byteCount ?? 0,
        cloudArchive: latest.name, cloudModifiedMs: latest.modifiedMs, cloudDevice: latest.device,
        cloudBytes: latest.size, container: target.containerURL)
      report.conflict = conflict
      switch policy.resolve(conflict, resolver: resolver) {
      case .chosen(let choice, let by):
        report.decidedBy = by
        verbose("conflict settled by \(by): \(choice.rawValue)")
        switch choice {
        case .upload: try upload()
        case .restore: try restore()
        case .skip: report.action = .skipped
        }
      case .unresolved(let reason):
        report.action = .unresolved
        report.note =
          (isLocalDeletion
          ? VaultError.deletionUnresolved(game: target.game, reason: reason)
          : VaultError.conflictUnresolved(game: target.game, reason: reason)).description
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
  /// What sync does in `state`, for `--verbose`.
  static func plan(_ state: SyncState, phase: SyncPhase, isLocalDeletion: Bool) -> String {
    switch state {
    case .inSync: "local and cloud agree; nothing to do"
    case .localChanged: "only the local save changed since the agreement; uploading it"
    case .cloudEmpty: "the container has no archive of this game; uploading the local save, if any"
    case .cloudChanged,
      .localMissing where !isLocalDeletion:
      phase == .full
        ? "only the cloud changed (or there is no local save); restoring its latest, keeping the local save"
        : "the cloud changed; restoring waits for the next sync before the game"
    case .conflict: "both changed since the agreement; asking, or applying --on-conflict"
    case .localMissing: "the local save was deleted since the agreement; asking, or applying --on-conflict"
    }
  }
}
