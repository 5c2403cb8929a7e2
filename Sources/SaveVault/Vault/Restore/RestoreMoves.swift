import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a restore of a game of several locations is about to do, written before the first
/// rename and removed when it is done: for each location, the folder extracted for it, the
/// save folder it replaces and where the old one goes. A kill anywhere after it is written is
/// finished by the next command of the game (`finishLocations`): every location then holds
/// the archive's content, the replaced ones kept as one pre-restore copy.
struct LocationsRestoreJournal: GameRecord, Equatable {
  struct Move: Codable, Equatable {
    /// The location's top-level name in the archive.
    var name: String
    /// The location's folder, where it really is.
    var destination: String
    /// The extracted content, renamed to `destination` by the swap.
    var staging: String
    /// Where the old folder goes (nil when there was none): a name nothing has, so that it
    /// exists only once the old folder was moved there.
    var aside: String?
    /// The content digest of what the archive brings to this location: a location swapped in
    /// that no longer has it was written to after the restore was interrupted.
    var digest: String?
  }

  var game: String
  var container: String
  var archive: String
  var moves: [Move]
  /// The content digest of the restored save, under this device's location names.
  var contentDigest: String
  var undoing: UndoPoint? = nil
  var rolledBackFrom: String? = nil
}

extension Vault {
  var locationsJournals: GameRecordStore<LocationsRestoreJournal> {
    GameRecordStore(directory: paths.stateDirectory + "/restores-locations")
  }

