import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

// `doctor` against a save that holds what a backup cannot read, through the built binary: it
// must not say "Everything is ready" when `backup` then fails. Root reads everything, so as
// root the binary runs as nobody (setpriv), in folders nobody may use. A registry location's
// file in the prefix that is no Wine registry file SaveVault reads fails a backup the same way.

@Suite("Doctor: unreadable files and folders inside the save, unreadable registry files", .tags(.medium))
struct DoctorUnreadableTests {
  /// Runs the binary as this user or, as root, as nobody.
  private func run(_ dir: TemporaryDirectory, _ arguments: [String]) async throws -> RunResult {
    let sandbox = try Sandbox(in: dir, environment: ["PATH": "/usr/bin:/bin"])
    guard getuid() == 0 else { return try await sandbox.runAwaiting(arguments) }
    let setpriv = try #require(which("setpriv"), "setpriv (util-linux) is needed")
    return try await runProgramAwaiting(
      setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", savevaultBinary] + arguments,
      environment: sandbox.environment)
  }

  @Test("an unreadable file or folder inside the save is a problem (exit 1) naming the first few")
  func unreadableInside() async throws {
    let dir = TemporaryDirectory("doctor-unreadable")
    let save = dir.sub("saves/celeste")
    try writeFile(save + "/slot1.sav", "chapter 3")
    try writeFile(save + "/sub/options.ini", "vsync=1")
    try makeDirectory(dir.sub("cloud"))
    try makeDirectory(dir.sub("home"))
    let folders = [dir.path, dir.sub("saves"), save, save + "/sub", dir.sub("cloud"), dir.sub("home")]
    for path in folders { chmod(path, 0o777) }
    for path in [save + "/slot1.sav", save + "/sub/options.ini"] { chmod(path, 0o666) }
    let target = ["--save-dir", save, "--container", dir.sub("cloud")]

    let ready = try await run(dir, ["doctor"] + target)
    #expect(
      ready.code == 0 && ready.stdout.contains("Everything is ready."), "\(ready.stdout)\(ready.stderr)")

    try writeFile(save + "/sub/locked.sav", "secret", mode: 0o000)
    try writeFile(save + "/zz-private/notes.txt", "x")
    chmod(save + "/zz-private", 0o000)
    let doctor = try await run(dir, ["doctor"] + target)
    #expect(doctor.code == 1, "doctor: exit \(doctor.code)\n\(doctor.stdout)")
    #expect(!doctor.stdout.contains("Everything is ready"), "\(doctor.stdout)")
    let line =
      doctor.stdout.split(separator: "\n").first { $0.split(separator: " ").dropFirst().first == "save-dir" }
      ?? ""
    #expect(line.hasPrefix("problem"), "\(doctor.stdout)")
    #expect(
      line.contains("2 entries") && line.contains("sub/locked.sav") && line.contains("zz-private/"), "\(line)"
    )

    let backup = try await run(dir, ["backup"] + target)
    #expect(backup.code != 0, "doctor and backup agree: \(backup.stderr)")
    chmod(save + "/zz-private", 0o777)
  }

  @Test("a registry file SaveVault cannot read is a problem (exit 1) naming the file and its line")
  func unreadableRegistryFile() async throws {
    let dir = TemporaryDirectory("doctor-registry")
    let (sandbox, _, userReg) = try await RegistryEndToEndTests.world(dir)
    try makeDirectory(dir.sub("cloud"))
    let game = ["--game", RegistryEndToEndTests.title]
    let ready = try await sandbox.runAwaiting(["doctor", "--json"] + game)
    #expect(ready.code == 0, "\(ready.stdout)\(ready.stderr)")

    let written = try RegistryEndToEndTests.userReg(slot: "00000001", music: "on", stamp: "1700000000")
    try writeFile(userReg, written.replacingOccurrences(of: "dword:00000001", with: "dword:0000000g"))
    let doctor = try await sandbox.runAwaiting(["doctor", "--json"] + game)
    #expect(doctor.code == 1, "doctor: exit \(doctor.code)\n\(doctor.stdout)")
    let problems = try jsonList(doctor.stdout).filter { $0["status"] as? String == "problem" }
    let registry = try #require(problems.first { $0["check"] as? String == "registry" }, "\(doctor.stdout)")
    let message = registry["message"] as? String ?? ""
    #expect(message.contains(userReg) && message.contains("line "), "\(message)")
    #expect((registry["fix"] as? String ?? "").isEmpty == false, "\(registry)")

    let backup = try await sandbox.runAwaiting(["backup"] + game)
    #expect(backup.code != 0, "doctor and backup agree: \(backup.stderr)")
  }
}
