import Foundation
import SaveVault

/// `savevault list`: a game's archives, or this device's pre-restore copies.
struct ListCommand: Command {
  static let preRestore = Option(
    name: "pre-restore", kind: .flag,
    help:
      "list this device's pre-restore copies instead (the saves restores replaced), newest first, marking the one an undo puts back"
  )
  static let json = Option.json("print the list as JSON")

  static let declaration = CommandDeclaration(
    name: "list", abstract: "list a game's archives, newest first",
    discussion: """
      Lists the game's archives in the container, newest first: name, size, time (local
      time and ms since the epoch) and the device that made it. packsave- files whose names
      SaveVault did not make are listed apart: never the latest, never pruned, restorable by
      name.
      """,
    takesTarget: true, options: [preRestore, json], noTarget: CommandDeclaration.targetRequired)

  var selection: TargetSelection
  var listsPreRestore: Bool
  var isJSON: Bool

  init(_ arguments: ParsedArguments) {
    listsPreRestore = arguments.has(Self.preRestore)
    // Reading the container only (not --pre-restore): where the save lies is no matter.
    selection = TargetSelection(arguments, checksPlacement: listsPreRestore)
    isJSON = arguments.has(Self.json)
  }

  func run(_ session: Session) throws -> ExitStatus {
    if listsPreRestore {
      try listPreRestore(session)
      return .success
    }
    let console = session.console
    let report = try session.vault.list(try session.target(selection))
    if isJSON {
      console.json(report)
      return .success
    }
    if report.archives.isEmpty { console.out("No archives of \(report.game) in \(report.container).") }
    let width = (report.archives + report.unrecognized).map(\.name.count).max() ?? 0
    func line(_ archive: ArchiveListing) -> String {
      let name = archive.name.padding(toLength: width, withPad: " ", startingAt: 0)
      let size = Format.bytes(archive.size).padding(toLength: 10, withPad: " ", startingAt: 0)
      return "\(name)  \(size)  \(Format.time(archive.modifiedMs))  \(archive.device ?? "-")"
    }
    for archive in report.archives { console.out(line(archive)) }
    guard !report.unrecognized.isEmpty else { return .success }
    console.out(
      "\nNot SaveVault's names (no time or device in them; never the latest, never pruned; 'restore --archive NAME' reads them):"
    )
    for archive in report.unrecognized { console.out(line(archive)) }
    return .success
  }

  private func listPreRestore(_ session: Session) throws {
    let console = session.console
    let report = session.vault.listPreRestore(try session.target(selection))
    if isJSON { return console.json(report) }
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
