import Foundation
import Testing

@testable import SaveVault

// Completion scripts, the manual page and `make install`, run by the real shells, man and
// make against the built binary.

/// Runs `script` in `shell` (`-c`) with the binary on PATH.
private func shell(_ shell: String, _ script: String, environment extra: [String: String] = [:]) async throws
  -> RunResult
{
  let program = try #require(which(shell), "\(shell) is not installed (scripts/install-deps.sh --test)")
  var environment = ["PATH": pathWithBinary(), "HOME": "/tmp", "LANG": "C.UTF-8"]
  environment.merge(extra) { $1 }
  return try await runProgramAwaiting(program, ["-c", script], environment: environment)
}

/// The commands `savevault --help` lists.
private func helpCommands() async throws -> [String] {
  let help = try await savevault(["--help"])
  let block = help.components(separatedBy: "Commands:\n").last?.components(separatedBy: "\n\n").first ?? ""
  return block.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
}

private func savevault(_ arguments: [String]) async throws -> String {
  let result = try await runProgramAwaiting(
    savevaultBinary, arguments, environment: ["HOME": "/tmp", "PATH": "/usr/bin:/bin"])
  #expect(result.code == 0, "savevault \(arguments): exit \(result.code), \(result.stderr)")
  return result.stdout
}

@Suite("Shell integration: completions, manual page, make install", .tags(.medium))
struct ShellIntegrationTests {
  @Test("the bash script parses and completes commands, options, policies and game names")
  func bash() async throws {
    let dir = TemporaryDirectory("bash-completion")
    try writeFile(dir.sub("bash"), try await savevault(["completions", "bash"]))
    try writeFile(
      dir.sub("config.json"),
      #"{"games": {"celeste": {"saveDir": "/x"}, "Hollow Knight": {"saveDir": "/y"}}}"#)
    let syntax = try await shell("bash", "bash -n '\(dir.sub("bash"))'")
    #expect(syntax.code == 0, "bash -n: \(syntax.stderr)")
    // Each line: the words on the command line (the last is being completed) → COMPREPLY.
    let script = """
      source '\(dir.sub("bash"))'
      complete_line() {
        COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()
        _savevault
        local IFS='|'; echo "${COMPREPLY[*]}"
      }
      complete_line savevault ''
      complete_line savevault restore --l
      complete_line savevault sync --on-conflict n
      complete_line savevault --config '\(dir.sub("config.json"))' backup --game ''
      complete_line savevault doctor --
      complete_line savevault completions ''
      """
    let result = try await shell("bash", script)
    #expect(result.code == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map {
      Set($0.split(separator: "|").map(String.init))
    }
    try #require(lines.count >= 6, "output: \(result.stdout) \(result.stderr)")
    #expect(lines[0].isSuperset(of: ["backup", "status", "restore", "doctor", "completions"]), "\(lines[0])")
    #expect(lines[0].contains("manpage"), "a command of --help is offered: \(lines[0])")
    #expect(lines[1] == ["--latest"])
    #expect(lines[2] == ["newer"])
    #expect(lines[3] == ["celeste", "Hollow Knight"])
    #expect(lines[4].isSuperset(of: ["--json", "--game", "--save-dir", "--container"]), "\(lines[4])")
    #expect(!lines[4].contains("--force"))
    #expect(lines[5] == ["bash", "zsh", "fish"])
  }

  @Test("every command of the help has its options in the completions")
  func followsHelp() async throws {
    let script = try await savevault(["completions", "bash"])
    let commands = try await helpCommands()
    #expect(commands.contains("doctor") && commands.contains("backup"), "\(commands)")
    for command in commands {
      #expect(script.contains("    \(command)) words=\""), "no case for \(command)")
    }
    #expect(script.contains("    prune) words=\"--keep --keep-pre-restore --json"))
    #expect(script.contains("    verify) words=\"--latest --archive --all --json"))
  }

