import CLibArchive
import CPlatform

/// What this binary is: the version and commit it was built from (`make dist` and `make`
/// say; a plain `swift build` is "dev", commit "unknown") and the libarchive it runs with.
public enum BuildInfo {
  public static var version: String { String(cString: savevault_build_version()) }
  public static var commit: String { String(cString: savevault_build_commit()) }
  /// The libarchive loaded at run time, e.g. "3.6.2" (a bundle's own, or the system's).
  public static var libarchiveVersion: String {
    guard let text = archive_version_string() else { return "unknown" }
    return String(String(cString: text).split(separator: " ").last ?? "unknown")
  }
}
