import SaveVault

/// `savevault restore`: an archive over the save directory, or the save the last restore
/// replaced put back (`--undo`).
struct RestoreCommand: Command {
  static let latest = Option(name: "latest", kind: .flag, help: "restore the newest archive")
  static let archive = Option(
    name: "archive", kind: .value(placeholder: "NAME"),
    help: "restore the named archive (see 'savevault list')",
    summary: "restore the named archive")
  static let undo = Option(name: "undo", kind: .flag, help: "put back the save the last restore replaced")
  static let json = Option.json("print the result as JSON")

  static let declaration = CommandDeclaration(
    name: "restore", abstract: "restore an archive over the save directory (the current save is kept)",
    discussion: """
      Verifies the archive, extracts it into a staging folder beside the save directory,
      keeps the current save as a pre-restore copy under
      $XDG_DATA_HOME/savevault/pre-restore/<game>/ (the folder itself, moved there, when it is
      on the same filesystem; else packed into a .tar), then swaps the folders. A corrupt or
      hostile archive is refused (exit 5) before anything in the save directory changes.
      Symlinks leading outside the save and FIFOs, which no archive holds, stay in the save.
      When the current save cannot be kept first (no room for its copy), or the save
      directory is a mount point, nothing is restored (exit 1).

      An --archive older than the cloud's latest is a rollback: the restored save is your
      choice, so the next sync (or backup) uploads it as the latest; the newer archive stays.

      --undo puts back the save as it was just before the last restore (by restore, sync or
      wrap), from its pre-restore copy, the same verified way; the save it replaces is kept
      as a new pre-restore copy, so a second --undo puts that back again. This device's
      agreement with the cloud returns to what it was before the restore, so status says
      what it said then (a conflict stays a conflict, local-changed stays local-changed);
      when the restore had brought a newer cloud save over an unchanged local one, the
      agreement is forgotten instead, so the next sync asks instead of restoring it again.
      With nothing to put back, exits 1.
      """,
    takesTarget: true, options: [latest, archive, undo, json],
    groups: [
      CommandDeclaration.Group(
        names: [latest.name, archive.name, undo.name],
        missing:
          "say which archive: --latest or --archive NAME (or --undo to put back the last restore's copy)",
        conflict: { given in
          given.contains(undo.name)
            ? "--undo takes no --latest or --archive" : "give either --latest or --archive NAME, not both"
        })
    ],
    noTarget: CommandDeclaration.targetRequired)

  /// What is put in place.
  enum Step: Equatable, Sendable {
    case archive(RestoreSelection)
    /// The save the last restore replaced.
    case undo
  }

  var selection: TargetSelection
  var step: Step
  var isJSON: Bool

  init(_ arguments: ParsedArguments) {
    selection = TargetSelection(arguments)
    if arguments.has(Self.undo) {
      step = .undo
    } else {
      step = .archive(arguments.value(Self.archive).map { .named($0) } ?? .latest)
    }
    isJSON = arguments.has(Self.json)
  }

  func stopped(by interrupted: Interrupted, hasFinished: Bool) -> String {
    let signal = interrupted.signalName
    let step = step == .undo ? "undo" : "restore"
    return hasFinished
      ? "stopped by \(signal) after the \(step) had finished; the save is the one it put in place"
      : "stopped by \(signal): the \(step) did not happen; the save is as it was"
  }

  func run(_ session: Session) throws -> ExitStatus {
    guard case .archive(let archive) = step else {
      try undo(session)
      return .success
    }
    let console = session.console
    let report = try session.vault.restore(try session.target(selection), selection: archive)
    if isJSON {
      console.json(report)
      return .success
    }
    console.out(
      "Restored \(report.game) from \(report.archive) (\(report.verified ? "verified" : "unverified: no manifest"), \(Format.count(report.files, "file")), \(Format.bytes(report.bytes))) into \(report.saveDir)"
    )
    if let copy = report.preRestoreCopy { console.out("The previous save is kept in \(copy)") }
    if let newer = report.rolledBackFrom {
      console.out(
        "This is older than the cloud's latest, \(newer): it is now your choice, and the next sync (or backup) uploads it as the latest; \(newer) stays in the container."
      )
    }
    return .success
  }

  /// `restore --undo`.
  private func undo(_ session: Session) throws {
    let console = session.console
    let target = try session.target(selection)
    let report = try session.vault.undoRestore(target)
    if isJSON { return console.json(report) }
    console.out(
      "Put back \(report.game) as it was before its last restore: \(report.restoredCopy) (\(Format.count(report.files, "file")), \(Format.bytes(report.bytes))) into \(report.saveDir)"
    )
    if let copy = report.preRestoreCopy {
      console.out(
        "The save it replaced is kept in \(copy); '\(session.commandLine(["restore", "--undo"], for: target, options: selection.options))' again puts it back."
      )
    }
    console.out(
      "Agreement with the cloud: \(report.note). Run '\(session.commandLine(["status"], for: target, options: selection.options))' to see where it stands."
    )
  }
}
