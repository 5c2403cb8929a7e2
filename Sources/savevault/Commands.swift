import Foundation
import SaveVault

/// Runs one command against the library and prints its report.
struct Commands {
  var vault: Vault
  var console: Console
  var arguments: Arguments

  static let targetOptions: Set<String> = [
    "game", "save-dir", "container", "endpoint", "allow-insecure-http",
  ]

  /// Runs `command`; returns the exit code (0, or the game's for `wrap`).
  func run(_ command: String) throws -> Int32 {
    if command != "doctor" && command != "completions" { warnAboutUnknownConfigKeys() }
    switch command {
    case "backup": try backup()
    case "status": try status()
    case "restore": try restore()
    case "list": try list()
    case "prune": try prune()
    case "verify": try verify()
    case "sync": try sync()
    case "wrap": return try wrap()
    case "doctor": return try doctor()
    case "completions": try listGameNames()
    case "add": try addGame()
    case "games": try listGames()
    case "remove": try removeGame()
    default:
      throw UsageError(message: "unknown command '\(command)'", command: nil)
    }
    return 0
  }

  /// Warns once per run of each key outside the game entries that the config file has and
  /// SaveVault does not know (`doctor` lists them as checks instead).
  private func warnAboutUnknownConfigKeys() {
    let path = vault.configPath(arguments.configFile)
    for key in vault.unknownConfigKeys(configFile: arguments.configFile) {
      console.log.warning("config file '\(path)': \(key) is ignored")
    }
  }

  /// Runs `body` for the target the flags name or, with no --game and no --save-dir, for
  /// every game of the config file; one game's failure is reported and the others still run.
  func forEachTarget(_ body: (Target) throws -> Void) throws {
    guard arguments.options["game"] == nil, arguments.options["save-dir"] == nil else {
      return try body(try target())
    }
    let games = try vault.configuredGameEntries(configFile: arguments.configFile).map(\.name)
    guard !games.isEmpty else { return try body(try target()) }  // says how to name a game
    var first: (any Error)?
    for game in games {
      do {
        try body(try target(game: game))
      } catch let interrupted as Interrupted {
        throw interrupted  // asked to stop: not the next game either
      } catch {
        let message = Advice.text(for: error)
        console.error(message.hasPrefix(game + ":") ? message : "\(game): \(message)")
        first = first ?? error
      }
    }
    if let first { throw AlreadyReported(error: first) }
  }

  /// `forEachTarget` for a command that makes one report per target: with --json, the named
  /// target's report as one JSON object or, with no target, every game's as one JSON list
  /// (those that worked, printed even when another game failed); else `text` prints each.
  /// `then` runs after each report is printed (or kept for the list), and may throw.
  func forEachReport<Report: Encodable>(
    _ make: (Target) throws -> Report, text: (Report, Target) -> Void,
    then check: (Report) throws -> Void = { _ in }
  ) throws {
    let isJSON = arguments.has("json")
    let isList = isJSON && arguments.options["game"] == nil && arguments.options["save-dir"] == nil
    var reports: [Report] = []
    defer {
      if isList && !reports.isEmpty { console.json(reports) }
    }
    try forEachTarget { target in
      let report = try make(target)
      if isList {
        reports.append(report)
      } else if isJSON {
        console.json(report)
      } else {
        text(report, target)
      }
      try check(report)
    }
  }

  func target(game: String? = nil) throws -> Target {
    try vault.resolve(try targetRequest(game: game))
  }

  /// The target the flags name (`game` replacing --game), before resolution.
  func targetRequest(game: String? = nil) throws -> TargetRequest {
    var request = TargetRequest(
      game: game ?? arguments.options["game"], saveDirectory: arguments.options["save-dir"],
      containerURL: arguments.options["container"], configFile: arguments.configFile,
      endpoint: arguments.options["endpoint"], allowsInsecureHTTP: arguments.has("allow-insecure-http"),
      compression: try compression())
    // Reading the container only (not list --pre-restore): where the save lies is no matter.
    request.checksPlacement =
      !(arguments.command == "verify" || (arguments.command == "list" && !arguments.has("pre-restore")))
    return request
  }

