/// Where one game stands: `status`'s answer. Its JSON has the contract's fields
/// (`game`, `state`, `local.modifiedMs`, `local.files`, `local.bytes`, `cloud.latest`,
/// `cloud.modifiedMs`, `cloud.count`), with `null` for what does not exist, and more
/// (`cloud.localOnly`: the container is the embedded default).
public struct StatusReport: Encodable, Sendable, Equatable {
  public struct Local: Encodable, Sendable, Equatable {
    public var saveDir: String
    public var exists: Bool
    public var modifiedMs: Int64?
    public var files: Int
    public var bytes: Int64
    public var skipped: Int

    public func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: Key.self)
      try c.encode(saveDir, forKey: .saveDir)
      try c.encode(exists, forKey: .exists)
      try c.encode(modifiedMs, forKey: .modifiedMs)
      try c.encode(files, forKey: .files)
      try c.encode(bytes, forKey: .bytes)
      try c.encode(skipped, forKey: .skipped)
    }
    enum Key: String, CodingKey { case saveDir, exists, modifiedMs, files, bytes, skipped }
  }

  public struct Cloud: Encodable, Sendable, Equatable {
    public var container: String
    public var latest: String?
    public var modifiedMs: Int64?
    public var device: String?
    public var bytes: Int64?
    public var count: Int
    /// Whether the container is the embedded default: the backups are on this device only.
    public var isLocalOnly: Bool

    public func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: Key.self)
      try c.encode(container, forKey: .container)
      try c.encode(latest, forKey: .latest)
      try c.encode(modifiedMs, forKey: .modifiedMs)
      try c.encode(device, forKey: .device)
      try c.encode(bytes, forKey: .bytes)
      try c.encode(count, forKey: .count)
      try c.encode(isLocalOnly, forKey: .localOnly)
    }
    enum Key: String, CodingKey { case container, latest, modifiedMs, device, bytes, count, localOnly }
  }

  public struct Agreed: Encodable, Sendable, Equatable {
    public var archive: String
    public var agreedAtMs: Int64
    /// The save directory it was about (absent in agreements older than this field).
    public var saveDir: String?
    /// The newer archive that `archive` was restored over on purpose (a rollback): the next
    /// sync uploads the save.
    public var rolledBackFrom: String?
    /// A conflict or deletion a sync saw and nobody answered: it stays one until settled.
    public var unanswered: UnansweredConflict?
  }

  public struct Pending: Encodable, Sendable, Equatable {
    /// The folder that holds this game's archives waiting for the container.
    public var directory: String
    public var count: Int
    /// Oldest first.
    public var archives: [String]
  }

  public struct PreRestore: Encodable, Sendable, Equatable {
    /// The folder that holds this game's pre-restore copies.
    public var directory: String
    public var count: Int
    public var latest: String?
  }

  /// One of the game's save locations.
  public struct Location: Encodable, Sendable, Equatable {
    /// Where it is here (a folder, or a folder and the pattern of its files).
    public var path: String
    /// Its form with placeholders, the same on any machine.
    public var portable: String
    /// Whether anything of it is here (a location not made yet is not an error: it is absent).
    public var exists: Bool
  }

  /// A location discovery finds for the game whose files the game's locations leave out.
  public struct LeftOut: Encodable, Sendable, Equatable {
    public var path: String
    public var portable: String
  }

  public var game: String
  public var state: SyncState
  public var device: String
  public var local: Local
  /// The game's save locations (one for a game named by its save directory).
  public var locations: [Location] = []
  /// Locations discovery finds here that the game's locations leave out: a backup refuses
  /// them until the game is added again or they are excluded.
  public var leftOut: [LeftOut] = []
  public var cloud: Cloud
  /// The last agreement this device recorded, if any (`ledger` in JSON).
  public var agreement: Agreed?
  public var preRestore: PreRestore
  /// Archives made while the container was unavailable, to be uploaded at the next run.
  public var pending: Pending
  /// What this run finished or undid of a killed command's work, one sentence each.
  public var repaired: [String] = []
  /// Whether another savevault was working on this game (then nothing was repaired).
  public var isBusy = false
  /// Why the state is a question for the player (a conflict, or a deletion), nil otherwise.
  public var conflictKind: ConflictKind?
  /// The save folder this device's last agreement was about, when the game names another one
  /// now (the two are compared by content).
  public var movedFrom: String?

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: Key.self)
    try c.encode(game, forKey: .game)
    try c.encode(state, forKey: .state)
    try c.encode(device, forKey: .device)
    try c.encode(local, forKey: .local)
    try c.encode(locations, forKey: .locations)
    try c.encode(leftOut, forKey: .leftOut)
    try c.encode(cloud, forKey: .cloud)
    try c.encode(agreement, forKey: .agreement)
    try c.encode(preRestore, forKey: .preRestore)
    try c.encode(pending, forKey: .pending)
    try c.encode(repaired, forKey: .repaired)
    try c.encode(isBusy, forKey: .busy)
    try c.encode(conflictKind, forKey: .conflictKind)
    try c.encode(movedFrom, forKey: .movedFrom)
  }
  enum Key: String, CodingKey {
    case game, state, device, local, locations, leftOut, cloud, preRestore, pending, repaired, busy
    case conflictKind, movedFrom
    case agreement = "ledger"
  }
}

