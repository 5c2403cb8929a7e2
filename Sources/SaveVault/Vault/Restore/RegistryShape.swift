import Foundation

/// A location of registry keys in a Wine prefix: its folder is SaveVault's export of the keys
/// (`RegistryExport`), made again before each scan, staged and swapped in like a folder; after
/// every swap its keys are merged into the prefix's file.
struct RegistryShape: LocationShape {
  var source: RegistrySource

  func prepareScan(_ location: SaveLocation) throws {
    try RegistryExport.refresh(source, into: location.path)
  }

  func stage(_ step: StagingStep, in vault: Vault, made: inout [String]) throws -> (
    move: RestoreJournal.Move, carried: [ManifestEntry]
  ) {
    var staged = try FolderShape().stage(step, in: vault, made: &made)
    staged.move.shape = .registry(source)
    return staged
  }

  /// Refuses (exit 2) to restore keys into a prefix that has no such file yet (a prefix Wine
  /// never started): Wine makes the file whole on its first start, and a file of only the
  /// game's keys would stand in its way. Refuses (exit 1) when the prefix's disk has no room
  /// for the merged file beside the one it replaces (an SD card full): the merge comes after
  /// every swap, and a save whose files are restored but whose keys are not would be half of
  /// each.
  func checkBeforeSwap(_ move: RestoreJournal.Move, target: Target, archive: String, in vault: Vault) throws {
    let bringsKeys = !((try? FileManager.default.contentsOfDirectory(atPath: move.staging)) ?? []).isEmpty
    if bringsKeys, !FileManager.default.fileExists(atPath: source.file) {
      throw VaultError.locationNotHere(
        game: target.game, archive: archive, location: move.name, madeAt: source.manifestKey,
        why: "the prefix '\(source.prefix)' has no \(source.key.file.rawValue) yet: start the game once")
    }
    guard let (_, merged) = try merged(export: move.staging),
      let free = Platform.freeBytes(at: source.prefix)
    else { return }
    // The merged file is written whole beside the old one before it replaces it; a block or so
    // more for the filesystem's own.
    let needed = Int64(merged.count) + 64 << 10
    if free < needed {
      throw VaultError.io(
        path: source.file,
        reason:
          "no space left on its device for the restored keys (\(needed) bytes needed, \(free) free): nothing was restored; free some space there and retry"
      )
    }
  }

  func swap(
    _ move: RestoreJournal.Move, of journal: RestoreJournal, isTaken: (String) -> Bool, in vault: Vault
  ) throws {
    try FolderShape().swap(move, of: journal, isTaken: isTaken, in: vault)
  }

  /// Merges the restored export into the prefix's file: the game's keys (and subkeys) become
  /// the export's, those it lacks removed, every other key byte for byte. The whole file is
  /// kept first in `$XDG_DATA_HOME/savevault/registry-before-restore/`, then the merged one
  /// renamed over it. Done again after a kill, it changes nothing more.
  func afterSwaps(_ move: RestoreJournal.Move, of journal: RestoreJournal, target: Target, in vault: Vault)
    throws
  {
    guard let (original, merged) = try merged(export: move.destination) else { return }
    let kept =
      vault.paths.dataDirectory + "/registry-before-restore/" + target.game + "/" + journal.archive + "/"
      + move.name + "-" + source.key.file.rawValue
    if !FileManager.default.fileExists(atPath: kept) {
      do { try AtomicFile.write(original, to: kept) } catch {
        throw VaultError.preRestoreCopyFailed(
          game: target.game, folder: (kept as NSString).deletingLastPathComponent, reason: "\(error)")
      }
    }
    vault.context.failpoints.reach("restore.registry-merging")
    do { try AtomicFile.write(Data(merged), to: source.file) } catch {
      throw VaultError.io(path: source.file, reason: "the restored keys cannot be written: \(error)")
    }
  }

  /// Whether the game wrote its keys in the prefix's file since the restore of `move`, the
  /// location's export, began: they hold neither what they held then (the export as the
  /// restore found it, or as it set it aside) nor, once the export is swapped, what the restore
  /// merges (a restore stopped after its merge, and the game run since, is no merge to do
  /// again over what the game wrote).
  func isWrittenSince(_ move: RestoreJournal.Move, target: Target, in vault: Vault) -> Bool {
    func keys(_ folder: String) -> [[UInt8]] {
      RegistryExport.keys(inFile: folder + "/" + source.key.file.rawValue, of: source)
    }
    let live = RegistryExport.keys(inFile: source.file, of: source)
    // No export folder when the restore began: the prefix had none of the keys.
    guard let aside = move.aside else {
      return Vault.exists(move.staging) ? !live.isEmpty : live != keys(move.destination) && !live.isEmpty
    }
    if Vault.exists(move.staging) { return live != keys(Vault.exists(aside) ? aside : move.destination) }
    if live == keys(move.destination) { return false }
    // Set aside and kept already: the restore merged its keys before that.
    guard Vault.exists(aside) else { return true }
    return live != keys(aside)
  }

  /// The prefix's file as it is and merged with the export in `folder` (the game's keys as the
  /// export has them, none when it has no file); nil when the prefix has no such file (left to
  /// Wine) or merging changes nothing.
  private func merged(export folder: String) throws -> (Data, [UInt8])? {
    let exported = folder + "/" + source.key.file.rawValue
    let export: WineRegistry?
    do {
      export = try FileManager.default.contents(atPath: exported).map { try WineRegistry.parse($0) }
    } catch {
      throw VaultError.io(path: exported, reason: "the restored registry keys cannot be read: \(error)")
    }
    // A prefix with no such file (checked before the restore began) is left to Wine.
    guard let original = FileManager.default.contents(atPath: source.file) else { return nil }
    let file: WineRegistry
    do { file = try WineRegistry.parse(original) } catch {
      throw VaultError.io(path: source.file, reason: "not a Wine registry file SaveVault reads: \(error)")
    }
    // Only the game's keys: an archive's export holding others does not reach the file.
    let sections = export.map(source.sections(of:)) ?? []
    let merged = file.replacing(keys: source.key.paths, with: sections).bytes
    return Array(original) == merged ? nil : (original, merged)
  }
}
