import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One finding of `savevault doctor`: what was checked, on what, how it went, and how to fix it.
public struct DoctorCheck: Sendable, Equatable {
  public enum Status: String, Sendable {
    case ok, warning, problem
  }

  /// What a problem stands in the way of, which decides the CLI's exit code: the settings
  /// (config file, credentials, tools), the local save, or the container.
  public enum Area: String, Sendable {
    case settings, local, container
  }

  /// The kind of check: `config`, `game`, `save-dir`, `registry`, `rclone`, `credentials`,
  /// `container`, `clock`, `manifest`, `roots` or `dialog`.
  public var check: String
  /// What it was checked on: a file, a game, a container URL.
  public var subject: String
  public var status: Status
  public var message: String
  /// What to do about a warning or a problem.
  public var fix: String?
  public var area: Area

  public init(
    _ check: String, _ subject: String, _ status: Status, _ message: String, fix: String? = nil,
    area: Area = .settings
  ) {
    self.check = check
    self.subject = subject
    self.status = status
    self.message = message
    self.fix = fix
    self.area = area
  }
}

extension Vault {
  /// How far the clock may be from an S3 server's before `doctor` warns.
  static let clockWarningMs: Int64 = 5 * 60_000
  /// How far S3 lets a request's time be from the server's: beyond it every request is refused
  /// (RequestTimeTooSkewed, exit 4), so `doctor` calls it a problem of the container.
  static let clockLimitMs: Int64 = 15 * 60_000
  static let clockFix = "set the system time right (timedatectl set-ntp true)"

  /// Checks what the commands rely on, without changing anything but a probe object that it
  /// removes again: the config file and each game's fields; each container (reachable, writable,
  /// credentials present and accepted, the clock against an S3 server's); each save directory
  /// (exists, readable) and prefix file of registry keys (reads as a backup reads it); the rclone binary for rclone containers; and, in a desktop session,
  /// the dialog program used to ask about conflicts. With a target in `request` (a game or a
  /// save directory), only that one; otherwise every game of the config file (or, with none,
  /// the container a `--save-dir` command would use). Never throws: every failure is a check.
  public func doctor(_ request: TargetRequest) -> [DoctorCheck] {
    var checks: [DoctorCheck] = []
    let configPath =
      request.configFile.map { absolute($0, context: context, home: paths.home) } ?? paths.configFile
    guard let config = checkConfig(path: configPath, isRequired: request.configFile != nil, into: &checks)
    else {
      return checks + [dialogCheck()]
    }
    let games = (config.games ?? [:]).keys.sorted()
    var targets: [(target: Target, checksSave: Bool, configuredSaveDir: String?)] = []
    let isNamed = request.game != nil || request.saveDirectory != nil
    let requests =
      isNamed
      ? [request]
      : games.isEmpty
        ? [
          TargetRequest(
            game: "doctor", saveDirectory: context.currentDirectory, containerURL: request.containerURL)
        ]
        : games.map { TargetRequest(game: $0, containerURL: request.containerURL) }
    for var one in requests {
      one.configFile = request.configFile
      one.endpoint = request.endpoint
      one.allowsInsecureHTTP = request.allowsInsecureHTTP
      do {
        // With no game named anywhere, the working folder stands in for a save directory only
        // to find the container: where it lies is no problem of anyone's.
        let checksSave = isNamed || !games.isEmpty
        let target = try checksSave ? resolve(one) : Target.resolve(one, paths: paths, context: context)
        let configured = one.saveDirectory == nil ? config.games?[target.game]?.saveDir : nil
        targets.append((target, checksSave, configured))
      } catch {
        var fix = "do what the message says (see examples/config.json for a game's fields)"
        if case .unknownKey(let key, _) = error {
          fix =
            key.suggestion.map { "rename '\(key.key)' to '\($0)' in the file" }
            ?? "remove '\(key.key)' from the file"
        }
        checks.append(
          DoctorCheck("game", one.game ?? one.saveDirectory ?? "", .problem, error.description, fix: fix))
      }
    }
    var containers: [String: (any Container)?] = [:]
    for (target, _, _) in targets where containers[target.agreementKey] == nil {
      containers[target.agreementKey] = checkContainer(target, into: &checks)
    }
    for (target, checksSave, configured) in targets where checksSave {
      // A location of registry keys is checked in its prefix, never as its export's folder.
      if let folder = target.locations.first(where: { $0.registrySource == nil })?.path {
        var check = checkSaveDirectory(
          target, folder: folder, container: containers[target.agreementKey] ?? nil)
        if let configured, configured != "~", !configured.hasPrefix("/"), !configured.hasPrefix("~/") {
          check.message +=
            " (saveDir '\(configured)' is relative: it is taken from the config file's folder, '\((configPath as NSString).deletingLastPathComponent)')"
        }
        checks.append(check)
      }
      checks += checkRegistryFiles(target)
    }
    if !isNamed { checks += discoveryChecks(config, configFile: request.configFile) }
    return checks + [certificateCheck(), dialogCheck()]
  }