  private func backup() throws {
    try arguments.requireOnly(Self.targetOptions.union(["force", "json", "compress"]))
    try forEachReport { target in
      try vault.backup(target, force: arguments.has("force"), resolver: resolver)
    } text: { report, _ in
      switch report.outcome {
      case .uploaded:
        console.out(
          "Backed up \(report.game): \(Format.count(report.files, "file")), \(Format.bytes(report.bytes)) -> \(report.archive) (\(Format.bytes(report.archiveBytes))) in \(report.container)"
        )
      case .unchanged:
        console.out(
          "\(report.game) is unchanged since \(report.archive); nothing uploaded (use --force to upload anyway)"
        )
      case .skipped:
        console.out("\(report.game): skipped; nothing uploaded, the conflict stays until you resolve it.")
      }
      if let overrode = report.overrodeArchive {
        console.out(
          "Note: this upload went over the container's latest, \(overrode), which this device had not agreed on; it stays in the container."
        )
      } else if let newer = report.newerCloudArchive {
        console.out(
          "Note: the container's latest archive \(newer) came from another device; see 'savevault status'.")
      }
    }
  }

  private func status() throws {
    try arguments.requireOnly(Self.targetOptions.union(["json"]))
    let isAll = arguments.options["game"] == nil && arguments.options["save-dir"] == nil
    if isAll && !arguments.has("json"), try statusTable() { return }  // one line per game
    try forEachReport { target in
      try vault.status(target)
    } text: { report, target in
      console.out(describe(report, target: target))
    }
  }

  private func describe(_ report: StatusReport, target: Target) -> String {
    var lines = ["\(report.game): \(report.state.rawValue)"]
    lines += report.repaired.map { "  repaired \($0)" }
    if report.isBusy { lines.append("  busy    another savevault is working on this game right now") }
    let local = report.local
    if !local.exists {
      lines.append("  local   \(local.saveDir): missing")
    } else {
      let newest = local.modifiedMs.map { "newest change \(Format.time($0)), " } ?? "empty, "
      lines.append(
        "  local   \(local.saveDir): \(newest)\(Format.count(local.files, "file")), \(Format.bytes(local.bytes))"
      )
    }
    let cloud = report.cloud
    if let latest = cloud.latest {
      lines.append("  cloud   \(latest)")
      lines.append(
        "          made \(cloud.modifiedMs.map(Format.time) ?? "?") by \(cloud.device ?? "another tool"), \(Format.bytes(cloud.bytes ?? 0))"
      )
      lines.append("          \(cloud.count) archive\(cloud.count == 1 ? "" : "s") in \(cloud.container)")
    } else {
      lines.append("  cloud   no archives in \(cloud.container)")
    }
    if let agreed = report.ledger {
      lines.append("  agreed  \(agreed.archive) at \(Format.time(agreed.agreedAtMs))")
      if let newer = agreed.rolledBackFrom {
        lines.append("          restored on purpose over the newer \(newer): the next sync uploads it")
      }
      if let unanswered = agreed.unanswered, report.state != .inSync {
        lines.append(
          "  asked   a \(unanswered.kind.rawValue) seen \(Format.time(unanswered.seenAtMs)) is still unanswered: it stays one until you choose"
        )
      }
    } else {
      lines.append("  agreed  nothing yet on this device (\(report.device))")
    }
    if let moved = report.movedFrom {
      lines.append("  moved   the last agreement was about \(moved); this folder is compared by content")
    }
    if report.preRestore.count > 0 {
      lines.append(
        "  kept    \(report.preRestore.count) pre-restore cop\(report.preRestore.count == 1 ? "y" : "ies") in \(report.preRestore.directory)"
      )
    }
    if report.pending.count > 0 {
      lines.append(
        "  pending \(Format.count(report.pending.count, "archive")) kept while the container was unreachable, in \(report.pending.directory), "
          + (report.state == .conflict || report.ledger?.unanswered != nil
            ? "waiting until the conflict is settled (then kept as pre-restore copies if another save wins):"
            : "uploaded at the next run that reaches it:")
      )
      lines += report.pending.archives.map { "          \($0)" }
    }
    lines.append(advice(for: report, target: target))
    return lines.joined(separator: "\n")
  }

