import SaveVault

/// `savevault manifest update|status`: the save-location manifest's copy, downloaded now or
/// described.
struct ManifestCommand: Command {
  static let json = Option.json("print the status as one JSON object")
  static let ifStale = Option(
    name: "if-stale", kind: .flag,
    help:
      "update: download only a copy due for its daily check (what wrap starts in the background once the game runs)"
  )

  static let declaration = CommandDeclaration(
    name: "manifest", abstract: "download the save-location manifest now, or say which copy is used",
    discussion: """
      SaveVault finds games' saves with Ludusavi's manifest (built from PCGamingWiki). It
      uses, first found: the file SAVEVAULT_MANIFEST names, the config's "manifest" (a file,
      or a URL kept in the cache), its own copy in $XDG_CACHE_HOME/savevault (downloaded at
      most once a day; a command about to start a game never waits for that: wrap has a
      stale copy downloaded by a process of its own once the game runs, and waits at most
      2 s only when there is no copy at all), Ludusavi's copy. The config's
      "secondaryManifests" are merged in.

        update   download it now, whatever its age (--if-stale: only when it is due).
                 Prints updated, unchanged (the server said the copy is current), not due
                 or failed; a failed download keeps the copy and exits 4.
        status   which copy is used and where, how old it is, how many games it has, its
                 URL and ETag.
      """,
    positionals: [
      CommandDeclaration.Positional(
        name: "ACTION", values: ["update", "status"], missing: "say what: savevault manifest update|status")
    ],
    options: [json, ifStale])

  enum Action: String, Sendable {
    case update, status
  }

  var action: Action
  var isJSON: Bool
  var isIfStale: Bool

  init(_ arguments: ParsedArguments) throws(UsageError) {
    guard let word = arguments.positionals.first, let action = Action(rawValue: word) else {
      throw UsageError(
        message: "unknown action '\(arguments.positionals.first ?? "")': savevault manifest update|status",
        command: "manifest")
    }
    self.action = action
    isJSON = arguments.has(Self.json)
    isIfStale = arguments.has(Self.ifStale)
  }

  func run(_ session: Session) throws -> ExitStatus {
    let vault = session.vault
    switch action {
    case .status:
      let status = try vault.manifestStatus(configFile: session.configFile)
      if isJSON {
        session.console.json(status)
      } else {
        session.console.out(Self.describe(status))
      }
      return .success
    case .update:
      let update = try vault.updateManifest(
        configFile: session.configFile, refresh: isIfStale ? .background : .force)
      if isJSON {
        session.console.json(UpdateLine(update))
      } else {
        session.console.out(Self.describe(update))
      }
      if case .failed = update.outcome { return .containerUnavailable }
      return .success
    }
  }

  static func describe(_ update: LocationManifestUpdate) -> String {
    let status = update.status.map(describe)
    switch update.outcome {
    case .updated: return "Updated the manifest.\n" + (status ?? "")
    case .unchanged: return "The manifest is current (the server said unchanged).\n" + (status ?? "")
    case .notDownloaded: return "Not downloaded: the manifest is a file used as it is.\n" + (status ?? "")
    case .notDue: return "Not due: the copy was checked less than a day ago.\n" + (status ?? "")
    case .failed(let reason):
      guard let status else {
        return "Download failed: \(reason). " + (update.error.map { "\($0)" } ?? "")
      }
      return "Download failed: \(reason); the copy there was is kept.\n" + status
    }
  }

  static func describe(_ status: LocationManifestStatus) -> String {
    var lines = [
      "source:  \(sourceText(status.source))",
      "path:    \(status.path)",
      "games:   \(status.games)",
    ]
    if let url = status.url { lines.append("url:     \(url)") }
    if let age = status.ageMs { lines.append("age:     \(Self.age(age))") }
    if let etag = status.etag { lines.append("etag:    \(etag)") }
    for secondary in status.secondary { lines.append("merged:  \(secondary)") }
    return lines.joined(separator: "\n")
  }

  static func sourceText(_ source: LocationManifestStatus.Source) -> String {
    switch source {
    case .environment: "SAVEVAULT_MANIFEST"
    case .config: "the config file's manifest"
    case .download: "SaveVault's copy"
    case .ludusavi: "Ludusavi's copy"
    }
  }

  static func age(_ ms: Int64) -> String {
    let minutes = ms / 60_000
    if minutes < 60 { return "\(minutes) min" }
    if minutes < 48 * 60 { return "\(minutes / 60) h" }
    return "\(minutes / 1440) days"
  }

  /// `manifest update --json`.
  struct UpdateLine: Encodable {
    var outcome: String
    var reason: String?
    var status: LocationManifestStatus?
    var error: String?

    init(_ update: LocationManifestUpdate) {
      switch update.outcome {
      case .updated: outcome = "updated"
      case .unchanged: outcome = "unchanged"
      case .notDownloaded: outcome = "notDownloaded"
      case .notDue: outcome = "notDue"
      case .failed(let reason):
        outcome = "failed"
        self.reason = reason
      }
      status = update.status
      error = update.error.map { "\($0)" }
    }
  }
}
