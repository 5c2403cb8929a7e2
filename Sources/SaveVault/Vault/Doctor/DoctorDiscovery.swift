import Foundation

extension Vault {
  /// Doctor's lines about discovery: which manifest copy is used and how old it is, and the
  /// launchers and libraries found (with what could not be read). Warnings at most: a player
  /// who adds every game by hand needs neither.
  func discoveryChecks(_ config: ConfigFile, configFile: String?) -> [DoctorCheck] {
    var checks: [DoctorCheck] = []
    do {
      let status = try manifestStatus(refresh: .never, configFile: configFile)
      let days = (status.ageMs ?? 0) / 86_400_000
      let source =
        switch status.source {
        case .environment: "the file SAVEVAULT_MANIFEST names"
        case .config: "the config file's manifest"
        case .download: "SaveVault's copy"
        case .ludusavi: "Ludusavi's copy"
        }
      let message =
        "\(source), \(status.games) games, \(days == 0 ? "less than a day" : "\(days) day(s)") old"
      checks.append(
        days > 30
          ? DoctorCheck(
            "manifest", status.path, .warning, message,
            fix: "run 'savevault manifest update' to get a current one")
          : DoctorCheck("manifest", status.path, .ok, message))
    } catch _ {
      // Only discovery needs it, and the first `scan` downloads it: no warning.
      checks.append(
        DoctorCheck(
          "manifest", "save-location manifest", .ok,
          "none here yet: 'savevault scan' or 'savevault manifest update' downloads Ludusavi's"))
    }
    let roots = gameRoots(config)
    let steam = roots.steam.map {
      "\($0.root) (\($0.libraries.count) librar\($0.libraries.count == 1 ? "y" : "ies"))"
    }
    var found: [String] = []
    if !steam.isEmpty { found.append("Steam at " + steam.joined(separator: ", ")) }
    for store in GameStore.allCases where store != .steam {
      let count = roots.games.filter { $0.store == store }.count
      if count > 0 { found.append("\(count) \(store.rawValue) game(s)") }
    }
    checks.append(
      DoctorCheck(
        "roots", "installed games", .ok,
        found.isEmpty
          ? "no Steam, Heroic or Lutris install found (add folders of games as \"roots\" in the config file)"
          : "\(roots.games.count) installed: " + found.joined(separator: "; ")))
    for warning in roots.warnings {
      checks.append(DoctorCheck("roots", "installed games", .warning, warning))
    }
    if let launcher = launcherPathCheck(roots) { checks.append(launcher) }
    return checks
  }
}
