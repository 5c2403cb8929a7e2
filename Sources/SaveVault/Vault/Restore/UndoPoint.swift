import Foundation

/// What `restore --undo` needs to put back the last restore of a game: the pre-restore copy
/// that holds the save the restore replaced, and the agreement (agreement) this device
/// had before it. Every restore, and every undo, rewrites it:
/// `$XDG_STATE_HOME/savevault/undo/<game>.json`.
struct UndoPoint: GameRecord, Equatable, Sendable {
  var game: String
  /// The pre-restore copy (a name in the pre-restore store) of the replaced save; nil when
  /// nothing was replaced (the save directory was missing or empty) or it could not be packed.
  var copy: String?
  /// Where the replaced save was kept instead, when it could not be packed.
  var keptFolder: String?
  /// The agreement key of the container whose agreement the restore changed.
  var container: String
  /// The cloud archive the restore brought; nil when the restore was itself an undo.
  var restoredArchive: String?
  /// The agreement before the restore (nil: there was none), and its index file's text.
  var record: Agreement?
  var index: String?
  var madeAtMs: Int64
}

extension AgreementStore {
  /// The raw text of an agreement's index file, if any.
  func indexText(game: String, container: String) -> String? {
    FileManager.default.contents(atPath: base(game: game, container: container) + ".index")
      .map { String(decoding: $0, as: UTF8.self) }
  }

  /// Puts an agreement back as it was: the index text, then the record.
  func putBack(_ record: Agreement, indexText: String) throws {
    let base = base(game: record.game, container: record.container)
    try AtomicFile.write(Data(indexText.utf8), to: base + ".index")
    try AtomicFile.write(JSONEncoder.stable.encode(record), to: base + ".json")
  }

  /// Forgets an agreement: the record first (it names the agreement), then the index.
  func remove(game: String, container: String) {
    let base = base(game: game, container: container)
    unlink(base + ".json")
    unlink(base + ".index")
  }
}

extension Vault {
  /// The undo points, one per game.
  var undoJournal: GameRecordStore<UndoPoint> { GameRecordStore(directory: paths.stateDirectory + "/undo") }

  /// Notes what a restore that just swapped the save in would need to be undone: the copy
  /// `keepReplaced` made (or the folder it kept) and the agreement about `container` as it
  /// is before the restore records a new one. Call before the agreement changes. A failure to
  /// write removes the old undo point (which would name an older restore) and warns.
  func noteUndoPoint(_ target: Target, kept: String?, restoredArchive: String?, container: String) {
    let folder = preRestoreStore().root + "/" + target.game + "/"
    let copy = kept.flatMap { $0.hasPrefix(folder) ? String($0.dropFirst(folder.count)) : nil }
    let point = UndoPoint(
      game: target.game, copy: copy, keptFolder: copy == nil ? kept : nil, container: container,
      restoredArchive: restoredArchive, record: agreements.load(game: target.game, container: container),
      index: agreements.indexText(game: target.game, container: container), madeAtMs: context.clock())
    do {
      try undoJournal.save(point)
      verbose("noted the undo point of this restore: \(copy.map { "copy '\($0)'" } ?? "nothing to put back")")
    } catch {
      undoJournal.remove(game: target.game)
      context.log.warning("could not note how to undo this restore (\(error))")
    }
  }
}