  /// What to do next, with the exact command for this target.
  private func advice(for report: StatusReport, target: Target) -> String {
    let take =
      "to take the cloud's (the local one is kept): \(commandLine(["sync", "--on-conflict", "restore"], for: target))"
    switch (report.state, report.conflictKind) {
    case (.inSync, _): return "Nothing to do."
    case (.cloudEmpty, _) where report.local.files == 0:
      return "Nothing to back up yet: the save directory is missing or empty."
    case (.localChanged, _), (.cloudEmpty, _):
      return "To upload the local save: \(commandLine(["backup"], for: target))"
    case (.localMissing, .localDeleted?):
      return """
        The local save is missing or empty since it last agreed with the cloud (deleted, or its drive is not mounted).
          \(take)
          to make the deletion the cloud's latest: \(commandLine(["backup", "--force"], for: target))
        """
    case (.cloudChanged, _), (.localMissing, _):
      return
        "To get the cloud's save (the local one is kept): \(commandLine(["restore", "--latest"], for: target))"
    case (.conflict, let kind):
      // A save that may not be the agreed one is uploaded only on purpose.
      let keep =
        kind?.mayUploadByPolicy == false
        ? commandLine(["backup", "--force"], for: target)
        : commandLine(["sync", "--on-conflict", "upload"], for: target)
      return """
        \((kind ?? .bothChanged).situation.prefix(1).uppercased() + (kind ?? .bothChanged).situation.dropFirst()). To choose at a prompt: \(commandLine(["sync"], for: target))
          to keep the local save (upload it): \(keep)
          \(take)
        """
    }
  }

  private func policy() throws -> ConflictPolicy {
    guard let text = arguments.options["on-conflict"] else { return .prompt }
    guard let policy = ConflictPolicy(rawValue: text) else {
      let names = ConflictPolicy.allCases.map(\.rawValue).joined(separator: ", ")
      throw UsageError(
        message: "--on-conflict must be one of \(names), not '\(text)'", command: arguments.command)
    }
    return policy
  }

  /// Who settles a conflict when the policy is `prompt`.
  private var resolver: any ConflictResolver {
    Prompts.resolver(environment: vault.context.environment, interruption: vault.context.interruption)
  }

  private func sync() throws {
    try arguments.requireOnly(Self.targetOptions.union(["on-conflict", "json", "compress"]))
    let policy = try policy()
    try forEachReport { target in
      try vault.sync(
        target, policy: policy, resolver: resolver)
    } text: { report, _ in
      console.out(describe(report))
    } then: { report in
      if report.action == .unresolved { throw SyncUnresolved(message: report.note ?? report.game) }
    }
  }

  private func describe(_ report: SyncReport) -> String {
    let by = report.decidedBy.map { " (chosen by \($0))" } ?? ""
    switch report.action {
    case .none:
      return "\(report.game): \(report.state.rawValue); nothing to do"
        + (report.note.map { ": \($0)" } ?? ".")
    case .uploaded: return "\(report.game): \(report.state.rawValue); uploaded \(report.archive ?? "")\(by)."
    case .restored:
      return "\(report.game): \(report.state.rawValue); restored \(report.archive ?? "")\(by)."
        + (report.preRestoreCopy.map { " The previous save is kept in \($0)" } ?? "")
    case .skipped: return "\(report.game): \(report.state.rawValue); skipped\(by), nothing changed."
    case .unresolved:
      return report.state == .localMissing
        ? "\(report.game): the local save was deleted since the last agreement; left as it is."
        : "\(report.game): conflict left unresolved; nothing changed."
    }
  }

