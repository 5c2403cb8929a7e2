import Foundation

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// A game whose save is also some files of its install folder (see `SimulationTests`): one
/// file, `options.ini`, a glob over its slots, `*.sav`, and one over its profiles,
/// `profiles/**/general.opt`. The install folder also holds files that are no part of the save
/// (the game's program, its readme, a backup copy of a slot, another game's slot in a folder of
/// its own, a profile's other settings), which no command may ever change; the game and the
/// player change them, and the model keeps what each must hold.
enum SimulatedFiles {
  /// Each location of files, as the folder inside the install folder that holds them ("" for
  /// the install folder itself) and the pattern of its files inside that folder.
  static let locations: [(folder: String, pattern: String)] = [
    ("", "options.ini"), ("", "*.sav"), ("profiles", "**/general.opt"),
  ]

  /// The files the game writes, adds and deletes, per location of files (by pattern): each one
  /// its pattern names (`**` also spans no folder).
  static let matching = [
    "options.ini": ["options.ini"], "*.sav": ["slot1.sav", "slot2.sav", "slot3.sav", "autosave.sav"],
    "**/general.opt": ["alice/general.opt", "bob/general.opt", "general.opt"],
  ]

  /// The install folder's files that are no part of the save, relative to it: each is close to
  /// a pattern without being named by it. `profiles/README.txt` is never deleted, so that the
  /// profiles folder stays.
  static let outside = [
    "game.exe", "readme.txt", "slot1.sav.bak", "OtherGame/slot1.sav", "profiles/README.txt",
    "profiles/alice/settings.opt",
  ]

  /// Whether `path` (relative to a location's folder) is one that `pattern` names: each
  /// component by `fnmatch`, `**` spanning any number of folders, none too. (The model's own
  /// matcher, not SaveVault's.)
  static func matches(_ pattern: String, _ path: String) -> Bool {
    let parts = pattern.split(separator: "/").map(String.init)
    let names = path.split(separator: "/").map(String.init)
    func match(_ n: Int, _ p: Int) -> Bool {
      if p == parts.count { return n == names.count }
      if parts[p] == "**" { return (n...names.count).contains { match($0, p + 1) } }
      guard n < names.count, fnmatch(parts[p], names[n], 0) == 0 else { return false }
      return match(n + 1, p + 1)
    }
    return match(0, 0)
  }

  /// The inode of the folder at `path` (nil when it is gone).
  static func inode(_ path: String) -> UInt64? {
    var info = stat()
    guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
    return UInt64(info.st_ino)
  }
}

extension SimulatedDevice {
  /// The install folder (in HOME, so that its portable form is every device's), in a scenario of
  /// file locations.
  var install: String { home + "/Games/install" }

  /// Sets up the install folder: the files that are no part of the save, each with content of
  /// this device's; the model records them and the inodes of the folders that hold the save's
  /// files, which no restore may replace.
  func makeInstall() throws {
    for path in SimulatedFiles.outside {
      try writeOutside(path, "\(name)'s \(path), as installed\n")
    }
    for location in fileLocations {
      heldFolders[location.folder] = SimulatedFiles.inode(location.folder)
    }
  }

