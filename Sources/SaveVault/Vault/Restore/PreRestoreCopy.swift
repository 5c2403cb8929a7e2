import Foundation

/// A pre-restore copy packed from the save directory on a second thread while the archive is
/// extracted on the first, so that restore reads the old save and writes the new one side by
/// side instead of one after the other. Only for a save on another filesystem than
/// `$XDG_DATA_HOME`: on the same one the replaced folder is moved there instead
/// (`keepByMoving`), which reads and writes nothing.
///
/// The copy is kept only when, after the swap, the replaced folder still matches what was
/// packed (the same metadata digest as the fingerprint's fast path, and every file was checked
/// for changes while it was read); otherwise the replaced folder itself is packed, as before.
/// A restore that replaces nothing deletes the copy (the save it holds is still in place).
final class EarlyPreRestoreCopy: @unchecked Sendable {
  /// The save as it was scanned before the extraction: what is packed.
  let scan: SaveScan
  private let finished = DispatchSemaphore(value: 0)
  /// The copy's name; written by the packing thread before it signals `finished`.
  private var name: String?
  /// The content the copy holds (its manifest), written with `name`.
  private(set) var contentDigest: String?
  /// Why packing failed, written instead of `name`.
  private(set) var failure: (any Error)?
  private var isJoined = false

  init(vault: Vault, scan: SaveScan, target: Target) {
    self.scan = scan
    let thread = Thread { [self] in
      defer { finished.signal() }
      let keeper = vault.preRestoreStore(creating: true)
      // Named after every copy before it, so the newest copy is the last one kept, whatever
      // the clock; finished even after a signal, like any pre-restore copy.
      let newest = vault.preRestoreCopies(game: target.game).first?.modifiedMs
      var finishing = vault
      finishing.context.interruption = Interruption()
      do {
        let (stored, manifest) = try finishing.store(
          scan, game: target.game, device: target.device, in: keeper,
          notBefore: newest.map { $0 + 1 } ?? Int64.min, locations: target.archiveLocations,
          reportsProgress: false)
        name = stored.name
        contentDigest = ContentDigest.of(manifest.entries)
      } catch {
        failure = error
      }
    }
    thread.start()
  }

  /// Whether the copy was made and holds exactly `replaced`, the save set aside: the same
  /// metadata is not enough (a rewrite with the same size and time, a coarse clock), so every
  /// file of it is hashed again; a read, still cheaper than packing and flushing.
  func holds(_ replaced: SaveScan) -> Bool {
    // The same entries, by metadata; or, for files moved one by one (a rename changes their
    // change time), the same paths and sizes.
    func shape(_ scan: SaveScan) -> [String] { scan.entries.map { "\($0.kind) \($0.path) \($0.size)" } }
    guard wait() != nil, replaced.metadataDigest == scan.metadataDigest || shape(replaced) == shape(scan),
      let content = try? Fingerprint(scan: replaced).contentEntries()
    else { return false }
    return ContentDigest.of(content) == contentDigest
  }

  /// Waits for the packing to end; returns the copy's name, or nil when it failed.
  func wait() -> String? {
    if !isJoined {
      finished.wait()
      isJoined = true
    }
    return name
  }
}

extension Vault {
  /// Starts packing the pre-restore copy of `current` on a second thread, when there is
  /// something to keep (what an archive cannot hold, symlinks leading outside and FIFOs, stays
  /// in the save directory: `carryOver`).
  func startPreRestoreCopy(of current: SaveScan?, target: Target) -> EarlyPreRestoreCopy? {
    guard let current, !current.isEmpty else { return nil }
    return EarlyPreRestoreCopy(vault: self, scan: current, target: target)
  }

  /// Keeps the save a restore replaced, now set aside at `aside`: the early copy when the
  /// folder still matches it (then the folder is removed), else `keepReplaced(_:target:)`.
  /// Returns the copy's path.
  func keepReplaced(
    _ aside: String, target: Target, early: EarlyPreRestoreCopy?, whenKept: (String?) -> Void = { _ in }
  ) -> String? {
    // The copy stands for the replaced folder only when it holds the same bytes.
    if let early, let name = early.wait(), let replaced = try? SaveScan.scan(aside),
      isCarried(replaced.skipped, from: aside, into: Platform.resolvedPath(target.saveDirectory)),
      early.holds(replaced)
    {
      let path = preRestoreStore().root + "/" + target.game + "/" + name
      whenKept(path)
      removeKept(aside, game: target.game)
      verbose("kept the replaced save as '\(path)'")
      return path
    }
    // The early copy stays: it holds the save as the restore found it, which the game changed
    // since; both states are the player's.
    return keepReplaced(aside, target: target, whenKept: whenKept)
  }

  /// Deletes the early copy of a restore that replaced nothing (refused, or failed before the
  /// swap): the save it holds is still in place.
  func discard(_ early: EarlyPreRestoreCopy?, target: Target) {
    guard let early, let name = early.wait() else { return }
    let store = preRestoreStore()
    try? store.delete(game: target.game, name: name)
    // Folders made for it alone go too (rmdir leaves any that hold other copies).
    rmdir(store.root + "/" + target.game)
    rmdir(store.root)
  }
}

/// One pre-restore copy of a game: a `.tar` packed from the replaced save, or, when the save
/// directory and `$XDG_DATA_HOME` share a filesystem, the replaced save folder itself, moved
/// there with `rename` (named like an archive without its ending:
/// `packsave-<UTC time>-<device>`).
struct PreRestoreCopy: Sendable, Equatable {
  var name: String
  /// The copy's full path.
  var path: String
  var modifiedMs: Int64
  var isFolder: Bool