  private func wrap() throws -> Int32 {
    try arguments.requireOnly(Self.targetOptions.union(["on-conflict", "json", "compress"]))
    guard let command = arguments.trailing, !command.isEmpty else {
      throw UsageError(
        message: "say which game to run: savevault wrap [TARGET] -- COMMAND [ARG...]", command: "wrap")
    }
    let policy = try policy()
    // wrap never blocks play: a target it cannot use (the config file, a refused save
    // directory) is not synced, and the game runs; the launch line's own flags are checked above.
    let found: Target?
    do {
      found = try wrapTarget()
    } catch let error as ConfigError {
      console.log.warning("\(Advice.text(for: error)); running the game without syncing")
      return try runUnwrapped(command)
    }
    guard let target = found else { return try runUnwrapped(command) }  // Steam: by app id
    let json = arguments.has("json")
    let report = try vault.wrap(
      target, policy: policy, resolver: resolver,
      runner: GameProcess(interruption: vault.context.interruption), command: command
    ) { phase, sync in
      // The game owns stdout: wrap's own messages go to stderr.
      guard let sync else { return }
      if json {
        console.jsonLine([
          "phase": phase, "state": sync.state.rawValue, "action": sync.action.rawValue,
          "archive": sync.archive ?? "",
        ])
      } else if !console.isQuiet {
        console.note("\(phase) the game: " + describe(sync))
      }
    }
    return report.gameExitCode
  }

  private func verify() throws {
    try arguments.requireOnly(Self.targetOptions.union(["latest", "archive", "all", "json"]))
    let chosen = [arguments.has("latest"), arguments.options["archive"] != nil, arguments.has("all")]
    guard chosen.filter({ $0 }).count <= 1 else {
      throw UsageError(message: "give one of --latest, --archive NAME or --all", command: "verify")
    }
    let selection: VerifySelection =
      arguments.has("all") ? .all : arguments.options["archive"].map { .named($0) } ?? .latest
    let report = try vault.verify(try target(), selection: selection)
    if arguments.has("json") {
      console.json(report)
    } else {
      for check in report.archives {
        if check.ok {
          let how =
            check.verified ? "ok, every byte matches its manifest" : "ok, structure only (no manifest)"
          console.out(
            "\(check.name)  \(how); \(Format.count(check.files, "file")), \(Format.bytes(check.bytes))")
        } else {
          console.out("\(check.name)  FAILED: \(check.error ?? "")")
        }
      }
    }
    if !report.failures.isEmpty { throw VerificationFailed(names: report.failures.map(\.name)) }
  }

  private func restore() throws {
    try arguments.requireOnly(Self.targetOptions.union(["latest", "archive", "json", "undo"]))
    if arguments.has("undo") { return try undoRestore() }
    let selection: RestoreSelection
    switch (arguments.has("latest"), arguments.options["archive"]) {
    case (true, nil): selection = .latest
    case (false, let name?): selection = .named(name)
    case (true, _?):
      throw UsageError(message: "give either --latest or --archive NAME, not both", command: "restore")
    case (false, nil):
      throw UsageError(
        message:
          "say which archive: --latest or --archive NAME (or --undo to put back the last restore's copy)",
        command: "restore")
    }
    let report = try vault.restore(try target(), selection: selection)
    if arguments.has("json") { return console.json(report) }
    console.out(
      "Restored \(report.game) from \(report.archive) (\(report.verified ? "verified" : "unverified: no manifest"), \(Format.count(report.files, "file")), \(Format.bytes(report.bytes))) into \(report.saveDir)"
    )
    if let copy = report.preRestoreCopy { console.out("The previous save is kept in \(copy)") }
    if let newer = report.rolledBackFrom {
      console.out(
        "This is older than the cloud's latest, \(newer): it is now your choice, and the next sync (or backup) uploads it as the latest; \(newer) stays in the container."
      )
    }
  }

