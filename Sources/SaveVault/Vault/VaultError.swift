/// Failures of a use case that are neither the container's nor the archive's.
public enum VaultError: AdvisedError, Equatable, Sendable {
  /// The save directory does not exist.
  case saveDirectoryMissing(path: String)
  /// The save directory has nothing in it to back up.
  case saveDirectoryEmpty(path: String)
  /// The save directory is the root of a mount, which a restore cannot replace.
  case saveDirectoryIsMountPoint(path: String)
  /// The save directory is missing and the nearest folder that exists is on another
  /// filesystem than the save was: its drive is not mounted, and a restore would write the
  /// save onto the wrong one.
  case saveDriveNotMounted(path: String, nearest: String)
  /// The container holds no backup of this game.
  case noBackups(game: String, container: String)
  /// Another SaveVault process holds this game's lock.
  case busy(game: String, holder: String, lockPath: String)
  /// `wrap` could not start the game.
  case gameNotStarted(command: String, reason: String)
  /// A local file operation failed.
  case io(path: String, reason: String)
  /// The save a restore would replace could not be kept first (no room for its pre-restore
  /// copy): nothing was changed.
  case preRestoreCopyFailed(game: String, folder: String, reason: String)
  /// `restore --undo` found no pre-restore copy to put back (with why, when known).
  case nothingToUndo(game: String, reason: String?)
  /// A location of a game of several locations is gone although it held files when this
  /// device last agreed with the cloud: nothing was uploaded.
  case locationMissing(game: String, path: String)
  /// An archive holds a location of the game that has no place on this machine: nothing was
  /// restored.
  case locationNotHere(game: String, archive: String, location: String, madeAt: String, why: Advised)
  /// Save locations that discovery finds for the game here hold files the game's own list of
  /// locations leaves out (and its `exclude` does not name): nothing was uploaded, since the
  /// archive would look whole without them. `title` is the game's title in the manifest.
  case locationsLeftOut(game: String, title: String, locations: [DetectedLocation])
  /// An upload would leave out locations of the archive it follows that this device has no
  /// place for (their portable forms), because that archive cannot be read to carry them
  /// forward: nothing was uploaded.
  case locationNotCarried(game: String, archive: String, locations: [String], reason: String)
  /// A restore of registry keys was refused: a running Wine program (`holder`) has the
  /// prefix's registry in memory and would write its own over the restored keys when it ends.
  case prefixInUse(game: String, prefix: String, holder: String)
  /// A killed restore of the game could not be finished or undone (`reason`): nothing was
  /// synced, since the save is half restored. `places` holds what it left (the files set aside,
  /// those not put in yet).
  case restoreUnfinished(game: String, archive: String, places: [String], reason: String)

