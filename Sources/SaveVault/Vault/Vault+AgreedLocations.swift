import Foundation

/// Which of a device's locations an archive's location is.
enum LocationMatch: Equatable {
  case one(SaveLocation)
  /// Several have its portable form (two Steam users, say), none its folder: which one it
  /// belongs in cannot be told.
  case several([SaveLocation])
  /// None: this device keeps it nowhere.
  case none
}

extension ArchiveLocation {
  /// Which of `locations` this location of an archive is: the one with its portable form
  /// (when several have it, the one in its folder), else the one with its name.
  func match(in locations: [SaveLocation]) -> LocationMatch {
    let alike = locations.filter { $0.portable == portable }
    if let same = alike.first(where: { Platform.resolvedPath($0.path) == path || $0.path == path }) {
      return .one(same)
    }
    if alike.count > 1 { return .several(alike) }
    // By name only a location of the same kind: the files of one pattern are no other folder's.
    if let only = alike.first
      ?? locations.first(where: { $0.name == name && $0.files?.pattern == files?.pattern })
    {
      return .one(only)
    }
    return .none
  }
}

extension AgreedLocation {
  /// One of this device's locations, in the agreement.
  init(here location: SaveLocation) {
    self.init(
      name: location.name, portable: location.portable, madeAt: location.shown, folder: location.path,
      files: location.files)
  }

  /// One that this device has no place for, as the archive describes it.
  init(unplaced location: ArchiveLocation) {
    self.init(
      name: location.name, portable: location.portable, madeAt: location.path, folder: nil,
      files: location.files)
  }

  /// The location of this device it stands for; nil when this device has no place for it.
  var here: SaveLocation? {
    folder.map { SaveLocation(name: name, path: $0, portable: portable, files: files) }
  }
}

extension Target {
  /// Those of an archive's `locations` that match none of this target's: this device has no
  /// place for them.
  func lacking(_ locations: [ArchiveLocation]) -> [ArchiveLocation] {
    locations.filter { $0.match(in: self.locations) == .none }
  }

  /// The target with `added` among its locations: each whose folder is none of its own, nor
  /// inside one or holding one (their files would be packed twice).
  func including(_ added: [SaveLocation]) -> Target {
    var target = self
    for location in added {
      let isNew = !target.locations.contains { own in
        own.path == location.path || location.isInside(own) || own.isInside(location)
      }
      if isNew { target.locations.append(location) }
    }
    return target
  }
}

extension Vault {
  /// The target with the agreed archive's locations that this device keeps although the game's
  /// own list lacks them (a restore placed them where their portable form says): they are part
  /// of the save here from then on, so every scan has them, their changes upload, and the next
  /// archive holds them. An agreed location is the game's own when it matches one of the list
  /// (`ArchiveLocation.match`). A one-folder game's archives hold its folder whole: it has none.
  /// A location the list names as a path that is a file here now, or that the agreed archive
  /// holds as a location of files (a file not made yet on this device), is that location of
  /// files.
  func withAgreedLocations(_ target: Target) -> Target {
    let target = target.resolvingFiles()
    guard !target.isOneFolder, let record = agreements.load(target), let agreed = record.archiveLocations,
      record.isAbout(saveDir: target.saveDirectory, realSaveDir: Platform.realPath(target.saveDirectory))
    else { return target }
    var holding = target
    for agreedLocation in agreed where agreedLocation.files != nil {
      if case .one(let found) = agreedLocation.archived.match(in: holding.locations),
        let index = holding.locations.firstIndex(of: found), found.files == nil
      {
        holding.locations[index] = found.holding(agreedLocation.archived)
      }
    }
    return holding.including(
      agreed.filter { $0.archived.match(in: holding.locations) == .none }.compactMap(\.here))
  }

  /// The locations an agreement about `target` records: each of the target's own, and
  /// `unplaced`, those of the archive this device has no place for. Nil for a one-folder game.
  static func agreedLocations(_ target: Target, unplaced: [ArchiveLocation] = []) -> [AgreedLocation]? {
    guard !target.isOneFolder else { return nil }
    return target.locations.map(AgreedLocation.init(here:)) + unplaced.map(AgreedLocation.init(unplaced:))
  }
}
