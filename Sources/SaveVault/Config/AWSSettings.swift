import Foundation

/// How to reach an S3-compatible store: endpoint, region, and whether plain HTTP to a host
/// other than this machine is allowed.
public struct S3Settings: Sendable, Equatable {
  /// A custom endpoint (MinIO, Garage, R2, B2, …): path-style addressing. Nil: AWS itself,
  /// virtual-hosted addressing.
  public let endpoint: String?
  public let region: String
  public let allowsInsecureHTTP: Bool

  public init(endpoint: String? = nil, region: String = "us-east-1", allowsInsecureHTTP: Bool = false) {
    self.endpoint = endpoint
    self.region = region
    self.allowsInsecureHTTP = allowsInsecureHTTP
  }
}

/// AWS settings from the environment and the shared files, as the AWS CLI reads them (the
/// credentials, which only an S3 container needs, are read where it is made): `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN`, else the profile
/// `AWS_PROFILE` (default `default`) of `~/.aws/credentials` and `~/.aws/config`
/// (`AWS_SHARED_CREDENTIALS_FILE`, `AWS_CONFIG_FILE`).
enum AWSSharedConfig {
  /// The region of the profile in `~/.aws/config`, if any.
  static func region(environment: [String: String], home: String) -> String? {
    let profile = environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
    return section(
      profile == "default" ? "default" : "profile " + profile, of: configFile(environment, home))["region"]
  }

  static func configFile(_ environment: [String: String], _ home: String) -> String {
    environment["AWS_CONFIG_FILE"] ?? home + "/.aws/config"
  }

  /// The `key = value` lines of `[name]` in an INI file (empty if absent).
  static func section(_ name: String, of path: String) -> [String: String] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
    var current: String?
    var values: [String: String] = [:]
    for raw in text.split(whereSeparator: \.isNewline) {
      let line = raw.trimmingCharacters(in: .whitespaces)
      if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
      if line.hasPrefix("[") && line.hasSuffix("]") {
        current = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
        continue
      }
      guard current == name, let equals = line.firstIndex(of: "=") else { continue }
      let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
      values[key] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
    }
    return values
  }
}
