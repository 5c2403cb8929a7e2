extension Vault {
  /// The folders Steam's launch options are run with, whatever the session's `PATH` is: on a
  /// Steam Deck, and wherever Steam starts outside a login shell, `~/.local/bin` is not one.
  static let steamSearchPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

  /// Whether Steam's launch options can start `savevault` by its name, and if not, the full
  /// path to write instead. Only when Steam is installed.
  func launcherPathCheck(_ roots: GameRoots) -> DoctorCheck? {
    guard !roots.steam.isEmpty else { return nil }
    if let found = RcloneContainer.find("savevault", in: Self.steamSearchPath) {
      return DoctorCheck("launcher", "Steam", .ok, "Steam's launch options find savevault at \(found)")
    }
    let name = context.invokedAs
    let path =
      name.contains("/")
      ? (name.hasPrefix("/") ? name : context.currentDirectory + "/" + name)
      : RcloneContainer.find(name, in: context.environment["PATH"] ?? "") ?? name
    let folder = path.contains("/") ? String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) : path
    return DoctorCheck(
      "launcher", "Steam", .warning,
      "Steam runs launch options with a PATH of its own (/usr/local/bin, /usr/bin, /bin), without \(folder): 'savevault wrap' alone would not start",
      fix:
        "write the full path in each game's Launch Options (as you may have): \(path) wrap -- %command%")
  }

  /// Which certificates HTTPS (S3 containers, the manifest download) trusts.
  func certificateCheck() -> DoctorCheck {
    #if os(Linux)
      let bundle = CertificateBundle.choose(environment: context.environment)
      switch bundle.source {
      case .environment:
        let named = [bundle.file, bundle.directory].compactMap { $0 }
        let unreadable = named.filter { !Platform.isReadableFile($0) && !Platform.isFolder($0) }
        if let missing = unreadable.first {
          return DoctorCheck(
            "certificates", "HTTPS", .warning,
            "SSL_CERT_FILE or SSL_CERT_DIR names '\(missing)', which cannot be read: HTTPS containers will fail",
            fix: "point SSL_CERT_FILE at this system's CA bundle, or unset it")
        }
        return DoctorCheck(
          "certificates", "HTTPS", .ok,
          "trusts \(named.joined(separator: " and ")) (SSL_CERT_FILE, SSL_CERT_DIR)")
      case .system:
        return DoctorCheck("certificates", "HTTPS", .ok, "trusts \(bundle.file ?? "")")
      case .none:
        return DoctorCheck(
          "certificates", "HTTPS", .warning,
          "no CA bundle in \(CertificateBundle.systemFiles.joined(separator: ", ")): HTTPS containers and the manifest download will fail",
          fix: "install the system's ca-certificates package, or set SSL_CERT_FILE to a CA bundle")
      }
    #else
      return DoctorCheck("certificates", "HTTPS", .ok, "trusts the system's certificate store")
    #endif
  }
}
