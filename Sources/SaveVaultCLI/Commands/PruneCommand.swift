import SaveVault

/// `savevault prune`: old archives deleted, never the newest of any device.
struct PruneCommand: Command {
  static let keep = Option(
    name: "keep", kind: .number(placeholder: "N", minimum: 1),
    help: "how many of the newest archives to keep (at least 1)")
  static let keepPreRestore = Option(
    name: "keep-pre-restore", kind: .number(placeholder: "N", minimum: 1),
    help:
      "also (or only) delete this device's pre-restore copies but the newest N (at least 1) and the one an undo puts back",
    summary: "how many of this device's pre-restore copies to keep")
  static let json = Option.json("print what was kept and deleted as JSON")

  static let declaration = CommandDeclaration(
    name: "prune", abstract: "delete old archives, never the newest of any device",
    discussion: """
      Deletes archives older than the newest N, but never the newest archive of any device,
      and never the last one that holds a save while only empty ones would be kept.
      """,
    takesTarget: true, options: [keep, keepPreRestore, json],
    groups: [
      CommandDeclaration.Group(
        names: [keep.name, keepPreRestore.name], isExclusive: false,
        missing:
          "say how many to keep: --keep N (archives in the container), --keep-pre-restore N (copies on this device), or both"
      )
    ],
    noTarget: CommandDeclaration.targetRequired)

  var selection: TargetSelection
  var keep: Int?
  var keepPreRestore: Int?
  var isJSON: Bool

  init(_ arguments: ParsedArguments) {
    selection = TargetSelection(arguments)
    keep = arguments.number(Self.keep)
    keepPreRestore = arguments.number(Self.keepPreRestore)
    isJSON = arguments.has(Self.json)
  }

  func run(_ session: Session) throws -> ExitStatus {
    let console = session.console
    let report = try session.vault.prune(
      try session.target(selection), keep: keep, keepPreRestore: keepPreRestore)
    if isJSON {
      console.json(report)
      return .success
    }
    for name in report.preRestoreDeleted ?? [] { console.out("deleted pre-restore copy \(name)") }
    if let kept = report.preRestoreKept, let deleted = report.preRestoreDeleted {
      console.out(
        "Kept \(kept.count) pre-restore cop\(kept.count == 1 ? "y" : "ies") of \(report.game); deleted \(deleted.count)."
      )
    }
    guard keep != nil else { return .success }
    for name in report.deleted { console.out("deleted \(name)") }
    console.out(
      "Kept \(report.kept.count) archive\(report.kept.count == 1 ? "" : "s") of \(report.game); deleted \(report.deleted.count)."
    )
    return .success
  }
}
