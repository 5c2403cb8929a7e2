import SaveVault

/// `savevault verify`: archives read and checked as a restore would, nothing written.
struct VerifyCommand: Command {
  static let latest = Option(name: "latest", kind: .flag, help: "the newest archive (the default)")
  static let archive = Option(name: "archive", kind: .value(placeholder: "NAME"), help: "one archive")
  static let all = Option(name: "all", kind: .flag, help: "every archive of the game")
  static let json = Option.json("print the results as JSON")

  static let declaration = CommandDeclaration(
    name: "verify", abstract: "check archives in the container, every byte, without touching the save",
    discussion: """
      Reads archives from the container and runs every check a restore runs: the tar
      structure, the entry rules (no paths outside, no devices, limits) and, for SaveVault's
      archives, every byte against the manifest. Nothing is written anywhere. Exits 5 if any
      archive fails, naming it.
      """,
    takesTarget: true, options: [latest, archive, all, json],
    groups: [
      CommandDeclaration.Group(
        names: [latest.name, archive.name, all.name],
        conflict: { _ in "give one of --latest, --archive NAME or --all" })
    ],
    noTarget: CommandDeclaration.targetRequired)

  var selection: TargetSelection
  var archives: VerifySelection
  var isJSON: Bool

  init(_ arguments: ParsedArguments) {
    // Reading the container only: where the save lies is no matter.
    selection = TargetSelection(arguments, checksPlacement: false)
    archives =
      arguments.has(Self.all) ? .all : arguments.value(Self.archive).map { .named($0) } ?? .latest
    isJSON = arguments.has(Self.json)
  }

  func run(_ session: Session) throws -> ExitStatus {
    let console = session.console
    let report = try session.vault.verify(try session.target(selection), selection: archives)
    if isJSON {
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
    return .success
  }
}

/// `verify` found damaged archives: exit status 5.
struct VerificationFailed: Error, CustomStringConvertible, ExitStatusProviding {
  var names: [String]
  var description: String {
    "\(names.count) archive\(names.count == 1 ? "" : "s") failed verification: \(names.joined(separator: ", "))"
  }
  var exitStatus: ExitStatus { .archiveRefused }
}
