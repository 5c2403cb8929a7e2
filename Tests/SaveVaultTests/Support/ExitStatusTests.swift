import SaveVault
import Testing

@testable import SaveVaultCLI

/// An error and the exit code the contract gives it.
struct ErrorStatus: Sendable, CustomTestStringConvertible {
  var error: any Error & Sendable
  var code: Int32
  var testDescription: String { "\(type(of: error)): \(String(describing: error).prefix(50)) → \(code)" }
}

@Suite("Exit status: one table for every error", .tags(.small))
struct ExitStatusTests {
  static let rows: [ErrorStatus] = [
    ErrorStatus(error: UsageError(message: "bad", command: nil), code: 2),
    ErrorStatus(error: ConfigError.invalid("bad"), code: 2),
    ErrorStatus(error: ContainerError.unavailable(container: "c", reason: "down"), code: 4),
    ErrorStatus(error: ContainerError.transferFailed(container: "c", name: "a", reason: "reset"), code: 4),
    ErrorStatus(error: ContainerError.noSpace(container: "c"), code: 4),
    ErrorStatus(error: ContainerError.notFound(container: "c", name: "a"), code: 1),
    ErrorStatus(error: ContainerError.alreadyExists(container: "c", name: "a"), code: 1),
    ErrorStatus(error: ContainerError.refusedName(container: "c", name: "a/b"), code: 1),
    ErrorStatus(error: ArchiveError.refused(archive: "a", reason: "hostile"), code: 5),
    ErrorStatus(error: ArchiveError.noSpace(path: "/p"), code: 1),
    ErrorStatus(error: VerificationFailed(names: ["a"]), code: 5),
    ErrorStatus(error: UnansweredQuestion(game: "g", reason: "nobody to ask", kind: .bothChanged), code: 3),
    ErrorStatus(error: UnansweredQuestion(game: "g", reason: "nobody to ask", kind: .localDeleted), code: 3),
    ErrorStatus(error: VaultError.busy(game: "g", holder: "pid 1", lockPath: "/l"), code: 6),
    ErrorStatus(error: VaultError.gameNotStarted(command: "game", reason: "not found"), code: 127),
    ErrorStatus(error: VaultError.io(path: "/p", reason: "EIO"), code: 1),
    ErrorStatus(error: Interrupted(signal: 15), code: 143),
    ErrorStatus(error: Interrupted(signal: 2), code: 130),
    ErrorStatus(
      error: AlreadyReported(error: ContainerError.unavailable(container: "c", reason: "down")), code: 4),
    ErrorStatus(error: CancellationError(), code: 1),
  ]

  @Test("the exit code of each error", arguments: rows)
  func code(_ row: ErrorStatus) {
    #expect(ExitStatus(for: row.error).code == row.code)
  }

  @Test("doctor's areas: settings 2, the local save 1, the container 4")
  func doctorAreas() {
    #expect(DoctorCheck.Area.settings.exitStatus.code == 2)
    #expect(DoctorCheck.Area.local.exitStatus.code == 1)
    #expect(DoctorCheck.Area.container.exitStatus.code == 4)
  }
}
