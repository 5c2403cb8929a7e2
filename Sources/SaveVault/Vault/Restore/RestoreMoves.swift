import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension SaveLocation {
  /// This location as the archive's `archived`, matched to it, holds it: what the archive
  /// holds of its folder, in the shape the archive gives it (a restore puts back what the
  /// archive holds, and touches nothing else): its files when the archive holds some files of
  /// it, and the whole folder when the archive holds it whole. For a location of files whose
  /// file this device's list names as a path (a file not made here yet, taken for a folder),
  /// the folder that holds it with the archive's pattern.
  func holding(_ archived: ArchiveLocation) -> SaveLocation {
    guard case .folder = shape, let files = archived.files else {
      // (Only an archive's location of this very folder: the one a file of this device's
      // list was, an empty folder where it was missing, is not.)
      guard archived.folderPortable == folderPortable else { return self }
      switch (shape, archived.files) {
      case (.files(let own), let files?) where own.pattern != files.pattern:
        return SaveLocation(
          name: name, path: path, portable: archived.portable,
          shape: .files(Target.pattern(files.pattern, in: path)))
      case (.files, nil):
        return SaveLocation(name: name, path: path, portable: archived.folderPortable)
      default: return self
      }
    }
    // The path here ends with the pattern when the list's template does: that folder holds them.
    if portable.template.hasSuffix("/" + files.pattern) {
      var folder = path
      for _ in files.components { folder = (folder as NSString).deletingLastPathComponent }
      // Named as the list names a location of files: after the folder that holds them.
      let index = Int(name.prefix { $0.isNumber }).map { $0 - 1 }
      return SaveLocation(
        name: index.map { SaveLocation.name(index: $0, path: folder) } ?? name, path: folder,
        portable: portable, shape: .files(Target.pattern(files.pattern, in: folder)))
    }
    return SaveLocation(
      name: name, path: path, portable: archived.portable,
      shape: .files(Target.pattern(files.pattern, in: path)))
  }

  /// This location as this device keeps it once it agreed on an archive that holds its folder
  /// as `archived` does: the whole folder when either takes it whole or they take other files
  /// of it (one folder is one location: what another device's list takes of it is kept too,
  /// never dropped by this device's upload). For a location of files whose file this
  /// device's list names as a path (not made here yet), the archive's files (`holding`).
  func widened(by archived: ArchiveLocation) -> SaveLocation {
    if case .files = shape, archived.folderPortable != folderPortable { return self }
    switch (shape, archived.files) {
    case (.registry, _), (.folder, nil): return self
    case (.folder, let files?):
      return portable.template.hasSuffix("/" + files.pattern) ? holding(archived) : self
    case (.files(let own), let files?) where own.pattern == files.pattern: return self
    case (.files, _): return SaveLocation(name: name, path: path, portable: folderPortable)
    }
  }

  /// The path inside this location of `path`, a path of the save as a whole (the save's
  /// own for a location at the top, else under the location's name); nil when it is
  /// another location's.
  func inside(_ path: String) -> String? {
    if isAtTop { return path }
    return path.hasPrefix(name + "/") ? String(path.dropFirst(name.count + 1)) : nil
  }

  /// The save-wide path of `path`, a path inside this location.
  func outside(_ path: String) -> String { isAtTop ? path : name + "/" + path }
}

/// The folders a restore staged, one per location, and the content it restores.
struct StagedRestore {
  /// One per location the archive brings something to (asides not chosen yet).
  var moves: [RestoreJournal.Move]
  /// The restored content under this device's location names, with the folders made to hold
  /// what was carried over.
  var content: [ManifestEntry]
}

