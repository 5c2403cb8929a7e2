import Foundation

/// A pre-restore copy packed from the save directory on a second thread while the archive is
/// extracted on the first, so that restore reads the old save and writes the new one side by
/// side instead of one after the other.
///
/// The copy is kept only when, after the swap, the replaced folder still matches what was
/// packed (the same metadata digest as the fingerprint's fast path, and every file was checked
/// for changes while it was read); otherwise the replaced folder itself is packed, as before.
/// A restore that replaces nothing deletes the copy (the save it holds is still in place).
final class EarlyPreRestoreCopy: @unchecked Sendable {
  /// The save as it was scanned before the extraction: what is packed.
  let snapshot: Snapshot
  private let finished = DispatchSemaphore(value: 0)
  /// The copy's name; written by the packing thread before it signals `finished`.
  private var name: String?
  /// The content the copy holds (its manifest), written with `name`.
  private(set) var contentDigest: String?
  private var isJoined = false

  init(vault: Vault, snapshot: Snapshot, target: Target) {
    self.snapshot = snapshot
    let thread = Thread { [self] in
      defer { finished.signal() }
      let keeper = vault.preRestoreStore(creating: true)
      // Named after every copy before it, so the newest copy is the last one kept, whatever
      // the clock; finished even after a signal, like any pre-restore copy.
      let newest = (try? keeper.archivesNewestFirst(game: target.game))?.first?.modifiedMs
      var finishing = vault
      finishing.context.interruption = Interruption()
      if let (stored, manifest) = try? finishing.store(
        snapshot, game: target.game, device: target.device, in: keeper,
        notBefore: newest.map { $0 + 1 } ?? Int64.min, reportsProgress: false)
      {
        name = stored.name
        contentDigest = ContentDigest.of(manifest.entries)
      }
    }
    thread.start()
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
  /// Starts packing the pre-restore copy of `current` on a second thread, when a copy can hold
  /// it whole (something to keep, and nothing that an archive cannot hold).
  func startPreRestoreCopy(of current: Snapshot?, target: Target) -> EarlyPreRestoreCopy? {
    guard let current, !current.isEmpty, current.skipped.isEmpty else { return nil }
    return EarlyPreRestoreCopy(vault: self, snapshot: current, target: target)
  }

  /// Keeps the save a restore replaced, now set aside at `aside`: the early copy when the
  /// folder still matches it (then the folder is removed), else `keepReplaced(_:target:)`.
  /// Returns the copy's path.
  func keepReplaced(
    _ aside: String, target: Target, early: EarlyPreRestoreCopy?, whenKept: (String?) -> Void = { _ in }
  ) -> String? {
    // The copy stands for the replaced folder only when it holds the same bytes: the same
    // metadata is not enough (a rewrite with the same size and time, a coarse clock), so every
    // file of the folder is hashed again; a read, still cheaper than packing and flushing.
    if let early, let name = early.wait(), let replaced = try? Snapshot.scan(aside),
      replaced.skipped.isEmpty, replaced.metadataDigest == early.snapshot.metadataDigest,
      let content = try? Fingerprint(snapshot: replaced).contentEntries(),
      ContentDigest.of(content) == early.contentDigest
    {
      let path = preRestoreStore().root + "/" + target.game + "/" + name
      whenKept(path)
      removeKept(aside, game: target.game)
      verbose("kept the replaced save as '\(path)'")
      return path
    }
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