  static func newestFirst(_ a: PreRestoreCopy, _ b: PreRestoreCopy) -> Bool {
    a.modifiedMs != b.modifiedMs ? a.modifiedMs > b.modifiedMs : a.name > b.name
  }
}

extension Vault {
  /// This game's pre-restore copies, archives and folders alike, newest first.
  func preRestoreCopies(game: String) -> [PreRestoreCopy] {
    let store = preRestoreStore()
    let folder = store.root + "/" + game
    var copies = ((try? store.catalog(game: game).all) ?? []).map {
      PreRestoreCopy(name: $0.name, path: folder + "/" + $0.name, modifiedMs: $0.modifiedMs, isFolder: false)
    }
    for name in (try? Platform.directoryNames(folder)) ?? [] {
      guard let parsed = ArchiveName(parsing: name + ArchiveName.suffix),
        parsed.description == name + ArchiveName.suffix
      else { continue }
      var info = stat()
      guard lstat(folder + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { continue }
      copies.append(
        PreRestoreCopy(name: name, path: folder + "/" + name, modifiedMs: parsed.createdMs, isFolder: true))
    }
    return copies.sorted(by: PreRestoreCopy.newestFirst)
  }

  /// Makes the game's folder of pre-restore copies, durably (a restore that moves the replaced
  /// save there must not find it missing after the swap). Throws when it cannot, before any
  /// swap. Returns its path.
  @discardableResult
  func preparePreRestoreFolder(_ target: Target) throws -> String {
    let root = preRestoreStore(creating: true).root
    let folder = root + "/" + target.game
    guard Platform.deviceID(folder) == nil else { return folder }
    do {
      try FileManager.default.createDirectory(
        atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw VaultError.preRestoreCopyFailed(
        game: target.game, folder: folder, reason: (error as NSError).localizedDescription)
    }
    // The folders just made must survive a power cut with the copy they hold.
    for made in [root, paths.dataDirectory, (paths.dataDirectory as NSString).deletingLastPathComponent] {
      try? Platform.syncDirectory(made)
    }
    return folder
  }

  /// This game's pre-restore copies (`preRestoreCopies(game:)`) and the replaced save folders
  /// kept beside its save directory when no copy could hold them (`.savevault-kept-…`), newest
  /// first: everything `status`, `list --pre-restore` and `restore --undo` know as the saves
  /// restores replaced.
  func preRestoreCopies(of target: Target) -> [PreRestoreCopy] {
    let parent = (Platform.resolvedPath(target.saveDirectory) as NSString).deletingLastPathComponent
    let prefix = Self.keptPrefix(target.game)
    let beside = ((try? Platform.directoryNames(parent)) ?? []).compactMap { name -> PreRestoreCopy? in
      guard name.hasPrefix(prefix), let ms = Int64(name.dropFirst(prefix.count)) else { return nil }
      return PreRestoreCopy(name: name, path: parent + "/" + name, modifiedMs: ms, isFolder: true)
    }
    return (preRestoreCopies(game: target.game) + beside).sorted(by: PreRestoreCopy.newestFirst)
  }

  /// Whether a save folder in `parent` can be kept by moving it into the pre-restore folder
  /// (one filesystem).
  func keepsByMoving(_ parent: String) -> Bool {
    // Tests of the packed copies turn moving off; see `keepByMoving`.
    guard !context.failpoints.isSetToError("restore.keep-by-moving") else { return false }
    var root = preRestoreStore().root
    while Platform.deviceID(root) == nil, root.count > 1 {
      root = (root as NSString).deletingLastPathComponent
    }
    return Platform.deviceID(parent).map { $0 == Platform.deviceID(root) } ?? false
  }

  /// Keeps the replaced save set aside at `aside` by moving the folder itself into the
  /// pre-restore folder: no byte is read or written, whatever the save's size. Only when both
  /// are on one filesystem (else nil, and the caller packs it). `whenKept` runs with the
  /// copy's path just before the move, so that the undo point never names an older copy
  /// (a kill between the two leaves the folder set aside, and the next run keeps it again).
  func keepByMoving(_ aside: String, target: Target, whenKept: (String?) -> Void) -> String? {
    guard let folder = try? preparePreRestoreFolder(target), let here = Platform.deviceID(aside),
      here == Platform.deviceID(folder),
      (try? context.failpoints.hit("restore.keep-by-moving")) != nil
    else { return nil }
    // Named after every copy before it, so the newest copy is the last one kept, whatever the clock.
    var createdMs = max(
      context.clock(), (preRestoreCopies(game: target.game).first?.modifiedMs ?? Int64.min) + 1)
    for _ in 1...Self.nameAttempts {
      let name = String(
        ArchiveName(createdMs: createdMs, device: target.device).description.dropLast(
          ArchiveName.suffix.count))
      let path = folder + "/" + name
      var info = stat()
      guard lstat(path, &info) != 0 else {
        createdMs += 1
        continue
      }
      whenKept(path)
      guard rename(aside, path) == 0 else { return nil }
      try? Platform.syncDirectory(folder)
      try? Platform.syncDirectory((aside as NSString).deletingLastPathComponent)
      verbose("kept the replaced save as '\(path)'")
      return path
    }
    return nil
  }
}