extension Vault {
  /// Puts each location's part of the archive extracted at `staging` into a folder of its own
  /// beside that location's save folder: the extraction itself when it is the whole of a
  /// location beside it; else moved there, or extracted again when that is another
  /// filesystem. What no archive holds is carried over from the save (and from `carrying`, the
  /// folder an undo puts back), what the game's `exclude` globs leave out is taken out of the
  /// archive's content and kept from the save. Every folder made is added to `made`.
  func stage(
    _ extraction: Extractor.Extraction, plan: [(archiveName: String?, location: SaveLocation)],
    from source: (archive: StoredArchive, container: any Container), into staging: String, target: Target,
    current: SaveScan?, carrying: (folder: String, skipped: [(path: String, reason: String)])?,
    untaken: [String: [String]] = [:], merged: [String: String] = [:], made: inout [String],
    createdParents: inout [String]
  ) throws -> StagedRestore {
    let isExcluded = Self.exclusion(target)
    var moves: [RestoreJournal.Move] = []
    var carried: [ManifestEntry] = []
    for (archiveName, location) in plan {
      let destination = Platform.resolvedPath(location.path)
      if Platform.isMountPoint(destination) {
        throw VaultError.saveDirectoryIsMountPoint(path: location.path)
      }
      let step = StagingStep(
        location: location, archiveName: archiveName ?? "", destination: destination,
        parent: try makeParent(of: destination, created: &createdParents), extraction: extraction,
        extracted: staging, source: source, target: target, current: current, carrying: carrying,
        untaken: untaken[location.name] ?? [],
        spellings: merged.filter { $0.value == archiveName }.map(\.key).sorted(), isExcluded: isExcluded)
      let staged = try location.shape.kind.stage(step, in: self, made: &made)
      moves.append(staged.move)
      carried += staged.carried
    }
    // The restored content under this device's names for the locations (another spelling's
    // under its folder's, where that folder has nothing of its own at the path).
    var names = Dictionary(plan.map { ($0.archiveName ?? "", $0.location) }) { a, _ in a }
    for (spelling, into) in merged { names[spelling] = names[into] }
    let entries =
      extraction.entries.filter { merged[String($0.path.prefix { $0 != "/" })] == nil }
      + extraction.entries.filter { merged[String($0.path.prefix { $0 != "/" })] != nil }
    var seen = Set<String>()
    var content = entries.compactMap { entry -> ManifestEntry? in
      var entry = entry
      if let whole = names[""] {
        guard !isExcluded(entry.path) else { return nil }
        entry.path = whole.outside(entry.path)
        return entry
      }
      let parts = entry.path.split(separator: "/", maxSplits: 1).map(String.init)
      guard parts.count == 2, let location = names[parts[0]], !isExcluded(parts[1]) else { return nil }
      // A location of files holds its files only, not the folders on their way.
      if location.shape.kind.pattern != nil && entry.kind == .directory { return nil }
      entry.path = location.outside(parts[1])
      return seen.insert(entry.path).inserted ? entry : nil
    }
    content += carried
    for index in moves.indices {
      let location = plan[index].location
      moves[index].digest = ContentDigest.of(content.filter { location.inside($0.path) != nil })
    }
    return StagedRestore(moves: moves, content: content)
  }

  /// Moves the extracted `content` (a location's folder in the archive) to `own`, a fresh
  /// folder: by a rename, or where that is another filesystem by extracting the archive again
  /// there and keeping only that folder. Nothing when the archive has nothing for it.
  func move(
    _ content: String, to own: String, source: (archive: StoredArchive, container: any Container),
    target: Target, made: inout [String]
  ) throws {
    guard Self.exists(content), rename(content, own) != 0 else { return }
    guard errno == EXDEV else {
      throw VaultError.io(path: own, reason: Platform.describe(errno: errno))
    }
    let parent = (own as NSString).deletingLastPathComponent
    let again = try makeFolder(in: parent, prefix: Self.stagingPrefix(target.game))
    made.append(again)
    _ = try extract(source.archive, from: source.container, target: target, into: again)
    let name = String(content.split(separator: "/").last ?? "")
    guard rename(again + "/" + name, own) == 0 else {
      throw VaultError.io(path: own, reason: Platform.describe(errno: errno))
    }
    removeTree(again)
  }