  public var message: Advised {
    switch self {
    case .saveDirectoryMissing(let path):
      "save directory '\(path)' does not exist: check the path (or \(remedy: .forceThisBackup) to back up nothing)"
    case .saveDirectoryEmpty(let path):
      "save directory '\(path)' is empty; refusing to make an empty backup the latest (\(remedy: .forceThisBackup) to do it anyway)"
    case .saveDriveNotMounted(let path, let nearest):
      "'\(nearest)' is on another drive than the save directory '\(path)' was when it last agreed with the cloud: is its drive mounted? Nothing was restored (it would have gone onto the wrong drive). If the save lives on this drive now, \(remedy: .forcedBackup) makes it the agreed one"
    case .saveDirectoryIsMountPoint(let path):
      "save directory '\(path)' is a mount point (a drive or a bind mount): a restore replaces the save folder itself, which a mount point cannot be, so nothing was changed. Point the game at a folder inside it, or mount the drive one level up"
    case .noBackups(let game, let container):
      "container '\(container)' has no backups of '\(game)' yet: \(remedy: .backUpFirst)"
    case .busy(let game, let holder, let lockPath):
      "another savevault is working on '\(game)' (\(holder); lock '\(lockPath)'): wait for it to finish"
    case .gameNotStarted(let command, let reason):
      "cannot start '\(command)': \(reason)"
    case .io(let path, let reason):
      "'\(path)': \(reason)"
    case .preRestoreCopyFailed(let game, let folder, let reason):
      "\(game): the current save could not be kept before the restore (its pre-restore copy in '\(folder)' failed: \(reason)), so nothing was restored and nothing changed. Free some space there and try again"
    case .locationMissing(let game, let path):
      "\(game): its save location '\(path)' is gone, though it held files when this device last agreed with the cloud (is its drive mounted?); nothing was uploaded, so that a save without it does not become the latest. If it is gone for good, \(remedy: .forcedBackup) uploads the rest"
    case .locationNotHere(let game, let archive, let location, let madeAt, let why):
      why.remedies.contains(.nameSteamUser)
        ? "\(game): '\(archive)' holds the location '\(location)' (at '\(madeAt)' where it was made), which has no place on this machine until its Steam account is told (\(why)): nothing was restored"
        : "\(game): '\(archive)' holds the location '\(location)' (at '\(madeAt)' where it was made), which has no place on this machine (\(why)): nothing was restored. Install the game here and start it once, or add the folder it should go to to the game's \"locations\" in the config file"
    case .locationNotCarried(let game, let archive, let locations, let reason):
      "\(game): this upload would leave out \(Self.listed(locations)) of '\(archive)', which this device has no place for: that archive cannot be read to carry it forward (\(reason)), so nothing was uploaded; \(remedy: .forcedBackup) uploads without it"
    case .restoreUnfinished(let game, let archive, let places, let reason):
      places.isEmpty
        ? "\(game): the interrupted restore of '\(archive)' could not be finished (\(reason)), so nothing was synced: its files are in place, but what it replaced is not kept yet. Run any command of the game again to finish it"
        : "\(game): the interrupted restore of '\(archive)' could not be finished (\(reason)), so nothing was synced: the save is half restored, and uploading or restoring it would spread that. The save it replaced and the files it had not put in yet are in \(Self.listed(places)); remove what is in the way and run any command of the game again to finish it"
    case .locationsLeftOut(let game, let title, let locations):
      Self.leftOut(game: game, title: title, locations: locations)
    case .prefixInUse(let game, let prefix, let holder):
      "\(game): the Wine prefix '\(prefix)' is in use (\(holder)), and Wine would write its registry over the restored keys when it ends: nothing was restored. Quit the game (or run 'wineserver -k' with WINEPREFIX set to the prefix) and restore again"
    case .nothingToUndo(let game, let reason):
      Advised(
        reason.map { "\(game): \($0); nothing to undo" } ?? "no pre-restore copy of \(game); nothing to undo")
    }
  }
}

extension VaultError {
  /// `'a', 'b'`.
  static func listed(_ items: [String]) -> String { items.map { "'\($0)'" }.joined(separator: ", ") }

  static func leftOut(game: String, title: String, locations: [DetectedLocation]) -> Advised {
    let one = locations.count == 1
    let named = locations.map { "'\($0.portable.template)' (at '\($0.path)')" }.joined(separator: ", ")
    let it = one ? "it" : "them"
    return
      "\(game): \(named) \(one ? "holds" : "hold") save files that the save-location manifest names for this game, but the game's locations leave \(it) out, so nothing was uploaded (the backup would look whole without \(it)). \(remedy: .detectGameAgain(title)) adds \(it); to leave \(it) out, write \(it) as shown here in the game's \"exclude\" in the config file; \(remedy: .forcedBackup) uploads the rest"
  }
}

extension VaultError {
  /// Whether it is `restoreUnfinished`, which stops every command of its game.
  var isRestoreUnfinished: Bool {
    if case .restoreUnfinished = self { return true }
    return false
  }
}

extension VaultError: ExitStatusProviding {
  public var exitStatus: ExitStatus {
    switch self {
    case .busy, .prefixInUse: .busy
    case .gameNotStarted: .gameNotStarted
    case .locationNotHere: .usage
    case .locationNotCarried: .archiveRefused
    case .locationsLeftOut: .usage
    default: .failure
    }
  }
}
