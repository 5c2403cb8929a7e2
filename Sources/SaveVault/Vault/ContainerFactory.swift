import Foundation

/// Makes the container for a target, as its kind's `ContainerSupport` says.
public enum ContainerFactory {
  /// The container `target` names. The embedded default folder is created by its first
  /// upload; any other folder must already exist (an unmounted drive must not look like an
  /// empty container). S3 credentials are read here, from the environment and the shared
  /// AWS files; their absence is a usage error.
  public static func make(for target: Target, paths: Paths, context: Context) throws(ConfigError)
    -> any Container
  {
    guard let support = ContainerSupport.of(target.container) else { throw ContainerSupport.mismatch(target) }
    return try support.make(target, paths, context)
  }

  /// Runs `make`, turning settings the container cannot work with into the usage error they are.
  static func settingUp<Made>(_ target: Target, _ make: () throws(ContainerSetupError) -> Made)
    throws(ConfigError) -> Made
  {
    do {
      return try make()
    } catch {
      switch error {
      case .unusableEndpoint(_, let reason):
        throw .invalidContainerURL(target.containerURL, reason: reason)
      case .missingProgram:
        throw .invalid(error.message)
      }
    }
  }
}

extension AWSSharedConfig {
  /// The credentials to use. A half-set pair, or none at all, is a usage error naming what to set.
  static func credentials(environment: [String: String], home: String) throws(ConfigError) -> AWSCredentials {
    let key = environment["AWS_ACCESS_KEY_ID"].flatMap { $0.isEmpty ? nil : $0 }
    let secret = environment["AWS_SECRET_ACCESS_KEY"].flatMap { $0.isEmpty ? nil : $0 }
    switch (key, secret) {
    case (let key?, let secret?):
      return AWSCredentials(
        accessKeyID: key, secretAccessKey: secret,
        sessionToken: environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 })
    case (.some, nil):
      throw .invalid(
        "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not: set both, or neither to use a profile")
    case (nil, .some):
      throw .invalid(
        "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not: set both, or neither to use a profile")
    case (nil, nil):
      break
    }
    let profile = environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
    let file = environment["AWS_SHARED_CREDENTIALS_FILE"] ?? home + "/.aws/credentials"
    let fromCredentials = section(profile, of: file)
    let fromConfig = section(
      profile == "default" ? "default" : "profile " + profile, of: configFile(environment, home))
    let merged = fromConfig.merging(fromCredentials) { $1 }
    switch (merged["aws_access_key_id"], merged["aws_secret_access_key"]) {
    case (let key?, let secret?):
      return AWSCredentials(
        accessKeyID: key, secretAccessKey: secret, sessionToken: merged["aws_session_token"])
    case (.some, nil), (nil, .some):
      throw .invalid(
        "profile '\(profile)' in '\(file)' has only half of its key pair: set aws_access_key_id and aws_secret_access_key"
      )
    case (nil, nil):
      throw .invalid(
        "no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile '\(profile)' in '\(file)'"
      )
    }
  }
}