  /// Which folder of this machine each location of the archive goes to, the locations of the
  /// archive the game's own list lacks (placed where their portable form says), and those left
  /// unplaced. A location is matched by its portable form, else by its name, else by its folder
  /// (`ArchiveLocation.match`), each of the list's to one of the archive's, the one made in the
  /// most alike folder first; an archive of one folder is the first location's content, and a
  /// one-folder game's folder takes any archive whole. One whose place here another of the
  /// archive's of the same form takes (a second Steam account's folder, where this machine has
  /// one account) is left unplaced: not restored, kept in the cloud by the next upload. Throws,
  /// before anything changes, for a location of the archive that has no place here.
  /// `reshaped` pairs each location of the list the archive holds in another shape with what
  /// it is for this restore (`SaveLocation.holding`). One folder spelled two ways in a Wine
  /// prefix where the archive was made (`My Games` and `my games`: one folder to the game) is
  /// one folder here too: the second spelling's content goes into the first's folder where it
  /// has nothing of its own at that path (`merged`, by archive name), and it is kept unplaced
  /// besides, so that the device with both spellings gets each back.
  func destinations(of stored: [ArchiveLocation]?, target: Target, archive: String) throws
    -> (
      plan: [(archiveName: String?, location: SaveLocation)], added: [SaveLocation],
      unplaced: [ArchiveLocation], reshaped: [(listed: SaveLocation, here: SaveLocation)],
      merged: [String: String]
    )
  {
    guard let stored, !target.isOneFolder else { return ([("", target.locations[0])], [], [], [], [:]) }
    var reshaped: [(listed: SaveLocation, here: SaveLocation)] = []
    var merged: [String: String] = [:]
    var placed: [String: SaveLocation] = [:]
    var added: [SaveLocation] = []
    var unplaced: [ArchiveLocation] = []
    var used = Set<String>()
    let closestFirst = stored.sorted { a, b in
      let best = { (archived: ArchiveLocation) in
        target.locations.map { archived.likeness(to: Platform.resolvedPath($0.path)) }.max() ?? 0
      }
      return best(a) > best(b)
    }
    for location in closestFirst {
      // A pattern reaching out of its folder is no location of files.
      if let files = location.files,
        files.pattern.hasPrefix("/") || files.components.contains(where: { $0 == ".." || $0 == "." })
      {
        throw ArchiveError.refused(
          archive: archive,
          reason: "its location '\(location.name)' names files '\(files.pattern)' outside its folder")
      }
      let unused = target.locations.filter { !used.contains($0.name) }
      let here: SaveLocation
      switch location.match(in: unused) {
      case .one(let found):
        here = found.holding(location)
        if here != found { reshaped.append((found, here)) }
      case .several(let alike):
        // The game installed twice on the machine that made the archive: each to its own.
        if let same = alike.first(where: { $0.shown == location.path || $0.path == location.path }) {
          here = same.holding(location)
          if here != same { reshaped.append((same, here)) }
          break
        }
        // Two Steam users, say: which one's folder the save belongs in is the player's call.
        throw VaultError.locationNotHere(
          game: target.game, archive: archive, location: location.portable.template, madeAt: location.path,
          why:
            "it matches several folders here (\(alike.map(\.path).joined(separator: ", "))), and which one it belongs in cannot be told"
        )
      case .none where location.match(in: target.locations) != .none:
        // Its place here is another location of the archive's, of the same form.
        if let spelling = stored.first(where: { other in
          other.name != location.name && other.portable == location.portable
            && other.path.lowercased() == location.path.lowercased()
            && placed[other.name].map { $0.shape == .folder && Target.isInWinePrefix($0.path) } == true
        }) {
          merged[location.name] = spelling.name
        }
        unplaced.append(location)
        continue
      case .none:
        here = try resolvedHere(
          location, taken: target.locations + added, game: target.game, archive: archive)
        added.append(here)
      }
      used.insert(here.name)
      placed[location.name] = here
    }
    // A location the archive has nothing for is left as it is: nothing of it is replaced.
    let plan = stored.compactMap { location in placed[location.name].map { (location.name, $0) } }
    return (plan, added, unplaced, reshaped, merged)
  }

