import Foundation

/// What a restore is about to do, written before its first rename and removed when it is
/// done: for each location, the folder extracted for it, the save folder it replaces and where
/// the old one goes. A restore killed anywhere after it is written leaves it behind, and the
/// next command of that game finishes or undoes the restore exactly (`Vault.finish`).
///
/// A one-folder game's journal is `$XDG_STATE_HOME/savevault/restores/<game>.json`, a game of
/// several locations' `restores-locations/<game>.json`. Both files are read in the shape earlier
/// versions wrote too (one folder's `destination`, `staging` and `aside`; or `moves`), so a
/// restore killed under one of them is still finished.
struct RestoreJournal: GameRecord, Equatable {
  /// One folder put in place of a location's save folder.
  struct Move: Equatable {
    /// The location's top-level name in the archive ("" for a one-folder game's).
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
    /// What the location is: a whole folder, some files of it (moved one by one, `aside`
    /// holding the old ones, the folder staying), or registry keys (an export folder swapped
    /// like a folder, then merged into the prefix's file).
    var shape: SaveLocation.Shape = .folder
    /// For a location of files: how many files were staged (fewer left in `staging` means
    /// they have begun to be put in place).
    var stagedFiles: Int?
  }

  /// When the restore is committed, and so whether an interrupted one is finished or undone.
  enum Commit: String, Codable {
    /// At the swap of its one folder: killed before it, the old save is put back.
    case swap
    /// Once the journal is written (several folders cannot be swapped at once): killed after,
    /// every move is finished.
    case journal
  }

  var game: String
  /// The agreement's container key of the target the restore ran for.
  var container: String
  var archive: String
  var moves: [Move]
  /// The content digest of the restored save, under this device's location names.
  var contentDigest: String
  var commit: Commit
  /// Set when the restore is `restore --undo` putting this undo point back: a finished swap
  /// then puts back the point's agreement instead of agreeing on `archive` (a pre-restore copy,
  /// never a cloud archive).
  var undoing: UndoPoint? = nil
  /// The cloud's latest, when the archive restored is an older one chosen on purpose.
  var rolledBackFrom: String? = nil
  /// What the archive restored descends from (its header's `ancestry`; nil when it does not say).
  var ancestry: [String]? = nil
  /// The archive's locations the game's own list lacks, placed by this restore: part of the
  /// save it restores.
  var added: [AgreedLocation]? = nil
  /// The archive's locations this restore left where they are (their place here is another of
  /// the archive's): the agreement records them, so that the next upload keeps them.
  var unplaced: [AgreedLocation]? = nil
}

extension RestoreJournal.Move: Codable {
  // A location of files is written as `files`, one of registry keys as `registry` (journals of
  // earlier versions have neither for those: `withShapes(of:)`).
  private enum Key: String, CodingKey {
    case name, destination, staging, aside, digest, files, registry, stagedFiles
  }

  init(from decoder: any Decoder) throws {
    let values = try decoder.container(keyedBy: Key.self)
    name = try values.decode(String.self, forKey: .name)
    destination = try values.decode(String.self, forKey: .destination)
    staging = try values.decode(String.self, forKey: .staging)
    aside = try values.decodeIfPresent(String.self, forKey: .aside)
    digest = try values.decodeIfPresent(String.self, forKey: .digest)
    stagedFiles = try values.decodeIfPresent(Int.self, forKey: .stagedFiles)
    if let pattern = try values.decodeIfPresent(FilePattern.self, forKey: .files) {
      shape = .files(pattern)
    } else if let source = try values.decodeIfPresent(RegistrySource.self, forKey: .registry) {
      shape = .registry(source)
    }
  }

  func encode(to encoder: any Encoder) throws {
    var values = encoder.container(keyedBy: Key.self)
    try values.encode(name, forKey: .name)
    try values.encode(destination, forKey: .destination)
    try values.encode(staging, forKey: .staging)
    try values.encodeIfPresent(aside, forKey: .aside)
    try values.encodeIfPresent(digest, forKey: .digest)
    try values.encodeIfPresent(stagedFiles, forKey: .stagedFiles)
    switch shape {
    case .folder: break
    case .files(let pattern): try values.encode(pattern, forKey: .files)
    case .registry(let source): try values.encode(source, forKey: .registry)
    }
  }
}

