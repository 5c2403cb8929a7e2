import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A location of some files of a folder (one file, or a glob): only the files its pattern
/// names are scanned, staged and put in place, one by one, and the folder that holds them stays
/// (its other files are no part of the save).
struct FilesShape: LocationShape {
  var files: FilePattern

  var pattern: FilePattern? { files }
  var setsAsideAlways: Bool { true }

  func stage(_ step: StagingStep, in vault: Vault, made: inout [String]) throws -> (
    move: RestoreJournal.Move, carried: [ManifestEntry]
  ) {
    let location = step.location
    let own = try vault.makeFolder(in: step.parent, prefix: Vault.stagingPrefix(step.target.game))
    made.append(own)
    try vault.move(step.content, to: own, source: step.source, target: step.target, made: &made)
    let staged = try SaveScan.scan(own)?.entries ?? []
    // Its files and links (as a folder location keeps them), nothing else.
    let held = staged.filter { $0.kind != .directory }
    if let stray = held.first(where: { !files.matches($0.path) }) {
      throw ArchiveError.refused(
        archive: step.source.archive.name,
        reason:
          "'\(location.outside(stray.path))' is not one of the files '\(files.pattern)' that location '\(location.name)' holds"
      )
    }
    for entry in held where step.isExcluded(entry.path) {
      vault.removeTree(own + "/" + entry.path)
    }
    // Where a staged file goes, every folder on its way must be a folder (not a file, not a
    // link leading elsewhere): checked now, so that nothing has moved when it is not.
    for entry in held {
      var path = step.destination
      var relative = ""
      for name in entry.path.split(separator: "/").dropLast() {
        path += "/" + name
        relative += (relative.isEmpty ? "" : "/") + name
        guard let info = Platform.linkStatus(path) else { break }
        // A file of the save there is set aside first: it is not in the way.
        let goesAside =
          info.st_mode & S_IFMT == S_IFREG && files.matches(relative) && !step.isExcluded(relative)
        guard info.st_mode & S_IFMT == S_IFDIR || goesAside else {
          throw VaultError.io(
            path: path,
            reason:
              "it is in the way of '\(entry.path)', which the archive puts there, and it is not a folder: move it away and restore again (nothing was restored)"
          )
        }
        if goesAside { break }
      }
    }
    let move = RestoreJournal.Move(
      name: location.name, destination: step.destination, staging: own, aside: nil, shape: .files(files),
      stagedFiles: held.filter { !step.isExcluded($0.path) }.count)
    return (move, [])
  }