/// What one look at the save folder, this device's agreement and the container saw: what a
/// backup or a restore works from.
struct Seen {
  var scan: SaveScan?
  var agreement: Agreement?
  /// The container's archives, newest first.
  var archives: [StoredArchive]
}

extension Vault {
  /// Looks at the save folder, this device's agreement and the container's archives.
  /// `checkingListing`: whether a listing that lacks the agreed archive is refused (as
  /// incomplete) rather than believed.
  func look(_ target: Target, container: any Container, checkingListing: Bool) throws -> Seen {
    let record = agreements.load(target)
    let (scan, archives) = try scanAndList(
      target, container: container, record: checkingListing ? record : nil)
    return Seen(scan: scan, agreement: record, archives: archives)
  }

  /// Scans the save folder while the container lists the game's archives (`listArchives`
  /// with `record`), on another thread: on a remote container the listing is a round trip
  /// that the scan need not wait for. The scan's error is thrown first.
  func scanAndList(_ target: Target, container: any Container, record: Agreement?) throws
    -> (SaveScan?, [StoredArchive])
  {
    let listing = Background { [self] in try listArchives(target, container: container, record: record) }
    let scanned = Result { try scanSave(target) }
    let archives = Result { try listing.get() }
    return (try scanned.get(), try archives.get())
  }
}

/// Everything the decision looked at, and what it decided.
struct Assessment {
  var scan: SaveScan?
  /// The container's archives, newest first.
  var archives: [StoredArchive]
  /// This device's agreement about this save folder (nil when there is none, or when the one
  /// kept is about another folder: see `movedFrom`).
  var agreement: Agreement?
  /// What the decision looked at.
  var facts: SyncFacts
  /// The save folder the kept agreement was about, when the game now names another one.
  var movedFrom: String?
  /// A folder that held the save at the agreement and was made anew since (nil: none).
  var remadeFolder: String?

  var latest: StoredArchive? { archives.first }

  /// What a backup or restore that follows the decision works from.
  var seen: Seen { Seen(scan: scan, agreement: agreement, archives: archives) }

  /// The decision for a sync in `phase`.
  func plan(_ phase: SyncPhase) -> SyncPlan { Decision.plan(facts, phase: phase) }

  var state: SyncState { plan(.full).state }

  /// Whether there is a save to back up: the folder exists and holds a file or symlink.
  var hasSave: Bool { scan.map { !$0.isEmpty } ?? false }

  /// A save missing (or empty) while the cloud still holds what was last agreed: deleted here,
  /// or its drive not mounted. Restoring it unasked would undo the player's own change.
  var isLocalDeletion: Bool { facts == .noLocalSave(.deletedSinceAgreement) }

  /// What the player is asked about (nil when the decision asks nothing).
  var conflictKind: ConflictKind? {
    if case .ask(let kind) = plan(.full).step { return kind }
    return nil
  }
}

