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
  /// (when several have it, the one in its folder), else the one with its name, else the one
  /// of the same folder described with other files (`*.sav` on one device, the whole folder on
  /// another: one folder is one location, whatever each device's list takes of it).
  func match(in locations: [SaveLocation]) -> LocationMatch {
    let alike = locations.filter { $0.portable == portable }
    if let same = alike.first(where: { Platform.resolvedPath($0.path) == path || $0.path == path }) {
      return .one(same)
    }
    if alike.count > 1 { return .several(alike) }
    // By name only a location of the same kind: the files of one pattern are no other folder's.
    if let only = alike.first
      ?? locations.first(where: { $0.name == name && $0.pattern?.pattern == files?.pattern })
    {
      return .one(only)
    }
    let sameFolder = locations.filter { $0.registrySource == nil && $0.folderPortable == folderPortable }
    if sameFolder.count > 1 { return .several(sameFolder) }
    return sameFolder.first.map(LocationMatch.one) ?? .none
  }

  /// How alike the folder where it was made is to `path`: the number of names they share, each
  /// at the same place counted from the end (`…/userdata/1234/620/remote` is more like the
  /// folder of account 1234 on another machine than like account 5678's).
  func likeness(to path: String) -> Int {
    let made = self.path.split(separator: "/")
    let here = path.split(separator: "/")
    return zip(made.reversed(), here.reversed()).filter { $0 == $1 }.count
  }
}

extension AgreedLocation {
  /// One of this device's locations, in the agreement.
  init(here location: SaveLocation) {
    self.init(
      name: location.name, portable: location.portable, madeAt: location.shown, folder: location.path,
      files: location.pattern)
  }

  /// One that this device has no place for, as the archive describes it.
  init(unplaced location: ArchiveLocation) {
    self.init(
      name: location.name, portable: location.portable, madeAt: location.path, folder: nil,
      files: location.files)
  }

  /// The location of this device it stands for; nil when this device has no place for it.
  var here: SaveLocation? {
    folder.map {
      SaveLocation(name: name, path: $0, portable: portable, shape: files.map { .files($0) } ?? .folder)
    }
  }
}

extension Target {
  /// Those of an archive's `locations` that match none of this target's: this device has no
  /// place for them. Each location here is one of the archive's only: of several with one
  /// portable form (two Steam accounts' folders, a game installed twice where the archive was
  /// made), the one made in the folder most like it is its, the others are lacking.
  func lacking(_ locations: [ArchiveLocation]) -> [ArchiveLocation] {
    var unused = self.locations
    var lacking: [ArchiveLocation] = []
    let closestFirst = locations.sorted { a, b in
      let best = { (archived: ArchiveLocation) in
        unused.map { archived.likeness(to: Platform.resolvedPath($0.path)) }.max() ?? 0
      }
      return best(a) > best(b)
    }
    for archived in closestFirst {
      switch archived.match(in: unused) {
      case .one(let found): unused.removeAll { $0 == found }
      case .several: break
      case .none: lacking.append(archived)
      }
    }
    return locations.filter(lacking.contains)
  }

  /// The locations of `record`'s archive this device had no place for and still has none
  /// (`lacking`, each of its own locations taking one of the archive's).
  func stillUnplaced(_ record: Agreement) -> [ArchiveLocation] {
    let lacking = self.lacking((record.archiveLocations ?? []).map(\.archived))
    return record.unplacedLocations.map(\.archived).filter(lacking.contains)
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
  /// The locations an agreement about `target` records: each of the target's own, and
  /// `unplaced`, those of the archive this device has no place for. Nil for a one-folder game.
  static func agreedLocations(_ target: Target, unplaced: [ArchiveLocation] = []) -> [AgreedLocation]? {
    guard !target.isOneFolder else { return nil }
    return target.locations.map(AgreedLocation.init(here:)) + unplaced.map(AgreedLocation.init(unplaced:))
  }
}
