/// The certificates an HTTPS container is checked against: the file `SSL_CERT_FILE` names
/// (and the folder `SSL_CERT_DIR` names), else the first system bundle that exists, in the
/// places Debian and Ubuntu, SteamOS and Arch, Fedora, openSUSE and Alpine keep it.
///
/// The libcurl a release bundle carries looks only in Debian's place and reads no variable,
/// so the choice is made here and set on each libcurl handle (`CurlHandle`); doctor reports it.
public struct CertificateBundle: Sendable, Equatable {
  public enum Source: Sendable, Equatable {
    /// `SSL_CERT_FILE` or `SSL_CERT_DIR` names it.
    case environment
    /// Found in one of `systemFiles`.
    case system
    /// None found: HTTPS is left to libcurl's own default, which is likely to fail.
    case none
  }

  public var file: String?
  public var directory: String?
  public var source: Source

  /// Where systems keep their bundle of trusted certificates, most common first.
  public static let systemFiles = [
    "/etc/ssl/certs/ca-certificates.crt",  // Debian, Ubuntu, SteamOS, Arch, Gentoo
    "/etc/pki/tls/certs/ca-bundle.crt",  // Fedora, RHEL, CentOS
    "/etc/ssl/ca-bundle.pem",  // openSUSE
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",  // Fedora, RHEL (the file the above links to)
    "/etc/ssl/cert.pem",  // Alpine, macOS, the BSDs
  ]

  /// The bundle for this environment on this machine (an empty file is no bundle).
  public static func choose(environment: [String: String]) -> CertificateBundle {
    choose(environment: environment) { Platform.isReadableFile($0) && (Platform.fileSize($0) ?? 0) > 0 }
  }

  /// The bundle for this environment; `isFile` says whether a path is a readable file.
  public static func choose(environment: [String: String], isFile: (String) -> Bool) -> CertificateBundle {
    let file = environment["SSL_CERT_FILE"].flatMap { $0.isEmpty ? nil : $0 }
    let directory = environment["SSL_CERT_DIR"].flatMap { $0.isEmpty ? nil : $0 }
    if file != nil || directory != nil {
      // As named, even when missing: the connection then fails with the path in the message
      // (and doctor says so), rather than trusting another bundle than the one asked for.
      return CertificateBundle(file: file, directory: directory, source: .environment)
    }
    if let found = systemFiles.first(where: isFile) {
      return CertificateBundle(file: found, directory: nil, source: .system)
    }
    return CertificateBundle(file: nil, directory: nil, source: .none)
  }
}