  /// Every file there that the pattern names goes aside (all of them first, so that a kill
  /// midway is resumed by doing that again), then each staged file is renamed in. A file that
  /// appears meanwhile goes aside too: a rename never replaces one. One whose name the aside
  /// folder holds already (the game wrote it after a kill, where a file set aside is to be
  /// replaced) is the newest save of all: it goes aside under a free name (`laterName`), kept
  /// with the save the restore replaced.
  func swap(
    _ move: RestoreJournal.Move, of journal: RestoreJournal, isTaken: (String) -> Bool, in vault: Vault
  ) throws {
    guard let aside = move.aside else {
      throw VaultError.io(path: move.destination, reason: "no folder to set its files aside in")
    }
    func setAside(_ path: String) throws {
      let from = move.destination + "/" + path
      try? Platform.makeFolders(((aside + "/" + path) as NSString).deletingLastPathComponent)
      var code = Self.moveIn(from, to: aside + "/" + path)
      if code == EEXIST, let later = Vault.laterName(path, in: aside, files: files) {
        code = Self.moveIn(from, to: aside + "/" + later)
        if code == nil {
          vault.context.log.warning(
            "'\(from)' was written after the restore set the save aside: it is kept with the save the restore replaced, as '\(later)' (restore --undo puts it back)"
          )
        }
      }
      if let code {
        throw VaultError.io(path: from, reason: "cannot move it aside: \(Platform.describe(errno: code))")
      }
    }
    // Its files and links, as the scan of the location finds them.
    let staged = ((try? SaveScan.scan(move.staging)?.entries) ?? []).filter { $0.kind != .directory }.map(
      \.path)
    if staged.count >= (move.stagedFiles ?? 0) {
      try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: true)
      let entries = try SaveScan.scan(move.destination, files: files)?.entries ?? []
      var setAsideAlready = Set<String>()
      for entry in entries where !isTaken(entry.path) {
        // A folder the pattern names goes aside whole (what it holds besides files too),
        // unless something in it is excluded and so stays.
        let named = files.matchedPath(entry.path) ?? entry.path
        let holdsExcluded =
          named != entry.path && entries.contains { isTaken($0.path) && $0.path.hasPrefix(named + "/") }
        let path = holdsExcluded ? entry.path : named
        guard setAsideAlready.insert(path).inserted else { continue }
        vault.context.failpoints.reach("restore.aside-files")
        try setAside(path)
      }
      try? Platform.syncDirectory(aside)
    }
    var folders = Set<String>()
    for path in staged {
      vault.context.failpoints.reach("restore.between-files")
      let to = move.destination + "/" + path
      let folder = (to as NSString).deletingLastPathComponent
      do throws(SystemError) {
        try Platform.makeFolders(folder)
      } catch {
        throw Self.folderNotMade(folder, error: error)
      }
      var code = Self.moveIn(move.staging + "/" + path, to: to)
      if code == EEXIST {
        try setAside(path)
        code = Self.moveIn(move.staging + "/" + path, to: to)
      }
      if let code { throw VaultError.io(path: to, reason: Platform.describe(errno: code)) }
      folders.insert(folder)
    }
    for folder in folders { try? Platform.syncDirectory(folder) }
    vault.removeTree(move.staging)
  }

  /// Files still to put in place: finished, and whatever the game wrote meanwhile is moved
  /// aside with the rest (kept in the pre-restore copy).
  func isWrittenSince(_ move: RestoreJournal.Move, target: Target, in vault: Vault) -> Bool {
    Vault.exists(move.staging) ? false : vault.isChangedSince(move, target: target)
  }

  /// Why `folder` could not be made, in words: the file in its way when there is one.
  private static func folderNotMade(_ folder: String, error: SystemError) -> VaultError {
    var path = folder
    while !Vault.exists(path), path.count > 1 {
      path = (path as NSString).deletingLastPathComponent
    }
    if !Platform.isFolder(path) {
      return VaultError.io(
        path: path, reason: "a file is in the way of a folder the restore puts there; move it away")
    }
    return VaultError.io(
      path: folder, reason: "cannot make this folder: \(Platform.describe(errno: error.code))")
  }

  /// Renames `from` to `to` unless something is there; the error code, nil when done.
  private static func moveIn(_ from: String, to: String) -> Int32? {
    do throws(SystemError) {
      try Platform.moveNoReplace(from: from, to: to)
      return nil
    } catch {
      return error.code
    }
  }
}

extension Vault {
  /// A name free in `aside` for a file at `path` written after a restore set aside the one of
  /// that name: `top (written after the restore).sav`, numbered when that is taken too, one
  /// the location's pattern names when there is one (so that undo puts the copy back).
  static func laterName(_ path: String, in aside: String, files: FilePattern) -> String? {
    let folder = (path as NSString).deletingLastPathComponent
    let name = (path as NSString).lastPathComponent
    let dot = name.dropFirst().lastIndex(of: ".") ?? name.endIndex
    let (stem, suffix) = (String(name[..<dot]), String(name[dot...]))
    let names = (1...99).map { n in
      (folder.isEmpty ? "" : folder + "/") + stem + " (written after the restore\(n == 1 ? "" : " \(n)"))"
        + suffix
    }
    let free = names.filter { !exists(aside + "/" + $0) }
    return free.first(where: files.matches) ?? free.first
  }
}
