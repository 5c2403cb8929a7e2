/// One backup of a game: a container's file with what its name says, read once here.
public struct StoredArchive: Sendable, Equatable {
  /// The file name, `packsave-….tar` or `packsave-….tar.zst` (or another tool's
  /// `packsave-….tar.gz`, `.tgz`, `.tar.bz2`, `.tar.xz`).
  public var name: String
  /// Its size in bytes.
  public var size: Int64
  /// When it was made, in epoch milliseconds: SaveVault's own time from the name, or for a
  /// name SaveVault did not make the storage's time, never only the storage's upload time.
  public var modifiedMs: Int64
  /// The device that made it, or nil for an archive another tool put there.
  public var device: String?
  /// Which stored content it is, where the container says (`ContainerFile.version`).
  public var version: ContainerFile.Version?
  /// Container-specific facts (for a folder, its path).
  public var metadata: [String: String]

  public init(
    name: String, size: Int64, modifiedMs: Int64, device: String?, version: ContainerFile.Version? = nil,
    metadata: [String: String] = [:]
  ) {
    self.name = name
    self.size = size
    self.modifiedMs = modifiedMs
    self.device = device
    self.version = version
    self.metadata = metadata
  }

  /// The archive `file` is: its time and device from its name when SaveVault made it
  /// (`parsed`), else the storage's time and no device.
  init(_ file: ContainerFile, parsed: ArchiveName?) {
    self.init(
      name: file.name, size: file.size, modifiedMs: parsed?.createdMs ?? file.modifiedMs,
      device: parsed?.device, version: file.version, metadata: file.metadata)
  }
}