extension Vault {
  /// Compares the save directory, the container and the agreement, and says where the game
  /// stands (the decision table of docs/architecture.md). Changes nothing but to finish or undo what a killed command
  /// left on this device (`repaired`), and that only when it gets the game's lock at once;
  /// when another savevault holds it, reports `isBusy` and repairs nothing.
  public func status(_ requested: Target) throws -> StatusReport {
    let container = try makeContainer(requested, paths)
    var repaired: [String] = []
    var isBusy = false
    do {
      let held = try lock(requested, purpose: "status", waitSeconds: 0)
      repaired = try withExtendedLifetime(held) { try recoverInterruptedRestore(requested) }
    } catch VaultError.busy {
      isBusy = true
    } catch let error as VaultError where error.isRestoreUnfinished {
      throw error
    } catch {
      verbose("could not take the lock to repair anything: \(error)")
    }
    // A restore finished here may have placed a location: part of the save from then on.
    let target = resolvedLocations(requested)
    let found = try assess(target, container: container)
    let scan = found.scan
    let latest = found.latest
    let copies = preRestoreCopies(of: target)
    let pending = (try? pendingStore().archivesNewestFirst(game: target.game)) ?? []
    var report = StatusReport(
      game: target.game, state: found.state, device: target.device,
      local: .init(
        saveDir: target.saveDirectory, exists: scan != nil, modifiedMs: scan?.newestModifiedMs,
        files: scan?.fileCount ?? 0, bytes: scan?.byteCount ?? 0,
        skipped: scan?.skipped.count ?? 0),
      cloud: .init(
        container: target.containerURL, latest: latest?.name, modifiedMs: latest?.modifiedMs,
        device: latest?.device, bytes: latest?.size, count: found.archives.count,
        isLocalOnly: paths.isDefaultContainer(target.container)),
      agreement: found.agreement.map {
        .init(
          archive: $0.archive, agreedAtMs: $0.agreedAtMs, saveDir: $0.saveDir,
          rolledBackFrom: $0.rolledBackFrom,
          unanswered: $0.unanswered)
      },
      preRestore: .init(
        directory: preRestoreStore().root + "/" + target.game, count: copies.count,
        latest: copies.first?.name),
      pending: .init(
        directory: pendingStore().root + "/" + target.game, count: pending.count,
        archives: pending.map(\.name).reversed()), repaired: repaired, isBusy: isBusy,
      conflictKind: found.conflictKind, movedFrom: found.movedFrom)
    report.locations = target.locations.map { location in
      StatusReport.Location(
        // Registry keys: the prefix's file that holds them, not SaveVault's export of them.
        path: location.registrySource?.file ?? location.shown, portable: location.portable.template,
        exists: location.isAtTop
          ? scan != nil : scan?.entries.contains { $0.path.hasPrefix(location.name + "/") } == true)
    }
    report.leftOut = leftOutLocations(target).map {
      StatusReport.LeftOut(path: $0.path, portable: $0.portable.template)
    }
    return report
  }

