import SaveVault

/// `savevault backup`: packs the save and uploads it.
struct BackupCommand: Command {
  static let force = Option(
    name: "force", kind: .flag,
    help:
      "upload without asking: even when unchanged, over a conflict, and a missing or empty save directory (to make a deletion the cloud's latest)"
  )
  static let json = Option.json("print the result as JSON (with no TARGET: a list, one object per game)")

  static let declaration = CommandDeclaration(
    name: "backup", abstract: "pack the save directory into a packsave-*.tar archive and upload it",
    discussion: """
      Packs the save directory into packsave-<UTC time>-<device>.tar (.tar.zst with zstd)
      and uploads it to the container, then records the agreement on this device. When the
      save has not changed since this device's last backup or restore, nothing is uploaded.
      When the cloud changed too (another device's save this device never agreed on), it
      asks whether to upload over it, as sync does (no terminal and no dialog: exit 3,
      nothing uploaded); the archive gone over stays in the container. A missing or empty
      save directory is refused.
      """,
    takesTarget: true, options: [force, .compress, json],
    noTarget: CommandDeclaration.everyGameInTurn)

  var selection: TargetSelection
  var isForced: Bool
  var isJSON: Bool

  init(_ arguments: ParsedArguments) {
    selection = TargetSelection(arguments)
    isForced = arguments.has(Self.force)
    isJSON = arguments.has(Self.json)
  }

  func run(_ session: Session) throws -> ExitStatus {
    let console = session.console
    try session.forEachReport(selection, isJSON: isJSON) { target in
      try session.vault.backup(target, force: isForced, resolver: session.resolver)
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
    return .success
  }
}
