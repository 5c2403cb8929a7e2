import Foundation
import SaveVault

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `savevault doctor`: every check with ok, warning or problem and how to fix it.
struct DoctorCommand: Command {
  static let json = Option.json("print the checks as a JSON list")

  static let declaration = CommandDeclaration(
    name: "doctor", abstract: "check the config, save directories, containers, credentials and tools",
    discussion: """
      Checks what the other commands rely on and says how to fix what is wrong: the config
      file (it parses; each game's fields; unknown keys), each save directory (exists, every
      file and folder in it readable), each container (reachable, and writable: a probe object is written and
      removed, never under a packsave- name), S3 credentials (present, accepted) and this
      machine's clock against the S3 server's, rclone for rclone: containers, and zenity or
      kdialog in a desktop session. With no TARGET, every game of the config file.

      Each check is ok, warning or problem. Exits 0 when there is no problem (warnings
      allowed), else with the code of the first problem: 2 settings (config file,
      credentials missing, a tool missing), 1 a save directory, 4 a container (unreachable,
      not writable, credentials refused, clock too far off).
      """,
    takesTarget: true, options: [json],
    noTarget: "every game of the config file (with none, the container a --save-dir command would use)")

  var selection: TargetSelection
  var isJSON: Bool

  init(_ arguments: ParsedArguments) {
    selection = TargetSelection(arguments)
    isJSON = arguments.has(Self.json)
  }

  var warnsAboutUnknownConfigKeys: Bool { false }

  /// Exits 0 with no problem (warnings allowed), else with the status of the first problem's
  /// area: 2 settings, 1 the local save, 4 the container.
  func run(_ session: Session) throws -> ExitStatus {
    let console = session.console
    let checks = session.vault.doctor(session.request(selection))
    let status = checks.first { $0.status == .problem }?.area.exitStatus ?? .success
    if isJSON {
      console.json(checks.map(DoctorLine.init))
      return status
    }
    let paint = Paint(
      isEnabled: Paint.isWanted(environment: session.vault.context.environment, fd: STDOUT_FILENO))
    for check in checks where !console.isQuiet || check.status == .problem {
      let status = check.status.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
      let kind = check.check.padding(toLength: 12, withPad: " ", startingAt: 0)
      Console.write(
        paint(status, Self.color(check.status)) + " " + kind + " " + check.subject + ": " + check.message)
      if let fix = check.fix, check.status != .ok {
        Console.write(String(repeating: " ", count: 22) + "fix: " + fix)
      }
    }
    let problems = checks.filter { $0.status == .problem }.count
    let warnings = checks.filter { $0.status == .warning }.count
    console.out(
      problems + warnings == 0
        ? "Everything is ready."
        : "\(Format.count(problems, "problem")), \(Format.count(warnings, "warning")).")
    return status
  }

  private static func color(_ status: DoctorCheck.Status) -> Paint.Color {
    switch status {
    case .ok: .green
    case .warning: .yellow
    case .problem: .red
    }
  }
}

/// One check as `doctor --json` prints it.
struct DoctorLine: Encodable {
  var check: String
  var subject: String
  var status: String
  var message: String
  var fix: String?
  /// The exit code this problem stands for (problems only).
  var exitCode: Int32?

  init(_ check: DoctorCheck) {
    self.check = check.check
    self.subject = check.subject
    self.status = check.status.rawValue
    self.message = check.message
    self.fix = check.fix
    self.exitCode = check.status == .problem ? check.area.exitStatus.code : nil
  }
}
