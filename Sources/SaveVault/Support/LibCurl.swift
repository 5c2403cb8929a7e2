import CPlatform

/// libcurl, which HTTP goes through, loaded the first time a request is made (never by a
/// command that does not use the network).
enum LibCurl {
  /// Loads it, once per process. Throws `LibCurlUnavailable` when it cannot be loaded.
  static func load() throws(LibCurlUnavailable) {
    if let failure = savevault_curl_load() {
      throw LibCurlUnavailable(reason: String(cString: failure))
    }
  }
}

/// libcurl cannot be loaded: S3 containers and manifest downloads cannot work, everything else
/// can. Says how to install it.
struct LibCurlUnavailable: Error, Equatable, Sendable, CustomStringConvertible {
  /// The loader's words (or the function the library lacks).
  var reason: String

  /// The words that name this failure in a message it was wrapped into.
  static let marker = "libcurl.so.4, which cannot be loaded"
  /// What to install, by distribution.
  static let remedy =
    "install libcurl (the package libcurl4 on Debian and Ubuntu, libcurl on Fedora, curl on Arch)"

  var description: String { "savevault speaks HTTP through \(Self.marker) (\(reason)): \(Self.remedy)" }
}