  private func list() throws {
    try arguments.requireOnly(Self.targetOptions.union(["json", "pre-restore"]))
    if arguments.has("pre-restore") { return try listPreRestore() }
    let report = try vault.list(try target())
    if arguments.has("json") { return console.json(report) }
    if report.archives.isEmpty { console.out("No archives of \(report.game) in \(report.container).") }
    let width = (report.archives + report.unrecognized).map(\.name.count).max() ?? 0
    func line(_ archive: ArchiveListing) -> String {
      let name = archive.name.padding(toLength: width, withPad: " ", startingAt: 0)
      let size = Format.bytes(archive.size).padding(toLength: 10, withPad: " ", startingAt: 0)
      return "\(name)  \(size)  \(Format.time(archive.modifiedMs))  \(archive.device ?? "-")"
    }
    for archive in report.archives { console.out(line(archive)) }
    guard !report.unrecognized.isEmpty else { return }
    console.out(
      "\nNot SaveVault's names (no time or device in them; never the latest, never pruned; 'restore --archive NAME' reads them):"
    )
    for archive in report.unrecognized { console.out(line(archive)) }
  }

  private func prune() throws {
    try arguments.requireOnly(Self.targetOptions.union(["keep", "keep-pre-restore", "json"]))
    func count(_ option: String) throws -> Int? {
      guard let text = arguments.options[option] else { return nil }
      guard let number = Int(text), number >= 1 else {
        throw UsageError(
          message: "--\(option) needs a whole number of at least 1, not '\(text)'", command: "prune")
      }
      return number
    }
    let keep = try count("keep")
    let keepPreRestore = try count("keep-pre-restore")
    guard keep != nil || keepPreRestore != nil else {
      throw UsageError(
        message:
          "say how many to keep: --keep N (archives in the container), --keep-pre-restore N (copies on this device), or both",
        command: "prune")
    }
    let report = try vault.prune(try target(), keep: keep, keepPreRestore: keepPreRestore)
    if arguments.has("json") { return console.json(report) }
    for name in report.preRestoreDeleted ?? [] { console.out("deleted pre-restore copy \(name)") }
    if let kept = report.preRestoreKept, let deleted = report.preRestoreDeleted {
      console.out(
        "Kept \(kept.count) pre-restore cop\(kept.count == 1 ? "y" : "ies") of \(report.game); deleted \(deleted.count)."
      )
    }
    guard keep != nil else { return }
    for name in report.deleted { console.out("deleted \(name)") }
    console.out(
      "Kept \(report.kept.count) archive\(report.kept.count == 1 ? "" : "s") of \(report.game); deleted \(report.deleted.count)."
    )
  }

  private func listPreRestore() throws {
    let report = vault.listPreRestore(try target())
    if arguments.has("json") { return console.json(report) }
    guard !report.copies.isEmpty else {
      return console.out("No pre-restore copies of \(report.game) on this device (\(report.directory)).")
    }
    for copy in report.copies {
      let undo = copy.isUndo ? "  (restore --undo puts this back)" : ""
      console.out(
        "\(copy.path)  \(copy.kind.rawValue)  \(Format.bytes(copy.bytes))  \(Format.time(copy.modifiedMs))\(undo)"
      )
    }
  }
}

/// `verify` found damaged archives: exit 5.
struct VerificationFailed: Error, CustomStringConvertible {
  var names: [String]
  var description: String {
    "\(names.count) archive\(names.count == 1 ? "" : "s") failed verification: \(names.joined(separator: ", "))"
  }
}

/// An error already printed (one game's, while the others ran on): only its exit code is left.
struct AlreadyReported: Error {
  var error: any Error
}

/// A sync left its question unanswered: exit 3, with the library's explanation.
struct SyncUnresolved: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}
