/// One location of the archive an agreement is about, as this device keeps it: one of its own
/// (in the game's list, or placed by a restore from its portable form), or one it has no place
/// for, whose content its next upload carries forward from the archive.
public struct AgreedLocation: Codable, Equatable, Sendable {
  /// The location's top-level folder in the archive (for one of this device's, the name its
  /// scan gives it).
  public var name: String
  /// Where it is on any machine.
  public var portable: PortableLocation
  /// The folder the archive names for it: where it was made.
  public var madeAt: String
  /// Its folder on this device; nil when it has none here.
  public var folder: String?
  /// For a location of files: which.
  public var files: FilePattern?

  public init(
    name: String, portable: PortableLocation, madeAt: String, folder: String?, files: FilePattern? = nil
  ) {
    self.name = name
    self.portable = portable
    self.madeAt = madeAt
    self.folder = folder
    self.files = files
  }

  /// The location as an archive describes it.
  public var archived: ArchiveLocation {
    ArchiveLocation(name: name, portable: portable, path: madeAt, files: files)
  }
}

extension Agreement {
  /// The agreed archive's locations this device has no place for.
  var unplacedLocations: [AgreedLocation] { archiveLocations?.filter { $0.folder == nil } ?? [] }
}
