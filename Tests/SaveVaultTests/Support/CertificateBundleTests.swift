import Foundation
import Testing

@testable import SaveVault

/// Which CA bundle HTTPS trusts: SSL_CERT_FILE when set, else the system's wherever the
/// distribution keeps it. That the choice reaches every connection is tested on the release
/// bundle (release/test-bundle.sh: an untrusted server refused, Fedora's place, SSL_CERT_FILE),
/// whose binary links Foundation in, where the choice is applied.
@Suite(
  "CertificateBundle: HTTPS trusts the system's CA bundle, or the one SSL_CERT_FILE names", .tags(.small))
struct CertificateBundleTests {
  struct Row: CustomTestStringConvertible, Sendable {
    var name: String
    var environment: [String: String]
    var files: Set<String>
    var expected: CertificateBundle
    var testDescription: String { name }
  }

  static let debian = "/etc/ssl/certs/ca-certificates.crt"
  static let fedora = "/etc/pki/tls/certs/ca-bundle.crt"

  static let rows: [Row] = [
    Row(
      name: "Debian, Ubuntu, SteamOS, Arch: the first place", environment: [:], files: [debian, fedora],
      expected: CertificateBundle(file: debian, directory: nil, source: .system)),
    Row(
      name: "Fedora: its own place when Debian's is missing", environment: [:], files: [fedora],
      expected: CertificateBundle(file: fedora, directory: nil, source: .system)),
    Row(
      name: "SSL_CERT_FILE wins over the system's", environment: ["SSL_CERT_FILE": "/home/p/ca.pem"],
      files: [debian, "/home/p/ca.pem"],
      expected: CertificateBundle(file: "/home/p/ca.pem", directory: nil, source: .environment)),
    Row(
      name: "SSL_CERT_FILE is taken as named even when missing (the error names it)",
      environment: ["SSL_CERT_FILE": "/nowhere.pem"], files: [debian],
      expected: CertificateBundle(file: "/nowhere.pem", directory: nil, source: .environment)),
    Row(
      name: "SSL_CERT_DIR alone", environment: ["SSL_CERT_DIR": "/etc/certs"], files: [debian],
      expected: CertificateBundle(file: nil, directory: "/etc/certs", source: .environment)),
    Row(
      name: "an empty SSL_CERT_FILE counts as unset", environment: ["SSL_CERT_FILE": ""], files: [fedora],
      expected: CertificateBundle(file: fedora, directory: nil, source: .system)),
    Row(
      name: "no bundle anywhere", environment: [:], files: [],
      expected: CertificateBundle(file: nil, directory: nil, source: .none)),
  ]

  @Test("the bundle chosen", arguments: rows)
  func choice(row: Row) {
    let chosen = CertificateBundle.choose(environment: row.environment) { row.files.contains($0) }
    #expect(chosen == row.expected)
  }
}