extension Vault {
  /// The target with the locations the restore `journal` placed: part of the save it restores
  /// (the last of the sources of a game's locations, `resolvedLocations`).
  func withJournalLocations(_ target: Target, journal: RestoreJournal) -> Target {
    target.including(journal.added?.compactMap(\.here) ?? [])
  }
}

extension RestoreJournal {
  /// The journal with each move of registry keys known as one: a journal written before moves
  /// said so names them only by their export folder, one of the target's locations.
  func withShapes(of target: Target) -> RestoreJournal {
    var journal = self
    for index in journal.moves.indices where journal.moves[index].shape == .folder {
      if let location = target.locations.first(where: { location in
        location.registrySource != nil
          && [location.path, Platform.resolvedPath(location.path)].contains(journal.moves[index].destination)
      }) {
        journal.moves[index].shape = location.shape
      }
    }
    return journal
  }
}

extension RestoreJournal {
  private enum Key: String, CodingKey {
    case game, container, archive, moves, contentDigest, commit, undoing, rolledBackFrom, ancestry, added
    case unplaced
    // A one-folder restore's journal as earlier versions wrote it.
    case destination, staging, aside
  }

  init(from decoder: any Decoder) throws {
    let values = try decoder.container(keyedBy: Key.self)
    game = try values.decode(String.self, forKey: .game)
    container = try values.decode(String.self, forKey: .container)
    archive = try values.decode(String.self, forKey: .archive)
    contentDigest = try values.decode(String.self, forKey: .contentDigest)
    undoing = try values.decodeIfPresent(UndoPoint.self, forKey: .undoing)
    rolledBackFrom = try values.decodeIfPresent(String.self, forKey: .rolledBackFrom)
    ancestry = try values.decodeIfPresent([String].self, forKey: .ancestry)
    added = try values.decodeIfPresent([AgreedLocation].self, forKey: .added)
    unplaced = try values.decodeIfPresent([AgreedLocation].self, forKey: .unplaced)
    if let moves = try values.decodeIfPresent([Move].self, forKey: .moves) {
      self.moves = moves
      commit = try values.decodeIfPresent(Commit.self, forKey: .commit) ?? .journal
    } else {
      moves = [
        Move(
          name: "", destination: try values.decode(String.self, forKey: .destination),
          staging: try values.decode(String.self, forKey: .staging),
          aside: try values.decodeIfPresent(String.self, forKey: .aside), digest: contentDigest)
      ]
      commit = .swap
    }
  }

  func encode(to encoder: any Encoder) throws {
    var values = encoder.container(keyedBy: Key.self)
    try values.encode(game, forKey: .game)
    try values.encode(container, forKey: .container)
    try values.encode(archive, forKey: .archive)
    try values.encode(moves, forKey: .moves)
    try values.encode(contentDigest, forKey: .contentDigest)
    try values.encode(commit, forKey: .commit)
    try values.encodeIfPresent(undoing, forKey: .undoing)
    try values.encodeIfPresent(rolledBackFrom, forKey: .rolledBackFrom)
    try values.encodeIfPresent(ancestry, forKey: .ancestry)
    try values.encodeIfPresent(added, forKey: .added)
    try values.encodeIfPresent(unplaced, forKey: .unplaced)
  }
}

/// The journals of restores under way, one per game: where a one-folder game's is written, and
/// where a game of several locations' is.
struct RestoreJournalStore {
  var oneFolder: GameRecordStore<RestoreJournal>
  var locations: GameRecordStore<RestoreJournal>

  /// The game's journal, wherever it is.
  func load(game: String) -> RestoreJournal? {
    oneFolder.load(game: game) ?? locations.load(game: game)
  }

  func save(_ journal: RestoreJournal) throws {
    try (journal.commit == .swap ? oneFolder : locations).save(journal)
  }

  func remove(game: String) {
    oneFolder.remove(game: game)
    locations.remove(game: game)
  }
}

extension Vault {
  /// The journals of restores under way, one per game.
  var restoreJournals: RestoreJournalStore {
    RestoreJournalStore(
      oneFolder: GameRecordStore(directory: paths.stateDirectory + "/restores"),
      locations: GameRecordStore(directory: paths.stateDirectory + "/restores-locations"))
  }
}