  /// `performRestore` for a game of several locations. The archive is extracted once beside
  /// the first location and verified whole; each location's folder is then moved beside its
  /// own save folder (or extracted again there, when it is on another filesystem), so that
  /// nothing is swapped before every location is ready. The save being replaced is packed into
  /// one pre-restore copy before the swaps; then each location is swapped in by two renames.
  func performLocationsRestore(
    _ target: Target, container: any Container, chosen: StoredArchive, seen: Seen, rolledBackFrom: String?,
    undoing: UndoPoint?, beforeDone: () throws -> Void
  ) throws -> RestoreReport {
    // An interrupted restore that could not be finished yet is finished first: a new one
    // would take its journal's place, and what it set aside with it.
    var seen = seen
    if let unfinished = locationsJournals.load(game: target.game) {
      // What stopped it says why (the same cause, most likely, as a moment ago); finished now,
      // the save it left is the one this restore replaces (and keeps).
      try finishLocations(unfinished, target: target, early: nil, content: nil)
      locationsJournals.remove(game: target.game)
      verbose("finished the interrupted restore of '\(unfinished.archive)' first")
      seen.scan = try scanSave(target)
    }
    let first = target.locations[0]
    let firstParent = try makeParent(of: Platform.resolvedPath(first.path))
    let staging = try makeFolder(in: firstParent, prefix: Self.stagingPrefix(target.game))
    var made: [String] = [staging]
    var isDone = false
    let early = startPreRestoreCopy(of: seen.scan, target: target)
    defer {
      if !isDone {
        made.forEach(removeTree)
        discard(early, target: target)
      }
    }
    let extraction = try extract(chosen, from: container, target: target, into: staging)
    let isExcluded = Self.exclusion(target)
    let (plan, added) = try destinations(
      of: extraction.header?.locations, target: target, archive: chosen.name)
    // The archive's locations this game's own list lacks are part of it from now on.
    var target = target
    target.locations += added
    try context.checkpoint("restore.extracted")

    var moves: [LocationsRestoreJournal.Move] = []
    for (archiveName, location) in plan {
      let destination = Platform.resolvedPath(location.path)
      if Platform.isMountPoint(destination) {
        throw VaultError.saveDirectoryIsMountPoint(path: location.path)
      }
      let parent = try makeParent(of: destination)
      let own = try makeFolder(in: parent, prefix: Self.stagingPrefix(target.game))
      made.append(own)
      let content = staging + "/" + (archiveName ?? "")
      if archiveName != nil, Self.exists(content) {
        if rename(content, own) != 0 {
          guard errno == EXDEV else {
            throw VaultError.io(path: own, reason: Platform.describe(errno: errno))
          }
          // Another filesystem: the archive is extracted again there, and only this
          // location's folder kept.
          let again = try makeFolder(in: parent, prefix: Self.stagingPrefix(target.game))
          made.append(again)
          _ = try extract(chosen, from: container, target: target, into: again)
          guard rename(again + "/" + (archiveName ?? ""), own) == 0 else {
            throw VaultError.io(path: own, reason: Platform.describe(errno: errno))
          }
          removeTree(again)
        }
      }
      let skipped = (seen.scan?.skipped ?? []).compactMap { item -> (path: String, reason: String)? in
        item.path.hasPrefix(location.name + "/")
          ? (String(item.path.dropFirst(location.name.count + 1)), item.reason) : nil
      }
      if !skipped.isEmpty { carryOver(skipped, from: destination, into: own) }
      // What the game's exclude globs leave out is no part of the save: the archive's copy of
      // it (from a device that did not exclude it) is not restored, and this device's stays.
      for entry in extraction.entries
      where entry.path.hasPrefix((archiveName ?? "") + "/") || archiveName == "" {
        let inside =
          archiveName == "" ? entry.path : String(entry.path.dropFirst((archiveName ?? "").count + 1))
        if isExcluded(inside) { removeTree(own + "/" + inside) }
      }
      keepExcluded(seen.scan?.excluded ?? [], name: location.name, from: destination, into: own)
      moves.append(.init(name: location.name, destination: destination, staging: own, aside: nil))
    }
    // Once every location is written: the first flush of a filesystem leaves the others on it
    // nothing to wait for.
    for move in moves { try flush(move.staging) }
    removeTree(staging)
    made.removeFirst()

    // The save being replaced is safe before anything of it moves.
    if let early, early.wait() == nil {
      throw VaultError.preRestoreCopyFailed(
        game: target.game, folder: preRestoreStore().root + "/" + target.game,
        reason: early.failure.map(Self.plainReason) ?? "it could not be packed")
    }
    for index in moves.indices where Self.exists(moves[index].destination) {
      // A free name beside it: made and removed again, so that the folder exists only once the
      // old save was moved there.
      let parent = (moves[index].destination as NSString).deletingLastPathComponent
      let aside = try makeFolder(in: parent, prefix: Self.asidePrefix(target.game))
      rmdir(aside)
      moves[index].aside = aside
    }
    // The restored content under this device's names for the locations.
    let names = Dictionary(plan.compactMap { name, location in name.map { ($0, location.name) } }) { a, _ in a
    }
    let content = extraction.entries.compactMap { entry -> ManifestEntry? in
      var entry = entry
      if extraction.header?.locations == nil {
        guard !isExcluded(entry.path) else { return nil }
        entry.path = first.name + "/" + entry.path
        return entry
      }
      let parts = entry.path.split(separator: "/", maxSplits: 1).map(String.init)
      guard parts.count == 2, let renamed = names[parts[0]], !isExcluded(parts[1]) else { return nil }
      entry.path = renamed + "/" + parts[1]
      return entry
    }
    for index in moves.indices {
      let prefix = moves[index].name + "/"
      moves[index].digest = ContentDigest.of(content.filter { $0.path.hasPrefix(prefix) })
    }
    let journal = LocationsRestoreJournal(
      game: target.game, container: target.agreementKey, archive: chosen.name, moves: moves,
      contentDigest: ContentDigest.of(content), undoing: undoing, rolledBackFrom: rolledBackFrom)
    try locationsJournals.save(journal)
    isDone = true
    try context.failpoints.hit("restore.journaled")
    let preRestoreCopy = try finishLocations(journal, target: target, early: early, content: content)
    try beforeDone()
    context.failpoints.reach("restore.agreed")
    locationsJournals.remove(game: target.game)
    let files = content.filter { $0.kind == .file }
    return RestoreReport(
      game: target.game, container: target.containerURL, archive: chosen.name, saveDir: target.saveDirectory,
      verified: extraction.isVerified, files: files.count, bytes: files.reduce(0) { $0 + ($1.size ?? 0) },
      preRestoreCopy: preRestoreCopy, rolledBackFrom: rolledBackFrom)
  }