  /// An archive location the game's own list lacks, resolved from its portable form on this
  /// machine (the game's install, prefix and home here): the folder it matches, else the one
  /// a save would be written to. Throws when it has no place here.
  private func resolvedHere(_ location: ArchiveLocation, taken: [SaveLocation], game: String, archive: String)
    throws -> SaveLocation
  {
    let config = (try? cache.config(at: paths.configFile, isRequired: false)) ?? ConfigFile()
    let path: String
    // A location of files goes to the folder that holds them.
    switch location.folderPortable.resolve(on: gameRoots(config)) {
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
    // (A location of files: `path` is the folder that holds them.)
    return SaveLocation(
      name: name, path: path, portable: location.portable,
      shape: location.files.map { .files(Target.pattern($0.pattern, in: path)) } ?? .folder)
  }

  /// Extracts `chosen` into the fresh folder `folder`, every entry checked and the whole
  /// verified against its manifest and refused when its header names another game
  /// (`Extractor`), after checking that the archive's size is
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
      let free = Platform.freeBytes(at: parent).map {
        FreeSpace(path: parent, bytes: $0, keepsHoles: Platform.keepsHoles(in: folder))
      }
      try free?.check(total: chosen.size)
      let meter = ProgressMeter(.extracting, total: chosen.size, context: context)
      return try Extractor(limits: target.limits, freeSpace: free, meter: meter, game: target.game).extract(
        fd: fd, archiveName: chosen.name, into: folder)
    }
  }

  /// Flushes every file and folder under `folder` to disk (the folder is read only when its
  /// filesystem cannot be flushed at once).
  func flush(_ folder: String) throws {
    try flushStaging(folder) {
      let entries = try SaveScan.scan(folder)?.entries ?? []
      return (
        entries.filter { $0.kind == .file }.map(\.path), entries.filter { $0.kind == .directory }.map(\.path)
      )
    }
  }

  /// Makes a restored tree written at `staging` durable before any rename puts it in place:
  /// one flush of its filesystem, after every file is written (`Platform.syncFilesystem`), or
  /// where that is not available each file and folder `listing` names (`Platform.syncEach`).
  /// Throws when the tree cannot be flushed; nothing was swapped then.
  func flushStaging(_ staging: String, listing: () throws -> (files: [String], folders: [String])) throws {
    guard !Platform.syncFilesystem(containing: staging) else { return }
    let (files, folders) = try listing()
    do {
      try Platform.syncEach(staging, files: files, folders: folders)
    } catch {
      throw VaultError.io(
        path: error.path, reason: "cannot flush it to disk: \(Platform.describe(errno: error.code))")
    }
  }

  static func mode(of path: String) -> mode_t {
    var info = stat()
    return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0o755
  }

  /// Makes the folder that holds `destination`, and the folders above it that are missing;
  /// those it made are added to `created`, outermost first, so that a restore refused before
  /// its swap removes them again (`removeMadeParents`).
  func makeParent(of destination: String, created: inout [String]) throws -> String {
    let parent = (destination as NSString).deletingLastPathComponent
    var missing: [String] = []
    var folder = parent
    while !folder.isEmpty, folder != "/", !Self.exists(folder) {
      missing.insert(folder, at: 0)
      folder = (folder as NSString).deletingLastPathComponent
    }
    created += missing
    do {
      try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
    } catch {
      throw VaultError.io(path: parent, reason: "cannot create it: \(error.localizedDescription)")
    }
    return parent
  }

  /// Removes the folders `makeParent` made, innermost first, each only while it is empty (what
  /// the game put there since stays, with the folders that hold it).
  func removeMadeParents(_ created: [String]) {
    for folder in created.reversed() { rmdir(folder) }
  }

  func makeFolder(in parent: String, prefix: String) throws -> String {
    do {
      return try Platform.makeTemporaryDirectory(prefix: parent + "/" + prefix)
    } catch {
      throw VaultError.io(
        path: parent, reason: "cannot create a folder there: \(Platform.describe(errno: error.code))")
    }
  }

  static func exists(_ path: String) -> Bool { Platform.linkStatus(path) != nil }

}
