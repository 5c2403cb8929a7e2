import Foundation
import SaveVault

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Commands {
  /// `savevault doctor [TARGET] [--json]`: every check with ok, warning or problem and how to
  /// fix it. Exits 0 with no problem (warnings allowed), else with the code of the first
  /// problem's kind: 2 settings, 1 the local save, 4 the container.
  func doctor() throws -> Int32 {
    try arguments.requireOnly(Self.targetOptions.union(["json"]))
    let checks = vault.doctor(try targetRequest())
    let code = checks.first { $0.status == .problem }.map { Self.exitCode(for: $0.area) } ?? 0
    if arguments.has("json") {
      console.json(checks.map(DoctorLine.init))
      return code
    }
    let paint = Paint(isEnabled: Paint.isWanted(environment: vault.context.environment, fd: STDOUT_FILENO))
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
    return code
  }

  static func exitCode(for area: DoctorCheck.Area) -> Int32 {
    switch area {
    case .settings: 2
    case .local: 1
    case .container: 4
    }
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
    self.exitCode = check.status == .problem ? Commands.exitCode(for: check.area) : nil
  }
}