  /// The config file parses, and names no key SaveVault does not know outside the game
  /// entries (such a key is ignored by the commands). Returns it, or nil when it is
  /// unusable.
  private func checkConfig(path: String, isRequired: Bool, into checks: inout [DoctorCheck]) -> ConfigFile? {
    let config: ConfigFile
    do {
      config = try ConfigFile.load(path: path, isRequired: isRequired)
    } catch {
      checks.append(
        DoctorCheck(
          "config", path, .problem, error.description, fix: "fix the file (see examples/config.json)"))
      return nil
    }
    guard FileManager.default.fileExists(atPath: path) else {
      checks.append(
        DoctorCheck(
          "config", path, .ok,
          "no config file; commands need --save-dir DIR (name games in it to use --game NAME, see examples/config.json)"
        ))
      return ConfigFile()
    }
    let games = (config.games ?? [:]).keys.sorted()
    checks.append(
      DoctorCheck(
        "config", path, .ok,
        "parses; \(games.count) game\(games.count == 1 ? "" : "s")"
          + (games.isEmpty ? "" : ": " + games.joined(separator: ", "))))
    // A game entry's unknown key is that game's problem (its commands refuse it), below.
    for key in config.unknownKeys where key.game == nil {
      checks.append(
        DoctorCheck(
          "config", path, .warning, "\(key) is ignored",
          fix: key.suggestion.map { "rename it to '\($0)' (keys are case-sensitive)" } ?? "remove it"))
    }
    return config
  }

  /// The container's checks; returns the container when it is reachable.
  private func checkContainer(_ target: Target, into checks: inout [DoctorCheck]) -> (any Container)? {
    let url = target.containerURL
    guard let support = ContainerSupport.of(target.container) else {
      checks.append(
        DoctorCheck(
          "container", url, .problem, ContainerSupport.mismatch(target).description, area: .container))
      return nil
    }
    let preflight = support.preflight(target, paths, context)
    checks += preflight.checks
    guard preflight.canGoOn else { return nil }
    let credentials = preflight.credentials
    let container: any Container
    do {
      container = try makeContainer(target, paths)
      try container.probe()
    } catch {
      checks.append(containerProblem(url, error, location: target.container, support: support))
      return nil
    }
    if let credentials {
      checks.append(DoctorCheck("credentials", url, .ok, "\(credentials); accepted by the server"))
    }
    do {
      let written = try container.checkWritable()
      checks.append(
        DoctorCheck(
          "container", url, .ok, "reachable and writable (a probe object was written and removed)",
          area: .container))
      if credentials != nil { checks.append(Self.clockCheck(url, offsetMs: written.clockOffsetMs)) }
    } catch {
      checks.append(
        DoctorCheck(
          "container", url, .problem, "reachable but not writable: \(error)",
          fix: "check the permissions (or the access policy) of the container", area: .container))
    }
    return container
  }

