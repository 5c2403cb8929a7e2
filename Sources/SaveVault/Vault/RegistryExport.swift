import Foundation

/// SaveVault's export of a location's registry keys: the file `user.reg` (or `system.reg`) in
/// the location's folder, in Wine's own text format, holding the prefix's header and each of
/// the game's keys and subkeys as their content only: no timestamp after a key's path and no
/// `#time=` lines. So the archive holds a `.reg` file a person reads (and Wine imports), and
/// only what the keys hold counts as the save: Wine rewriting the file, the keys' times or
/// other keys is no change.
enum RegistryExport {
  /// Makes the export of `registry` in `folder` again from its prefix's file,
  /// writing it only when its bytes differ (so that an unchanged key leaves the file as it
  /// was, metadata and all), and removing it when the prefix's file lacks the keys.
  /// Throws `VaultError.io` when the prefix's file cannot be read or is no Wine registry (`read`).
  static func refresh(_ registry: RegistrySource, into folder: String) throws {
    let exported = folder + "/" + registry.key.file.rawValue
    guard let bytes = try export(registry) else {
      if FileManager.default.fileExists(atPath: exported) {
        do { try FileManager.default.removeItem(atPath: exported) } catch {
          throw VaultError.io(path: exported, reason: "\(error)")
        }
      }
      return
    }
    if let existing = FileManager.default.contents(atPath: exported), Array(existing) == bytes { return }
    do { try AtomicFile.write(Data(bytes), to: exported) } catch {
      throw VaultError.io(path: exported, reason: "\(error)")
    }
  }

  /// What the keys of `registry` hold in the `.reg` file at `path` (the prefix's, or an
  /// export): each key's content, in one order whatever the file's; empty when the file is
  /// missing, unreadable or holds none of them.
  static func keys(inFile path: String, of registry: RegistrySource) -> [[UInt8]] {
    guard let data = FileManager.default.contents(atPath: path), let file = try? WineRegistry.parse(data)
    else {
      return []
    }
    return registry.sections(of: file).map(\.content).sorted { $0.lexicographicallyPrecedes($1) }
  }

  /// The prefix's file that holds the keys of `registry`, read as a backup reads it; nil when
  /// the prefix has no such file (Wine never started there). Throws `VaultError.io` when the
  /// file is there but cannot be read, or is no Wine registry file SaveVault reads (naming the
  /// line): a backup of the game fails then, and `doctor` says so.
  static func read(_ registry: RegistrySource) throws -> WineRegistry? {
    guard let data = FileManager.default.contents(atPath: registry.file) else {
      guard !FileManager.default.fileExists(atPath: registry.file) else {
        throw VaultError.io(path: registry.file, reason: "cannot be read: check its permissions")
      }
      return nil
    }
    do { return try WineRegistry.parse(data) } catch {
      throw VaultError.io(path: registry.file, reason: "not a Wine registry file SaveVault reads: \(error)")
    }
  }

  /// The export of the keys of `registry`; nil when the prefix has no such file or the file
  /// none of the keys.
  static func export(_ registry: RegistrySource) throws -> [UInt8]? {
    guard let file = try read(registry) else { return nil }
    let sections = registry.sections(of: file)
    guard !sections.isEmpty else { return nil }
    var bytes = file.preamble
    for (index, section) in sections.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: "\n")) }
      bytes += section.content
    }
    return bytes
  }
}
