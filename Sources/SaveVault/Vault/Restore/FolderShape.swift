import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A location that is a whole folder: staged as a folder beside it, with what no archive holds
/// carried over, and swapped in by two renames.
struct FolderShape: LocationShape {
  func stage(_ step: StagingStep, in vault: Vault, made: inout [String]) throws -> (
    move: RestoreJournal.Move, carried: [ManifestEntry]
  ) {
    let location = step.location
    let own: String
    if step.archiveName.isEmpty, step.parent == (step.extracted as NSString).deletingLastPathComponent {
      // The whole archive is this location's: the extraction is put in place as it is, with
      // the save folder's mode (durable before it is renamed into place).
      own = step.extracted
      chmod(own, Vault.exists(step.destination) ? Vault.mode(of: step.destination) : 0o755)
    } else {
      own = try vault.makeFolder(in: step.parent, prefix: Vault.stagingPrefix(step.target.game))
      made.append(own)
      try vault.move(step.content, to: own, source: step.source, target: step.target, made: &made)
    }
    for spelling in step.spellings { Self.moveMissing(from: step.extracted + "/" + spelling, into: own) }
    // What no archive holds stays in the save: from the folder an undo puts back, then from
    // the save replaced.
    func skipped(_ items: [(path: String, reason: String)]) -> [(path: String, reason: String)] {
      items.compactMap { item in location.inside(item.path).map { ($0, item.reason) } }
    }
    var folders: [String] = []
    if let carrying = step.carrying {
      let folder = location.isAtTop ? carrying.folder : carrying.folder + "/" + location.name
      folders += vault.carryOver(skipped(carrying.skipped), from: folder, into: own)
    }
    folders += vault.carryOver(skipped(step.current?.skipped ?? []), from: step.destination, into: own)
    // What the game's exclude globs leave out is no part of the save: the archive's copy of
    // it (from a device that did not exclude it) is not restored, and this device's stays.
    for entry in step.extraction.entries {
      let inside =
        step.archiveName.isEmpty
        ? entry.path
        : entry.path.hasPrefix(step.archiveName + "/")
          ? String(entry.path.dropFirst(step.archiveName.count + 1)) : nil
      if let inside, step.isExcluded(inside) { vault.removeTree(own + "/" + inside) }
    }
    vault.keepExcluded(step.current?.excluded ?? [], name: location.name, from: step.destination, into: own)
    vault.keepExcluded(
      step.untaken.map { location.name + "/" + $0 }, name: location.name, from: step.destination, into: own)
    // Folders made to hold them are part of the restored save's content.
    return (
      RestoreJournal.Move(name: location.name, destination: step.destination, staging: own, aside: nil),
      folders.map { ManifestEntry(path: location.outside($0), kind: .directory) }
    )
  }

  func swap(
    _ move: RestoreJournal.Move, of journal: RestoreJournal, isTaken: (String) -> Bool, in vault: Vault
  ) throws {
    if Self.placesNothing(move, of: journal) {
      // Nothing of the archive's for a location not here: no empty folder made where the
      // game may write a file of that name (a config's one file that no device has yet).
      vault.removeTree(move.staging)
      return
    }
    if let aside = move.aside, !Vault.exists(aside), Vault.exists(move.destination) {
      guard rename(move.destination, aside) == 0 else {
        throw VaultError.io(
          path: move.destination, reason: "cannot move it aside: \(Platform.describe(errno: errno))")
      }
    }
    // Only kill and pause act here: nothing may stop between the renames but a real kill.
    if move.aside != nil { vault.context.failpoints.reach("restore.between-renames") }
    guard rename(move.staging, move.destination) == 0 else {
      let code = errno
      if journal.commit == .swap, let aside = move.aside { rename(aside, move.destination) }
      throw VaultError.io(path: move.destination, reason: Platform.describe(errno: code))
    }
    try? Platform.syncDirectory((move.destination as NSString).deletingLastPathComponent)
  }

  func isWrittenSince(_ move: RestoreJournal.Move, target: Target, in vault: Vault) -> Bool {
    if Vault.exists(move.staging) {
      // Set aside (or not there at the restore) and made again since.
      return (move.aside.map(Vault.exists) ?? true) && Vault.exists(move.destination)
    }
    return vault.isChangedSince(move, target: target)
  }

  /// Moves into `folder` what `from` holds that `folder` lacks, folder by folder: a path
  /// `folder` has keeps its own.
  static func moveMissing(from: String, into folder: String) {
    for name in (try? Platform.directoryNames(from)) ?? [] {
      let (source, target) = (from + "/" + name, folder + "/" + name)
      if !Vault.exists(target) {
        rename(source, target)
      } else if Platform.isFolder(source) && Platform.isFolder(target) {
        moveMissing(from: source, into: target)
      }
    }
  }

  /// Whether `move` brings nothing to a location that was not there when the restore began
  /// (and is not now), while another location of the save is or gets content: its folder is
  /// then not made. (When none is, the empty folders are the save restored: an empty save.)
  static func placesNothing(_ move: RestoreJournal.Move, of journal: RestoreJournal) -> Bool {
    guard !journal.isOneFolder, move.aside == nil, !Vault.exists(move.destination),
      move.digest == nil || move.digest == ContentDigest.of([]),
      (try? FileManager.default.contentsOfDirectory(atPath: move.staging))?.isEmpty == true
    else { return false }
    return journal.moves.contains { other in
      other.destination != move.destination
        && (Vault.exists(other.destination)
          || (try? FileManager.default.contentsOfDirectory(atPath: other.staging))?.isEmpty == false)
    }
  }
}

extension Vault {
  /// Whether a location swapped in no longer holds what the restore brought it (`move.digest`):
  /// the game wrote to it since. Missing, it was written since only when the restore brought it
  /// something.
  func isChangedSince(_ move: RestoreJournal.Move, target: Target) -> Bool {
    guard let digest = move.digest,
      let live = try? SaveScan.scan(
        locations: [(move.name, move.destination)], patterns: move.patterns,
        isExcluded: Self.exclusion(target)),
      let entries = try? Fingerprint(scan: live).contentEntries()
    else {
      return move.digest != nil && move.digest != ContentDigest.of([]) && !Self.exists(move.destination)
    }
    return ContentDigest.of(entries) != digest
  }
}
