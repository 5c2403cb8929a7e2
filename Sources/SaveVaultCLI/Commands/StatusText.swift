import SaveVault

/// A game's status in words, with what to do next as exact command lines.
struct StatusText {
  var session: Session
  /// How the run named the game, for the command lines it suggests.
  var options: TargetOptions

  private func commandLine(_ words: [String], for target: Target) -> String {
    session.commandLine(words, for: target, options: options)
  }

  func describe(_ report: StatusReport, target: Target) -> String {
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
    // A game of several locations: the first is `saveDir`, the others follow.
    lines += report.locations.dropFirst().map { "          and \($0.path)\($0.exists ? "" : ": absent")" }
    for location in report.leftOut {
      lines.append("  left out \(location.path) (\(location.portable))")
    }
    if !report.leftOut.isEmpty {
      let title = target.discovered?.title ?? report.game
      lines.append(
        "          scanning finds saves there that the game's locations do not take, so backups are refused: \(Advice.spelling(.detectGameAgain(title))) adds them, or name them in the game's \"exclude\""
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
    if cloud.isLocalOnly { lines.append("  local only: \(session.localOnlyAdvice)") }
    if let agreed = report.agreement {
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
          + (report.state == .conflict || report.agreement?.unanswered != nil
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
}