  /// Reads the save directory, the container and the agreement, and decides the state.
  func assess(_ target: Target, container: any Container) throws -> Assessment {
    let kept = agreements.load(target)
    let (scan, archives) = try scanAndList(target, container: container, record: kept)
    let latest = archives.first
    verbose(
      "local: '\(target.saveDirectory)' \(scan.map { $0.isEmpty ? "is empty" : "holds \($0.fileCount) file(s)" } ?? "does not exist"); cloud: \(archives.count) archive(s) in '\(target.containerURL)'"
    )
    // An agreement about another folder (the game was pointed at a new one) says nothing about
    // this folder's content: compare it with the cloud as a new device would.
    let realSaveDir = scan?.root ?? Platform.realPath(target.saveDirectory)
    let isAbout = kept?.isAbout(saveDir: target.saveDirectory, realSaveDir: realSaveDir) == true
    let isOnOtherDrive =
      isAbout && scan != nil
      && kept?.isOnOtherDrive(mount: scan.flatMap { Platform.mountPoint(of: $0.root) }) == true
    let record = isAbout && !isOnOtherDrive ? kept : nil
    let movedFrom = record == nil && !isOnOtherDrive ? kept?.saveDir : nil
    if let movedFrom { verbose("the last agreement was about '\(movedFrom)', not this folder") }
    if isOnOtherDrive {
      verbose(
        "the save folder is on another filesystem than at the last agreement: its drive is not mounted?")
    }
    // A folder that held the save, made anew since the agreement: the save there (if any) is a
    // new one, never the agreed save changed.
    let remade = record?.enclosingFolders.flatMap(FolderIdentity.firstReplaced)?.path
    if let remade {
      verbose(
        "'\(remade)' was made anew since the last agreement (the game installed again, or its prefix deleted?)"
      )
    }
    /// Whether the latest archive descends from `agreed` (`ArchiveHeader.descent`): the fact
    /// `latestDescendsFromAgreed`, which false only ever turns a cloud change into a question
    /// (`Decision.plan`). It catches two uploads made apart at the same moment (or by two
    /// devices of one name), whatever either device listed, on the device whose archive is not
    /// the latest. Reads the latest archive's start; where its ancestry is full and names only
    /// later archives, the start of the oldest of them, and so on (at most 16 in all; beyond,
    /// or with one gone from the container, it cannot be told: false, and the player is asked).
    /// True for archives whose start cannot be read as an archive. One whose header names
    /// another game is refused (`ArchiveError.refused`): the plan would restore or ask about it.
    func latestDescends(from agreed: String) throws -> Bool {
      guard var name = latest?.name else { return true }
      for _ in 0..<16 {
        let current = name
        let header = try container.readStart(
          game: target.game, name: current, count: ArchiveContents.headerBytes
        ) { fd in ArchiveContents.header(fd: fd, archiveName: current) }
        guard let header else { return current == latest?.name }
        // Read anyway: an archive of another game is never restored as this one's.
        if let reason = header.refusal(asSaveOf: target.game) {
          throw ArchiveError.refused(archive: current, reason: reason)
        }
        switch header.descent(from: agreed) {
        case .descends: return true
        case .apart: return false
        case .beyond(let oldest):
          guard archives.contains(where: { $0.name == oldest }) else { return false }
          name = oldest
        }
      }
      return false
    }
    /// `byContent`: compared with the archive's content even when it is the one agreed on.
    func isIdentical(to latest: StoredArchive, scan: SaveScan, byContent: Bool = false) throws -> Bool {
      if !byContent, let record, latest.name == record.archive {
        return try !Fingerprint(scan: scan).hasChanged(
          since: record, index: { agreements.loadIndex(target) })
      }
      let local = try Fingerprint(scan: scan).contentDigest()
      do {
        let cloud = try container.read(game: target.game, name: latest.name) { fd in
          try contentDigest(fd: fd, archiveName: latest.name, game: target.game, limits: target.limits)
        }
        return local == cloud
      } catch let refused as ArchiveError {
        // A damaged latest archive is no reason to stop: it is not this save, so the two differ.
        context.log.warning(
          "could not compare the save with '\(latest.name)' (\(refused)); taken as different")
        return false
      }
    }
    /// Whether `scan` is the agreed save but for the locations whose folders were made anew
    /// since, which hold no file: a game of several locations whose prefix went, say, with its
    /// Steam Cloud folder as agreed.
    func isAgreedButForEmptyRemade(_ scan: SaveScan, record: Agreement) throws -> Bool {
      guard !target.isOneFolder, let recorded = record.enclosingFolders,
        let index = agreements.loadIndex(target)
      else { return false }
      let remadeNames = target.locations.filter { location in
        let above = FolderIdentity.nearestAbove(location.path) ?? location.path
        return FolderIdentity.firstReplaced(
          recorded.filter { above == $0.path || above.hasPrefix($0.path + "/") })
          != nil
      }.map(\.name)
      guard !remadeNames.isEmpty else { return false }
      func isRemade(_ path: String) -> Bool {
        remadeNames.contains { path == $0 || path.hasPrefix($0 + "/") }
      }
      guard !scan.entries.contains(where: { isRemade($0.path) && $0.kind != .directory }) else {
        return false
      }
      let agreed = index.values.filter { !isRemade($0.path) }
        .map { file in
          switch file.kind {
          case .directory: ManifestEntry(path: file.path, kind: .directory)
          case .symlink: ManifestEntry(path: file.path, kind: .symlink, target: file.detail)
          case .file: ManifestEntry(path: file.path, kind: .file, size: file.size, sha256: file.detail)
          }
        }
      let fingerprint = Fingerprint(scan: scan)
      let now = try fingerprint.contentEntries(
        known: index, untrusted: fingerprint.untrustedFiles(since: record)
      )
      .filter { !isRemade($0.path) }
      return ContentDigest.of(agreed) == ContentDigest.of(now)
    }
    let facts = try gatherFacts()
    func gatherFacts() throws -> SyncFacts {
      guard let latest else { return .cloudEmpty(hasSave: scan.map { !$0.isEmpty } ?? false) }
      guard let scan, !scan.isEmpty else {
        // Gone with a folder that held it (a game uninstalled): no deletion of the player's.
        guard let record, remade == nil else { return .noLocalSave(.unexplained) }
        // A missing or empty save agreed on as such with the cloud's latest (a deletion that
        // was uploaded, or an empty backup that was restored): nothing to restore or ask.
        if record.archive == latest.name, record.rolledBackFrom == nil,
          try !Fingerprint(
            scan: scan ?? SaveScan(root: target.saveDirectory, entries: [], skipped: [])
          )
          .hasChanged(since: record, index: { agreements.loadIndex(target) })
        {
          return .noLocalSave(.agreedEmpty)
        }
        return .noLocalSave(
          latest.name == record.cloudLatestWhenAgreed ? .deletedSinceAgreement : .unexplained)
      }
      guard let record else {
        verbose(
          "no agreement about this folder on this device: comparing the save's content with '\(latest.name)'")
        return .bothHaveSaves(
          .none(
            identicalContent: try isIdentical(to: latest, scan: scan), isOnOtherDrive: isOnOtherDrive)
        )
      }
      // Before a question left unanswered: a save in folders made anew is only ever the
      // player's to upload, never a policy's. Nothing there, and the rest of the save as
      // agreed: it went with its folders, and the cloud's is restored.
      if remade != nil {
        // (Nothing in the folders made anew and the rest as agreed: the content is no matter,
        // and nothing is downloaded to compare it.)
        let onlyRemadeEmpty = try isAgreedButForEmptyRemade(scan, record: record)
        let identical = onlyRemadeEmpty ? false : try isIdentical(to: latest, scan: scan)
        return .bothHaveSaves(.remade(identicalContent: identical, onlyRemadeEmpty: onlyRemadeEmpty))
      }
      // A location of the agreed archive that this device had no place for, and that the
      // game's list here has now (added since).
      let gained = target.stillUnplaced(record).count < record.unplacedLocations.count
      if let unanswered = record.unanswered {
        verbose("a \(unanswered.kind.rawValue) seen at \(unanswered.seenAtMs) ms is still unanswered")
        return .bothHaveSaves(
          .unanswered(
            identicalContent: try isIdentical(to: latest, scan: scan, byContent: gained),
            wasDeletion: unanswered.kind == .deletion))
      }
      if gained {
        return .bothHaveSaves(
          .gained(identicalContent: try isIdentical(to: latest, scan: scan, byContent: true)))
      }
      let changed = try Fingerprint(scan: scan).hasChanged(
        since: record, index: { agreements.loadIndex(target) })
      verbose(
        "agreement: on '\(record.archive)'; the local save \(changed ? "changed" : "is unchanged") since")
      if let newer = record.rolledBackFrom {
        verbose(
          "a rollback: the player restored '\(record.archive)' over the newer '\(newer)'"
        )
      }
      let isAgreed = latest.name == record.cloudLatestWhenAgreed
      verbose("cloud: latest is '\(latest.name)'\(isAgreed ? ", as agreed" : ", not the agreed one")")
      let agreedMs = ArchiveName(parsing: record.cloudLatestWhenAgreed)?.createdMs ?? Int64.max
      var since = SinceAgreement.Recorded(
        localChanged: changed, isRollback: record.rolledBackFrom != nil, cloudLatestIsAgreed: isAgreed,
        newArchivesSinceAgreement: archives.lazy.filter({ $0.modifiedMs > agreedMs }).count,
        agreedArchiveIsListed: archives.contains { $0.name == record.archive })
      // The facts that cost a download, only those the plan still needs.
      while let fact = Decision.factNeeded(since) {
        switch fact {
        case .latestIdenticalToLocal:
          let identical = try isIdentical(to: latest, scan: scan)
          verbose("'\(latest.name)' \(identical ? "holds" : "does not hold") the content of the local save")
          since.latestIdenticalToLocal = identical
        case .latestDescendsFromAgreed:
          let descends = try latestDescends(from: record.cloudLatestWhenAgreed)
          if !descends {
            verbose(
              "'\(latest.name)' does not descend from '\(record.cloudLatestWhenAgreed)' (made apart from this device's save)"
            )
          }
          since.latestDescendsFromAgreed = descends
        }
      }
      return .bothHaveSaves(.recorded(since))
    }
    let plan = Decision.plan(facts, phase: .full)
    verbose("state: \(plan.state.rawValue)")
    return Assessment(
      scan: scan, archives: archives, agreement: record, facts: facts, movedFrom: movedFrom,
      remadeFolder: remade)
  }
}
