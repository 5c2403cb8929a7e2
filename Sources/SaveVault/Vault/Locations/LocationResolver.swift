import Foundation

/// The one resolver of a game's locations on this device: every command's target comes from
/// `resolvedLocations`, and nothing else adds to its list or reshapes it. Its sources, in order:
///
/// 1. The game's own list: its config entry's `saveDir` and `locations`, each placeholder
///    resolved in this machine's launcher layouts by the rules of docs/discovery.md ("Where a
///    location is put": native and Flatpak Steam, Heroic, Legendary, Lutris, shortcuts, the
///    config's roots and prefixes), nested ones merged (`Target.resolve`, `Target.locations`);
///    for a game not in the config, what discovery finds of it (`Vault.detectedEntry`).
/// 2. A listed path that is a file here now: that one file (`Target.resolvingFiles`).
/// 3. The agreement: each agreed location matched to the list (one folder is one location,
///    `ArchiveLocation.match`) takes the wider shape (`SaveLocation.widened`); one the list
///    lacks that a restore placed is part of the save (`Target.including`).
/// 4. An unfinished restore: the locations its journal placed (`withJournalLocations`, in
///    `Vault/Restore`, when the restore is finished).
extension Vault {
  /// The target's locations from the game's list, what is a file here now, and the agreement.
  func resolvedLocations(_ target: Target) -> Target {
    withAgreedLocations(target.resolvingFiles())
  }

  /// The target with the agreed archive's locations that this device keeps although the game's
  /// own list lacks them (a restore placed them where their portable form says): they are part
  /// of the save here from then on, so every scan has them, their changes upload, and the next
  /// archive holds them. An agreed location is the game's own when it matches one of the list
  /// (`ArchiveLocation.match`), and it takes the wider shape of the two (`widened`): what
  /// another device's list takes of a folder is kept here too. A location the agreed archive
  /// holds as a location of files that the list names as a path (a file not made yet on this
  /// device) is that location of files. A one-folder game's archives hold its folder whole: it
  /// has none.
  private func withAgreedLocations(_ target: Target) -> Target {
    guard !target.isOneFolder, let record = agreements.load(target), let agreed = record.archiveLocations,
      record.isAbout(saveDir: target.saveDirectory, realSaveDir: Platform.realPath(target.saveDirectory))
    else { return target }
    var holding = target
    for agreedLocation in agreed {
      if case .one(let found) = agreedLocation.archived.match(in: holding.locations),
        let index = holding.locations.firstIndex(of: found)
      {
        holding.locations[index] = found.widened(by: agreedLocation.archived)
      }
    }
    return holding.including(
      agreed.filter { $0.archived.match(in: holding.locations) == .none }.compactMap(\.here))
  }
}