  /// Completes the swaps `journal` describes (from wherever a kill stopped them), keeps the
  /// replaced folders as one pre-restore copy, and records the agreement. Returns the copy's
  /// path. Leaves the journal for the caller to remove.
  @discardableResult
  func finishLocations(
    _ journal: LocationsRestoreJournal, target: Target, early: EarlyPreRestoreCopy?, content: [ManifestEntry]?
  ) throws -> String? {
    if content == nil, isWrittenSince(journal, target: target) {
      return try keepWhatTheGameWrote(journal, target: target)
    }
    for move in journal.moves where Self.exists(move.staging) {
      if let aside = move.aside, !Self.exists(aside), Self.exists(move.destination) {
        guard rename(move.destination, aside) == 0 else {
          throw VaultError.io(
            path: move.destination, reason: "cannot move it aside: \(Platform.describe(errno: errno))")
        }
      }
      context.failpoints.reach("restore.between-renames")
      guard rename(move.staging, move.destination) == 0 else {
        throw VaultError.io(path: move.destination, reason: Platform.describe(errno: errno))
      }
      try? Platform.syncDirectory((move.destination as NSString).deletingLastPathComponent)
    }
    try context.failpoints.hit("restore.swapped")
    // The replaced folders, as one save under the locations' names.
    let asides = journal.moves.compactMap { move in move.aside.map { (name: move.name, path: $0) } }
      .filter { Self.exists($0.path) }
    let replaced = try? SaveScan.scan(locations: asides, isExcluded: Self.exclusion(target))
    var kept: String?
    if let replaced, !replaced.isEmpty {
      if let early, let name = early.wait(), replaced.metadataDigest == early.scan.metadataDigest,
        let entries = try? Fingerprint(scan: replaced).contentEntries(),
        ContentDigest.of(entries) == early.contentDigest
      {
        kept = preRestoreStore().root + "/" + target.game + "/" + name
      } else {
        kept = try packPreRestoreCopy(replaced, target: target)
      }
      verbose("kept the replaced save as '\(kept ?? "")'")
    } else if let early {
      discard(early, target: target)
    }
    // Recovery after the replaced folders were kept and removed has noted the undo point already.
    if early != nil || content != nil || !asides.isEmpty {
      noteUndoPoint(
        target, kept: kept, restoredArchive: journal.undoing == nil ? journal.archive : nil,
        container: journal.undoing?.container ?? journal.container)
    }
    for aside in asides { removeKept(aside.path, game: target.game) }
    try context.failpoints.hit("restore.kept")
    if journal.undoing == nil, let restored = try scanSave(target) {
      let entries = try content ?? Fingerprint(scan: restored).contentEntries()
      if ContentDigest.of(entries) == journal.contentDigest {
        try recordAgreement(
          target: target, archive: journal.archive, scan: restored, content: entries,
          rolledBackFrom: journal.rolledBackFrom)
      }
    } else if let point = journal.undoing {
      _ = try? putBackAgreement(point, knownBefore: point.madeAtMs != 0, target: target)
    }
    return kept
  }

  /// Whether the save was written to after the restore `journal` describes was interrupted
  /// (the game ran before SaveVault did again): a location swapped in that no longer holds
  /// what the archive brought, or one set aside whose folder was made again.
  private func isWrittenSince(_ journal: LocationsRestoreJournal, target: Target) -> Bool {
    journal.moves.contains { move in
      if Self.exists(move.staging) {
        // Set aside (or not there at the restore) and made again since.
        return (move.aside.map(Self.exists) ?? true) && Self.exists(move.destination)
      }
      guard let digest = move.digest,
        let live = try? SaveScan.scan(
          locations: [(move.name, move.destination)], isExcluded: Self.exclusion(target)),
        let entries = try? Fingerprint(scan: live).contentEntries()
      else { return move.digest != nil && !Self.exists(move.destination) }
      return ContentDigest.of(entries) != digest
    }
  }

  /// After an interrupted restore the game wrote into its save: that save stays as the game
  /// left it (no swap is finished over it), the save from before the restore (the folders set
  /// aside and those not swapped yet) is kept whole as a pre-restore copy, and what the restore
  /// staged is removed. The agreement stays as it was, so the next sync sees what changed.
  private func keepWhatTheGameWrote(_ journal: LocationsRestoreJournal, target: Target) throws -> String? {
    let before = journal.moves.compactMap { move -> (name: String, path: String)? in
      if let aside = move.aside, Self.exists(aside) { return (move.name, aside) }
      return Self.exists(move.staging) && Self.exists(move.destination) ? (move.name, move.destination) : nil
    }
    var kept: String?
    if let old = try SaveScan.scan(locations: before, isExcluded: Self.exclusion(target)), !old.isEmpty {
      kept = try packPreRestoreCopy(old, target: target)
    }
    noteUndoPoint(target, kept: kept, restoredArchive: nil, container: journal.container)
    for move in journal.moves {
      if let aside = move.aside, Self.exists(aside) { removeKept(aside, game: target.game) }
      if Self.exists(move.staging) { removeTree(move.staging) }
    }
    context.log.warning(
      "the save was written to after the restore of '\(journal.archive)' was interrupted: it stays as it is; the save from before that restore is kept\(kept.map { " at '\($0)'" } ?? "")"
    )
    return kept
  }