  @Test("the zsh script parses")
  func zsh() async throws {
    let dir = TemporaryDirectory("zsh-completion")
    try writeFile(dir.sub("_savevault"), try await savevault(["completions", "zsh"]))
    let result = try await shell("zsh", "zsh -n '\(dir.sub("_savevault"))'")
    #expect(result.code == 0, "zsh -n: \(result.stderr)")
  }

  @Test("the fish script parses and completes")
  func fish() async throws {
    let dir = TemporaryDirectory("fish-completion")
    try writeFile(dir.sub("savevault.fish"), try await savevault(["completions", "fish"]))
    let syntax = try await shell("fish", "fish -n '\(dir.sub("savevault.fish"))'")
    #expect(syntax.code == 0, "fish -n: \(syntax.stderr)")
    let result = try await shell(
      "fish",
      "source '\(dir.sub("savevault.fish"))'; complete -C 'savevault restore --l'; echo ---; complete -C 'savevault '"
    )
    #expect(result.code == 0, "\(result.stderr)")
    let parts = result.stdout.components(separatedBy: "---\n")
    try #require(parts.count == 2, "\(result.stdout)")
    #expect(parts[0].hasPrefix("--latest\t"), "\(parts[0])")
    #expect(parts[1].contains("backup\tpack the save directory"), "\(parts[1])")
    #expect(parts[1].contains("doctor\t"))
  }

  @Test("the manual page renders with man, with every command and the exit codes")
  func manual() async throws {
    let dir = TemporaryDirectory("manpage")
    try writeFile(dir.sub("savevault.1"), try await savevault(["manpage"]))
    let result = try await shell(
      "bash", "man --warnings -l '\(dir.sub("savevault.1"))'", environment: ["MANWIDTH": "80"])
    #expect(result.code == 0, "man: \(result.stderr)")
    #expect(result.stderr.isEmpty, "groff warnings: \(result.stderr)")
    let page = result.stdout
    #expect(page.contains("SAVEVAULT(1)"))
    for command in try await helpCommands() {
      #expect(page.contains("savevault \(command)"), "no \(command) in the page")
    }
    #expect(page.contains("savevault restore [TARGET] (--latest | --archive NAME | --undo) [--json]"))
    #expect(page.contains("--save-dir DIR"))
    #expect(page.contains("EXIT STATUS"))
  }

  @Test("make install PREFIX installs the binary, the page and three completions; uninstall removes them")
  func makeInstall() async throws {
    let dir = TemporaryDirectory("make-install")
    let prefix = dir.sub("usr")
    let make = try #require(which("make"), "make is not installed")
    let installed = try await runProgramAwaiting(
      make, ["-C", repositoryRoot, "install", "PREFIX=\(prefix)", "SAVEVAULT=\(savevaultBinary)"],
      environment: ["PATH": pathWithBinary()])
    #expect(installed.code == 0, "make install: \(installed.stderr)")
    let files = [
      "bin/savevault", "share/man/man1/savevault.1", "share/bash-completion/completions/savevault",
      "share/zsh/site-functions/_savevault", "share/fish/vendor_completions.d/savevault.fish",
    ]
    for file in files {
      let data = FileManager.default.contents(atPath: prefix + "/" + file) ?? Data()
      #expect(!data.isEmpty, "\(file) is missing or empty")
    }
    let version = try await runProgramAwaiting(prefix + "/bin/savevault", ["--version"])
    #expect(version.stdout.hasPrefix("savevault "))
    let removed = try await runProgramAwaiting(
      make, ["-C", repositoryRoot, "uninstall", "PREFIX=\(prefix)"], environment: ["PATH": pathWithBinary()])
    #expect(removed.code == 0, "make uninstall: \(removed.stderr)")
    for file in files {
      #expect(!FileManager.default.fileExists(atPath: prefix + "/" + file), "\(file) is left")
    }
  }
}
