/// How a location's text names a registry key rather than a path: `registry:` and the
/// manifest's key, `registry:HKEY_CURRENT_USER/Software/Foo`.
public enum RegistryKeyText {
  public static let scheme = "registry:"

  /// Whether a location's text names a registry key.
  public static func isRegistry(_ text: String) -> Bool { text.hasPrefix(scheme) }
}

/// A registry key of the save-location manifest (`HKEY_CURRENT_USER/Software/Foo`) where a Wine
/// or Proton prefix keeps it: the prefix's file for its root key, and its paths in that file.
/// `HKEY_CURRENT_USER` is `user.reg`; `HKEY_LOCAL_MACHINE` is `system.reg`, where a 32-bit
/// game's `Software\Foo` is kept under `Software\Wow6432Node\Foo`, so both are the key (as
/// Ludusavi reads both views of the key on Windows). Other root keys have no file of their own.
public struct WineRegistryKey: Codable, Sendable, Hashable {
  /// A prefix's registry file, by the root key it holds.
  public enum File: String, Codable, Sendable, Hashable, CaseIterable {
    case user = "user.reg"
    case system = "system.reg"
  }

  /// The file that holds the key.
  public var file: File
  /// The key's paths in the file, components joined by `\` (`Software\Foo`).
  public var paths: [String]

  public init(file: File, paths: [String]) {
    self.file = file
    self.paths = paths
  }

  /// The key a manifest's `registry` entry names; nil for a root key other than
  /// `HKEY_CURRENT_USER` and `HKEY_LOCAL_MACHINE` (and their short forms), or a root key alone.
  public init?(manifestKey: String) {
    let components = manifestKey.split(whereSeparator: { $0 == "/" || $0 == "\\" }).map(String.init)
    guard let root = components.first, components.count > 1 else { return nil }
    let path = components.dropFirst().joined(separator: "\\")
    switch root.uppercased() {
    case "HKEY_CURRENT_USER", "HKCU":
      self.init(file: .user, paths: [path])
    case "HKEY_LOCAL_MACHINE", "HKLM":
      let rest = components.dropFirst(2)
      if components[1].lowercased() == "software", let first = rest.first, first.lowercased() != "wow6432node"
      {
        self.init(
          file: .system, paths: [path, (["Software", "Wow6432Node"] + rest).joined(separator: "\\")])
      } else {
        self.init(file: .system, paths: [path])
      }
    default:
      return nil
    }
  }
}
