import Foundation

/// What SaveVault does with a location of one shape (`SaveLocation.Shape`), from scanning it to
/// putting a restored copy in its place and telling, after an interrupted restore, whether the
/// game wrote to it since. One type per shape: the scan and the restore ask the location's
/// shape for its type once (`SaveLocation.Shape.kind`) and never switch on it again, so a new
/// shape is one more type and the cases the compiler then asks for.
///
/// (A location's fingerprint is its scan's: a shape changes what is scanned, not how it is
/// hashed.)
protocol LocationShape {
  /// Makes the location ready to be scanned (a registry export made again from the prefix).
  func prepareScan(_ location: SaveLocation) throws
  /// Which files of its folder a scan reads; nil for all of it. A location scanned by a pattern
  /// holds its files only, not the folders on their way.
  var pattern: FilePattern? { get }
  /// Whether a restore gives it an aside name even when its folder is not there: its files may
  /// appear there before they are set aside.
  var setsAsideAlways: Bool { get }
  /// Puts the location's part of the extraction (`step.content`) into a folder of its own
  /// beside its save; what it made is added to `made`. Returns its move, and the folders made to
  /// hold what was carried over from the save (part of the restored content). Throws, before
  /// anything changes, when the archive's part is not what such a location holds.
  func stage(_ step: StagingStep, in vault: Vault, made: inout [String]) throws -> (
    move: RestoreJournal.Move, carried: [ManifestEntry]
  )
  /// Refuses, before any swap, what would leave the location half restored (a prefix's file
  /// missing, a full disk).
  func checkBeforeSwap(_ move: RestoreJournal.Move, target: Target, archive: String, in vault: Vault) throws
  /// Puts the staged `move` in place of the save. `isTaken` says whether a path inside the
  /// location is left as it is (excluded, or another location's).
  func swap(
    _ move: RestoreJournal.Move, of journal: RestoreJournal, isTaken: (String) -> Bool, in vault: Vault)
    throws
  /// After every location's swap (done again after a kill, it changes nothing more).
  func afterSwaps(_ move: RestoreJournal.Move, of journal: RestoreJournal, target: Target, in vault: Vault)
    throws
  /// Whether the game wrote to the location after the restore `move` belongs to was
  /// interrupted.
  func isWrittenSince(_ move: RestoreJournal.Move, target: Target, in vault: Vault) -> Bool
}

extension LocationShape {
  func prepareScan(_ location: SaveLocation) throws {}
  var pattern: FilePattern? { nil }
  var setsAsideAlways: Bool { false }
  func checkBeforeSwap(_ move: RestoreJournal.Move, target: Target, archive: String, in vault: Vault) throws {
  }
  func afterSwaps(_ move: RestoreJournal.Move, of journal: RestoreJournal, target: Target, in vault: Vault)
    throws
  {}
}

extension SaveLocation.Shape {
  /// The type that handles a location of this shape: the one switch on it.
  var kind: any LocationShape {
    switch self {
    case .folder: FolderShape()
    case .files(let pattern): FilesShape(files: pattern)
    case .registry(let source): RegistryShape(source: source)
    }
  }
}

/// What staging one location of a restore works from.
struct StagingStep {
  /// The location, here.
  var location: SaveLocation
  /// Its top-level name in the archive ("" for the whole archive).
  var archiveName: String
  /// Where its save really is (`location.path` with links resolved).
  var destination: String
  /// The folder that holds it, where its staging folder goes.
  var parent: String
  /// The whole extraction, and its entries.
  var extraction: Extractor.Extraction
  var extracted: String
  /// The archive, read again when a location's part must be extracted on another filesystem.
  var source: (archive: StoredArchive, container: any Container)
  var target: Target
  /// The save as the restore found it.
  var current: SaveScan?
  /// The folder an undo puts back, and what it holds that no archive does.
  var carrying: (folder: String, skipped: [(path: String, reason: String)])?
  /// Files in the location's folder that this device's list did not take before the restore
  /// took the folder whole: they stay, unless the archive brings them.
  var untaken: [String]
  /// The archive's names of other spellings of the location's folder (a Wine prefix's `My
  /// Games` and `my games`): what they hold comes in too, where the location has nothing.
  var spellings: [String]
  /// Whether a path inside the location is left out by the game's `exclude` globs.
  var isExcluded: (String) -> Bool

  /// The location's part of the extraction, where the extraction put it.
  var content: String { extracted + "/" + archiveName }
}
