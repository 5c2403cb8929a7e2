import Foundation

/// What `restore --undo` did.
public struct UndoReport: Encodable, Sendable, Equatable {
  /// What became of this device's agreement with the cloud.
  public enum Agreement: String, Encodable, Sendable {
    /// Put back as it was before the restore: `status` says what it said then.
    case restored
    /// Forgotten: there was none before the restore, it is not known, or it would make the
    /// next sync restore the undone cloud save again. The next `status` compares the save
    /// with the cloud's latest: the same content is in-sync, different content a conflict.
    case cleared
  }

  public var game: String
  public var saveDir: String
  /// The pre-restore copy put back.
  public var restoredCopy: String
  public var files: Int
  public var bytes: Int64
  /// Where the save this undo replaced is kept (a second undo puts it back).
  public var preRestoreCopy: String?
  public var agreement: Agreement
  /// The archive agreed on now (nil when cleared).
  public var agreedArchive: String?
  /// Why the agreement is what it is.
  public var note: String
}

extension Vault {
  /// Puts back the save as it was just before the last restore (by `restore`, `sync` or
  /// `wrap`), from its pre-restore copy, through the same verified extraction and swap as a
  /// restore. The save it replaces is kept as a new pre-restore copy, so a second undo puts
  /// that back (undo undoes itself). The agreement with the cloud returns to what it was
  /// before the restore, so `status` says what it said then (a conflict stays a conflict,
  /// local-changed stays local-changed); except that when the restore had brought the cloud's
  /// newer save over an unchanged local one, the agreement is forgotten instead, so the next
  /// sync asks rather than restoring that save again.
  ///
  /// Throws `VaultError.nothingToUndo` when there is no copy to put back.
  public func undoRestore(_ target: Target) throws -> UndoReport {
    let held = try lock(target, purpose: "restore --undo")
    defer { withExtendedLifetime(held) {} }
    try recoverInterruptedRestore(target)
    let folder = preRestoreStore().root + "/" + target.game
    let copies = preRestoreCopies(of: target)
    let point: UndoPoint
    let source: PreRestoreCopy
    if let saved = undoJournal.load(game: target.game) {
      // The replaced save is a copy in the pre-restore folder, or a folder kept beside the save.
      guard let copy = saved.copy ?? saved.keptFolder.map({ ($0 as NSString).lastPathComponent }) else {
        throw VaultError.nothingToUndo(
          game: target.game,
          reason: "the last restore replaced no save (the save directory was missing or empty)")
      }
      guard let found = copies.first(where: { $0.name == copy }) else {
        throw VaultError.nothingToUndo(
          game: target.game,
          reason: "the last restore's pre-restore copy '\(saved.keptFolder ?? folder + "/" + copy)' is gone")
      }
      (point, source) = (saved, found)
    } else {
      guard let newest = copies.first else { throw VaultError.nothingToUndo(game: target.game, reason: nil) }
      verbose("no undo point noted for '\(target.game)': putting back the newest pre-restore copy")
      point = UndoPoint(
        game: target.game, copy: newest.name, container: target.agreementKey, restoredArchive: nil,
        madeAtMs: 0)
      source = newest
    }
    var outcome: (UndoReport.Agreement, String)?
    let restored = try putBack(source, target: target, point: point) {
      outcome = try putBackAgreement(point, knownBefore: point.madeAtMs != 0, target: target)
    }
    guard let (agreement, note) = outcome else {
      throw VaultError.nothingToUndo(game: target.game, reason: nil)
    }
    verbose("agreement: \(note)")
    return UndoReport(
      game: target.game, saveDir: target.saveDirectory, restoredCopy: source.path,
      files: restored.files,
      bytes: restored.bytes, preRestoreCopy: restored.preRestoreCopy, agreement: agreement,
      agreedArchive: agreement == .restored ? point.record?.archive : nil, note: note)
  }

  /// Restores the pre-restore copy `source` through the verified extraction and swap of a
  /// restore. A copy that is a folder is packed first into a scratch archive under
  /// `$XDG_DATA_HOME/savevault/undo-scratch/` (removed afterwards, or by the next command's
  /// recovery when killed); the folder itself stays
  /// where it is, so nothing an archive cannot hold is lost from it.
  private func putBack(
    _ source: PreRestoreCopy, target: Target, point: UndoPoint, beforeDone: () throws -> Void
  ) throws -> RestoreReport {
    guard source.isFolder else {
      let store = preRestoreStore()
      return try performRestore(
        target, container: store, selection: .named(source.name),
        seen: look(target, container: store, checkingListing: false), undoing: point,
        beforeDone: beforeDone)
    }
    // Recovery (at the start of undo) removed what a killed undo left.
    let scratch = FolderContainer(root: Self.undoScratch(paths), createsRoot: true)
    defer { removeUndoScratch(game: target.game) }
    guard let scan = try SaveScan.scan(source.path) else {
      throw VaultError.nothingToUndo(
        game: target.game, reason: "the pre-restore copy '\(source.path)' is gone")
    }
    let (packed, _) = try store(
      scan, game: target.game, device: target.device, in: scratch, locations: target.archiveLocations,
      reportsProgress: false)
    // What no archive holds (symlinks leading outside, FIFOs) comes back from the folder itself.
    return try performRestore(
      target, container: scratch, selection: .named(packed.name),
      seen: look(target, container: scratch, checkingListing: false), undoing: point,
      carrying: (source.path, scan.skipped), beforeDone: beforeDone)
  }

  /// Sets the agreement `point` noted back, or forgets it (see `undoRestore`).
  func putBackAgreement(_ point: UndoPoint, knownBefore: Bool, target: Target) throws -> (
    UndoReport.Agreement, String
  ) {
    let game = point.game
    guard let record = point.record else {
      agreements.remove(game: game, container: point.container)
      return (
        .cleared,
        knownBefore
          ? "there was no agreement before that restore; the next status compares the save with the cloud"
          : "the agreement before that restore is not known; the next status compares the save with the cloud"
      )
    }
    try agreements.putBack(record, indexText: point.index ?? "")
    // Only a restore that brought a newer archive than the agreed one (not a rollback to an
    // older one) would be restored again by the agreement put back.
    guard let archive = point.restoredArchive, archive != record.archive,
      (ArchiveName(parsing: archive)?.createdMs ?? .max) > (record.newestKnownMs ?? .min),
      let scan = try scanSave(target),
      try !Fingerprint(scan: scan).hasChanged(
        since: record, index: { agreements.loadIndex(game: game, container: point.container) })
    else {
      return (.restored, "back to '\(record.archive)', as before the restore")
    }
    // The save put back is the agreed one and the restore had brought a newer cloud save: the
    // old agreement would say cloud-changed, and the next sync would restore it again.
    agreements.remove(game: game, container: point.container)
    return (
      .cleared,
      "forgotten, so that the next sync asks about '\(archive)' instead of restoring it again"
    )
  }
}