  /// Which folder of this machine each location of the archive goes to, and which of the
  /// game's locations the archive has nothing for (they are emptied, their content kept).
  /// A location is matched by its portable form, else by its name; an archive of one folder
  /// is the first location's content. Throws, before anything changes, for a location of the
  /// archive that has no place here.
  private func destinations(of stored: [ArchiveLocation]?, target: Target, archive: String) throws
    -> (plan: [(archiveName: String?, location: SaveLocation)], added: [SaveLocation])
  {
    guard let stored else { return ([("", target.locations[0])], []) }
    var plan: [(archiveName: String?, location: SaveLocation)] = []
    var added: [SaveLocation] = []
    var used = Set<String>()
    for location in stored {
      let unused = target.locations.filter { !used.contains($0.name) }
      let alike = unused.filter { $0.portable == location.portable }
      let here: SaveLocation
      if let same = alike.first(where: {
        Platform.resolvedPath($0.path) == location.path || $0.path == location.path
      }) {
        here = same
      } else if alike.count > 1 {
        // Two Steam users, say: which one's folder the save belongs in is the player's call.
        throw VaultError.locationNotHere(
          game: target.game, archive: archive, location: location.portable.template, madeAt: location.path,
          why:
            "it matches several folders here (\(alike.map(\.path).joined(separator: ", "))), and which one it belongs in cannot be told"
        )
      } else if let only = alike.first ?? unused.first(where: { $0.name == location.name }) {
        here = only
      } else {
        here = try resolvedHere(
          location, taken: target.locations + added, game: target.game, archive: archive)
      }
      if !target.locations.contains(here) { added.append(here) }
      used.insert(here.name)
      plan.append((location.name, here))
    }
    // A location the archive has nothing for is left as it is: nothing of it is replaced.
    return (plan, added)
  }

  /// An archive location the game's own list lacks, resolved from its portable form on this
  /// machine (the game's install, prefix and home here): the folder it matches, else the one
  /// a save would be written to. Throws when it has no place here.
  private func resolvedHere(_ location: ArchiveLocation, taken: [SaveLocation], game: String, archive: String)
    throws -> SaveLocation
  {
    let config = (try? cache.config(at: paths.configFile, isRequired: false)) ?? ConfigFile()
    let path: String
    switch location.portable.resolve(on: gameRoots(config)) {
    case .existing(let paths) where !paths.isEmpty: path = paths[0]
    case .wouldBe(let would): path = would
    case .existing: throw VaultError.io(path: location.path, reason: "no match")
    case .unresolvable(let why):
      throw VaultError.locationNotHere(
        game: game, archive: archive, location: location.portable.template, madeAt: location.path, why: why)
    }
    let isTaken = taken.contains { $0.name == location.name || $0.path == path }
    if taken.contains(where: { $0.path == path }) {
      throw VaultError.locationNotHere(
        game: game, archive: archive, location: location.portable.template, madeAt: location.path,
        why: "it would go to '\(path)', another of the game's locations")
    }
    let name = isTaken ? SaveLocation.name(index: taken.count, path: path) : location.name
    return SaveLocation(name: name, path: path, portable: location.portable)
  }

  /// Extracts `chosen` into the fresh folder `folder`, every entry checked and the whole
  /// verified against its manifest (`Extractor`), after checking that the archive's size is
  /// what the listing said and that the filesystem has room for it.
  func extract(_ chosen: StoredArchive, from container: any Container, target: Target, into folder: String)
    throws -> Extractor.Extraction
  {
    let parent = (folder as NSString).deletingLastPathComponent
    return try container.read(game: target.game, name: chosen.name) { fd in
      var info = stat()
      guard fstat(fd, &info) == 0, Int64(info.st_size) == chosen.size else {
        throw ArchiveError.refused(archive: chosen.name, reason: "its size changed while it was read")
      }
      // A plain tar is at least as large as its content; a compressed one is checked again
      // file by file as the extractor learns each size.
      let free = Platform.freeBytes(at: parent).map { FreeSpace(path: parent, bytes: $0) }
      try free?.check(total: chosen.size)
      let meter = ProgressMeter(.extracting, total: chosen.size, context: context)
      return try Extractor(limits: target.limits, freeSpace: free, meter: meter).extract(
        fd: fd, archiveName: chosen.name, into: folder)
    }
  }

  /// Flushes every file and folder under `folder` to disk (the folder is read only when its
  /// filesystem cannot be flushed at once).
  private func flush(_ folder: String) throws {
    try flushStaging(folder) {
      let entries = try SaveScan.scan(folder)?.entries ?? []
      return (
        entries.filter { $0.kind == .file }.map(\.path), entries.filter { $0.kind == .directory }.map(\.path)
      )
    }
  }

  private func makeParent(of destination: String) throws -> String {
    let parent = (destination as NSString).deletingLastPathComponent
    do {
      try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
    } catch {
      throw VaultError.io(path: parent, reason: "cannot create it: \(error.localizedDescription)")
    }
    return parent
  }

  func makeFolder(in parent: String, prefix: String) throws -> String {
    do {
      return try Platform.makeTemporaryDirectory(prefix: parent + "/" + prefix)
    } catch {
      throw VaultError.io(
        path: parent, reason: "cannot create a folder there: \(Platform.describe(errno: error.code))")
    }
  }

  static func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
  }

}
