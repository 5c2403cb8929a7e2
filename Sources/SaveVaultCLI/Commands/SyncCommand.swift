import SaveVault

/// `savevault sync`: upload or restore, whichever way the save changed; ask when both did.
struct SyncCommand: Command {
  static let onConflict = Option.onConflict(unanswered: "exit 3", skipped: "exit 0")
  static let json = Option.json(
    "print the state found and the action taken as JSON (with no TARGET: a list, one object per game)")

  static let declaration = CommandDeclaration(
    name: "sync", abstract: "upload or restore, whichever way the save changed; ask when both changed",
    discussion: """
      Compares the local save, the container and this device's last agreement, and acts:
      in-sync does nothing; local-changed and cloud-empty upload; cloud-changed and
      local-missing restore (the local save is kept as a pre-restore copy), except that a save
      deleted since the last agreement is asked about like a conflict. When both sides
      changed since they last agreed, the player chooses, or POLICY decides. A conflict or
      deletion left unanswered (or skipped) stays one, whatever the save does meanwhile, until
      it is settled. No choice uploads a missing or empty save (backup --force does), and no
      policy uploads a save that came back after it was seen missing (a drive mounted again
      over a new game's save): only the player, at the question.
      """,
    takesTarget: true, options: [onConflict, .compress, json],
    noTarget: CommandDeclaration.everyGameInTurn)

  var selection: TargetSelection
  var policy: ConflictPolicy
  var isJSON: Bool

  init(_ arguments: ParsedArguments) {
    selection = TargetSelection(arguments)
    policy = arguments.choice(Self.onConflict, as: ConflictPolicy.self) ?? .prompt
    isJSON = arguments.has(Self.json)
  }

  func run(_ session: Session) throws -> ExitStatus {
    try session.forEachReport(selection, isJSON: isJSON) { target in
      Advice.spelled(try session.vault.sync(target, policy: policy, resolver: session.resolver))
    } text: { report, _ in
      session.console.out(Self.describe(report))
    } then: { report in
      if let question = report.unanswered { throw question }
    }
    return .success
  }

  /// What a sync found and did, in one line.
  static func describe(_ report: SyncReport) -> String {
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
    case .unanswered:
      return report.state == .localMissing
        ? "\(report.game): the local save was deleted since the last agreement; left as it is."
        : "\(report.game): conflict left unresolved; nothing changed."
    }
  }
}
