import Testing

@testable import SaveVault
@testable import SaveVaultCLI

@Suite("Remedies: the library says them in words, the command line spells them", .tags(.small))
struct AdviceTests {
  struct Case: CustomTestStringConvertible, Sendable {
    var name: String
    var error: any Error & Sendable
    var commandLine: String
    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(
      name: "unknown game", error: ConfigError.unknownGame(name: "g", configPath: "/c.json"),
      commandLine: "no game 'g' in config file '/c.json': add it there, or pass --save-dir DIR"),
    Case(
      name: "no target", error: ConfigError.noTarget,
      commandLine: "no game given: pass --game NAME (a game added with 'savevault add') or --save-dir DIR"),
    Case(
      name: "missing save", error: VaultError.saveDirectoryMissing(path: "/s"),
      commandLine: "save directory '/s' does not exist: check the path (or pass --force to back up nothing)"),
    Case(
      name: "no backups", error: VaultError.noBackups(game: "g", container: "/c"),
      commandLine: "container '/c' has no backups of 'g' yet: run 'savevault backup' first"),
    Case(
      name: "archive not found", error: ContainerError.notFound(container: "/c", name: "a.tar"),
      commandLine: "container '/c' has no archive 'a.tar': run 'savevault list' to see what it holds"),
  ]

  @Test("the command line shows the flags; the library's own text names none", arguments: cases)
  func spelled(_ entry: Case) {
    #expect(Advice.text(for: entry.error) == entry.commandLine)
    let words = String(describing: entry.error)
    #expect(!words.contains("--") && !words.contains("'savevault "), "\(words)")
  }

  @Test("an error with no remedy reads the same everywhere")
  func plain() {
    let error = ArchiveError.noSpace(path: "/x")
    #expect(Advice.text(for: error) == String(describing: error))
  }
}