  private func writeOutside(_ path: String, _ content: String) throws {
    let full = install + "/" + path
    try FileManager.default.createDirectory(
      atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(content.utf8).write(to: URL(fileURLWithPath: full))
    outsideFiles[path] = Data(content.utf8)
  }

  /// The game or the player changes a file of the install folder that is no part of the save:
  /// writes one (new content, or a file that was not there) or deletes one.
  func playOutside(_ random: inout SplitMix64, tag: String) -> String {
    let deletable = SimulatedFiles.outside.filter { $0 != "profiles/README.txt" && outsideFiles[$0] != nil }
    if random.chance(30), let doomed = random.pick(deletable) {
      unlink(install + "/" + doomed)
      outsideFiles[doomed] = nil
      return "deleted \(doomed) (no part of the save)"
    }
    let path = random.pick(SimulatedFiles.outside) ?? "readme.txt"
    try? writeOutside(path, "\(name) \(tag) \(path) \(random.int(0..<1_000_000))\n")
    return "wrote \(path) (no part of the save)"
  }

  /// The player deletes a location of files: its matching files, never the folder that holds
  /// them nor its other files.
  func wipeFiles(_ location: (name: String, path: String), pattern: String) {
    for path in Self.matchingFiles(in: location.path, pattern: pattern) {
      unlink(location.path + "/" + path)
    }
  }

  /// The regular files under `folder` that `pattern` names, relative to it.
  static func matchingFiles(in folder: String, pattern: String) -> [String] {
    let candidates = SimulatedFiles.matching[pattern] ?? []
    return candidates.filter { path in
      var info = stat()
      return lstat(folder + "/" + path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }
  }

  /// What no command may have changed: each file of the install folder that is no part of the
  /// save holds what the model says, byte for byte (and one the model says is gone is gone),
  /// and each folder that holds the save's files is the very folder it was (the same inode).
  /// Nil when all holds, else what differs.
  func outsideChanges() -> String? {
    guard hasFiles else { return nil }
    for path in SimulatedFiles.outside {
      let found = FileManager.default.contents(atPath: install + "/" + path)
      guard found == outsideFiles[path] else {
        return
          "\(install)/\(path), no part of the save, \(found == nil ? "is gone" : "changed") (the model says \(outsideFiles[path].map { "'\(String(decoding: $0, as: UTF8.self))'" } ?? "absent"))"
      }
    }
    for (folder, inode) in heldFolders.sorted(by: { $0.key < $1.key }) {
      let now = SimulatedFiles.inode(folder)
      guard now == inode else {
        return
          "\(folder), which holds files of the save, was replaced (inode \(inode) → \(now.map(String.init) ?? "gone"))"
      }
    }
    return nil
  }
}

extension SimulationScenario {
  /// Invariant: no command changed what is no part of the save in a folder of the save's files,
  /// nor replaced such a folder (checked after every step).
  func checkOutsideFiles() throws {
    for device in devices {
      if let change = device.outsideChanges() ?? device.otherKeysChanges() {
        throw SimulationFailure(
          invariant: "files that are no part of the save never change", detail: "on \(device.name): \(change)"
        )
      }
    }
  }

  /// The kill points of a restore of files that `points` holds (set aside, renamed in).
  static func filePoints(_ points: [String]) -> [String] {
    points.filter { $0.hasPrefix("restore.aside-files") || $0.hasPrefix("restore.between-files") }
  }
}

extension SimulatedDevice {
  /// What the next command's recovery keeps when it finishes a restore stopped with files of a
  /// location of files still to put in place, over what the game wrote since (see
  /// `Vault.finish`, docs/crash-safety.md): the save from before the restore (what was set
  /// aside, and what is still to be) with the game's later write of each file still to be put
  /// in place (as `NAME (written after the restore).ext` when one of that name was set aside
  /// already), as the pre-restore copy; and the save as the restore leaves it, the archive's
  /// files with the game's later writes of the others. Nil unless such a restore is half-done
  /// here.
  var statesAfterFinishingFiles: [String]? {
    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
    guard hasFiles, let journal = restoreJournal,
      journal.moves.contains(where: { $0.shape.kind.pattern != nil && exists($0.staging) })
    else { return nil }
    var kept: [(path: String, sha256: String)] = []
    var save: [(path: String, sha256: String)] = []
    func under(_ name: String, _ files: [(path: String, sha256: String)]) -> [(path: String, sha256: String)]
    {
      files.map { (name + "/" + $0.path, $0.sha256) }
    }
    for location in heldLocations where !journal.moves.contains(where: { $0.name == location.name }) {
      let pattern = patterns[location.name]
      guard !Platform.isRegularFile(location.path) else {
        // The registry keys, when the restore had no export to merge.
        save +=
          SimulatedRegistry.contentHash(ofFile: location.path).map { [(location.name + "/user.reg", $0)] }
          ?? []
        continue
      }
      save += under(
        location.name,
        SaveState.files(of: location.path).filter { file in
          pattern.map { SimulatedFiles.matches($0, file.path) } ?? true
        })
    }
    for move in journal.moves {
      let aside = move.aside.map(SaveState.files(of:)) ?? []
      kept += under(move.name, aside)
      let staged = exists(move.staging) ? SaveState.files(of: move.staging) : nil
      guard let pattern = move.shape.kind.pattern?.pattern else {
        // A folder still to swap goes aside whole (unless it is there already).
        let live = SaveState.files(of: move.destination)
        if let staged {
          if move.aside.map(exists) != true { kept += under(move.name, live) }
          save += under(move.name, staged)
        } else {
          save += under(move.name, live)
        }
        continue
      }
      let live = SaveState.files(of: move.destination).filter { SimulatedFiles.matches(pattern, $0.path) }
      guard let staged else {
        save += under(move.name, live)
        continue
      }
      // None put in place yet: every matching file goes aside; else only those in the way.
      let isAllAside = staged.count >= (move.stagedFiles ?? 0)
      let stagedNames = Set(staged.map(\.path))
      var asideNames = Set(aside.map(\.path))
      for file in live {
        guard isAllAside || stagedNames.contains(file.path) else {
          save += under(move.name, [file])
          continue
        }
        let name =
          asideNames.contains(file.path) ? Self.laterName(file.path, taken: asideNames, pattern) : file.path
        asideNames.insert(name)
        kept += under(move.name, [(name, file.sha256)])
      }
      save += under(move.name, staged)
    }
    let isSaved = { (file: (path: String, sha256: String)) in !file.path.hasSuffix(".log") }
    return [SaveState.digest(kept.filter(isSaved)), SaveState.digest(save.filter(isSaved))].compactMap { $0 }
  }

  /// The name a file at `path` written after a restore set aside one of that name is kept
  /// under (the model's own `Vault.laterName`): `slot1 (written after the restore).sav`,
  /// numbered when taken, one `pattern` names when there is one.
  static func laterName(_ path: String, taken: Set<String>, _ pattern: String) -> String {
    let folder = (path as NSString).deletingLastPathComponent
    let name = (path as NSString).lastPathComponent
    let dot = name.dropFirst().lastIndex(of: ".") ?? name.endIndex
    let (stem, suffix) = (String(name[..<dot]), String(name[dot...]))
    let free = (1...99).map { n in
      (folder.isEmpty ? "" : folder + "/") + stem + " (written after the restore\(n == 1 ? "" : " \(n)"))"
        + suffix
    }.filter { !taken.contains($0) }
    return free.first { SimulatedFiles.matches(pattern, $0) } ?? free.first ?? path
  }
}