  /// A container that cannot be used, named after what is wrong: refused credentials, the
  /// clock, the certificates, a missing libcurl, or the container itself.
  private func containerProblem(
    _ url: String, _ error: any Error, location: ContainerLocation, support: ContainerSupport
  ) -> DoctorCheck {
    let text = String(describing: error)
    if error is ConfigError {
      return DoctorCheck("container", url, .problem, text, fix: "fix the container's settings")
    }
    if case .unavailable(_, let cause) = error as? ContainerError {
      switch cause {
      case .clockSkew:
        return DoctorCheck(
          "clock", url, .problem, text, fix: Self.clockFix,
          area: .container)
      case .credentialsRefused:
        return DoctorCheck(
          "credentials", url, .problem, "\(Self.credentialSource(context.environment)), refused: \(text)",
          fix: "check the key pair (and its permissions on the bucket)", area: .container)
      case .httpLibraryMissing:
        return DoctorCheck("container", url, .problem, text, fix: LibCurlUnavailable.remedy, area: .container)
      case .certificate:
        return DoctorCheck(
          "certificates", url, .problem, text,
          fix:
            "HTTPS could not check the server's certificate: install the system's CA certificates, or set SSL_CERT_FILE to the bundle of the CA that signed it",
          area: .container)
      case .network, .missing, .other:
        break
      }
    }
    let fix = support.unavailableFix(location)
    return DoctorCheck("container", url, .problem, text, fix: fix, area: .container)
  }

  /// Where the S3 credentials come from, as AWSSharedConfig reads them.
  static func credentialSource(_ environment: [String: String]) -> String {
    if !(environment["AWS_ACCESS_KEY_ID"] ?? "").isEmpty { return "credentials from AWS_ACCESS_KEY_ID" }
    let profile = environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
    return "credentials of profile '\(profile)' in ~/.aws"
  }

  static func clockCheck(_ url: String, offsetMs: Int64?) -> DoctorCheck {
    guard let offsetMs else {
      return DoctorCheck("clock", url, .ok, "not checked: the server sent no Date header", area: .container)
    }
    // Rounded, not truncated: the offset is measured to about a second (the Date header has
    // whole seconds, the request takes time), so 6 min 59.8 s is "7 minutes".
    let seconds = (abs(offsetMs) + 500) / 1000
    let amount =
      seconds >= 120 ? "\((seconds + 30) / 60) minutes" : seconds <= 1 ? "a second" : "\(seconds) seconds"
    let side = offsetMs >= 0 ? "ahead of" : "behind"
    guard abs(offsetMs) > Self.clockWarningMs else {
      return DoctorCheck(
        "clock", url, .ok, "this machine's clock is within \(amount) of the server's", area: .container)
    }
    guard abs(offsetMs) > Self.clockLimitMs else {
      return DoctorCheck(
        "clock", url, .warning,
        "this machine's clock is \(amount) \(side) the server's (S3 refuses requests 15 minutes off)",
        fix: Self.clockFix,
        area: .container)
    }
    // This server took the probe, but S3 (and most servers like it) refuses every request.
    return DoctorCheck(
      "clock", url, .problem,
      "this machine's clock is \(amount) \(side) the server's, more than the 15 minutes S3 allows: S3 refuses every request (RequestTimeTooSkewed), so backups and syncs fail with exit 4",
      fix: Self.clockFix, area: .container)
  }

  /// How a conflict is asked about when there is no terminal.
  private func dialogCheck() -> DoctorCheck {
    let environment = context.environment
    let display = ["WAYLAND_DISPLAY", "DISPLAY"].first { !(environment[$0] ?? "").isEmpty }
    guard let display else {
      return DoctorCheck(
        "dialog", "desktop", .ok,
        "no desktop session (DISPLAY, WAYLAND_DISPLAY): conflicts are asked in the terminal, or --on-conflict decides"
      )
    }
    let searchPath = environment["PATH"] ?? "/usr/bin:/bin"
    if let tool = ["zenity", "kdialog"].lazy.compactMap({ RcloneContainer.find($0, in: searchPath) }).first {
      return DoctorCheck(
        "dialog", display, .ok, "with no terminal, conflicts are asked in a dialog (\(tool))")
    }
    return DoctorCheck(
      "dialog", display, .warning,
      "a desktop session but neither zenity nor kdialog: with no terminal, conflicts follow --on-conflict (by default nothing changes, exit 3)",
      fix: "apt-get install zenity (or kdialog)")
  }
}

extension DoctorCheck.Area {
  /// The status a problem in this area ends `doctor` with: settings 2, the local save 1,
  /// the container 4.
  public var exitStatus: ExitStatus {
    switch self {
    case .settings: .usage
    case .local: .failure
    case .container: .containerUnavailable
    }
  }
}
