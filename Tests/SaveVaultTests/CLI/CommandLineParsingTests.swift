import Foundation
import SaveVault
import Testing

@testable import SaveVaultCLI

// Command lines parsed in-process against the commands' declarations: every usage error is
// found before anything runs, and the lines that are right parse into what they say.

/// A command line the parser refuses, with the message it gives.
struct RefusedLine: Sendable, CustomTestStringConvertible {
  var name: String
  var words: [String]
  var message: String
  /// The command whose help the error points at (nil: the main help).
  var help: String?

  init(_ name: String, _ words: [String], _ message: String, help: String? = nil) {
    self.name = name
    self.words = words
    self.message = message
    self.help = help ?? words.first { !$0.hasPrefix("-") }
  }

  var testDescription: String { name }
}

/// A command line the parser takes, with what it must read out of it.
struct AcceptedLine: Sendable, CustomTestStringConvertible {
  var name: String
  var words: [String]
  var check: @Sendable (ArgumentParser.Invocation) throws -> Void

  var testDescription: String { name }
}

/// The command of a `.run` invocation, as `type`.
private func command<Parsed: Command>(_ invocation: ArgumentParser.Invocation, as type: Parsed.Type) throws
  -> Parsed
{
  guard case .run(let command, _) = invocation else { throw UsageError(message: "not a run", command: nil) }
  return try #require(command as? Parsed)
}

@Suite("Command lines: parsed and checked whole before anything runs", .tags(.small))
struct CommandLineParsingTests {
  static let refused: [RefusedLine] = [
    RefusedLine("an unknown option", ["backup", "--bogus"], "unknown option '--bogus'"),
    RefusedLine("an unknown short option", ["status", "-x"], "unknown option '-x'"),
    RefusedLine(
      "an unknown option before the command", ["--bogus", "status"], "unknown option '--bogus'", help: ""),
    RefusedLine(
      "--game twice", ["backup", "--game", "one", "--game", "two"], "option '--game' is given more than once"),
    RefusedLine(
      "--config twice, before and after the command", ["--config", "a.json", "status", "--config=b.json"],
      "option '--config' is given more than once", help: "status"),
    RefusedLine(
      "--compress not a kind", ["backup", "--compress", "bogus"],
      "--compress must be one of none, zstd, not 'bogus'"),
    RefusedLine(
      "--on-conflict not a policy", ["sync", "--on-conflict", "later"],
      "--on-conflict must be one of prompt, upload, restore, newer, skip, fail, not 'later'"),
    RefusedLine(
      "wrap's --on-conflict not a policy", ["wrap", "--on-conflict=ask", "--", "game"],
      "--on-conflict must be one of prompt, upload, restore, newer, skip, fail, not 'ask'"),
    RefusedLine("a missing value", ["backup", "--compress"], "option '--compress' needs a value"),
    RefusedLine("a value given to a flag", ["backup", "--force=yes"], "option '--force' takes no value"),
    RefusedLine("--keep 0", ["prune", "--keep", "0"], "--keep needs a whole number of at least 1, not '0'"),
    RefusedLine(
      "--keep a word", ["prune", "--keep", "two"], "--keep needs a whole number of at least 1, not 'two'"),
    RefusedLine(
      "--keep-pre-restore negative", ["prune", "--keep-pre-restore=-1"],
      "--keep-pre-restore needs a whole number of at least 1, not '-1'"),
    RefusedLine(
      "prune without how many", ["prune", "--game", "g"],
      "say how many to keep: --keep N (archives in the container), --keep-pre-restore N (copies on this device), or both"
    ),
    RefusedLine(
      "restore --latest and --archive", ["restore", "--latest", "--archive", "x.tar"],
      "give either --latest or --archive NAME, not both"),
    RefusedLine(
      "restore --undo and --latest", ["restore", "--undo", "--latest"],
      "--undo takes no --latest or --archive"),
    RefusedLine(
      "restore without which archive", ["restore", "--game", "g"],
      "say which archive: --latest or --archive NAME (or --undo to put back the last restore's copy)"),
    RefusedLine(
      "verify --latest and --all", ["verify", "--latest", "--all"],
      "give one of --latest, --archive NAME or --all"),
    RefusedLine("an extra word", ["status", "celeste"], "unexpected argument 'celeste'"),
    RefusedLine("a word after remove's NAME", ["remove", "a", "b"], "unexpected argument 'b'"),
    RefusedLine(
      "an option add does not take", ["add", "celeste", "--save-dir", "d", "--game", "g"],
      "'add' does not take '--game'"),
    RefusedLine(
      "an option list does not take", ["list", "--compress", "zstd"], "'list' does not take '--compress'"),
    RefusedLine("games with a target", ["games", "--save-dir", "d"], "'games' does not take '--save-dir'"),
    RefusedLine("manpage with --json", ["manpage", "--json"], "'manpage' does not take '--json'"),
    RefusedLine("'--' outside wrap", ["backup", "--", "ls"], "'backup' takes nothing after '--'"),
    RefusedLine(
      "wrap with no game command", ["wrap", "--game", "g"],
      "say which game to run: savevault wrap [TARGET] -- COMMAND [ARG...]"),
    RefusedLine(
      "wrap with nothing after '--'", ["wrap", "--"],
      "say which game to run: savevault wrap [TARGET] -- COMMAND [ARG...]"),
    RefusedLine(
      "add without NAME", ["add", "--detect"], "say which game: savevault add NAME --save-dir DIR"),
    RefusedLine(
      "add without --save-dir", ["add", "celeste"],
      "say where the game keeps its saves: --save-dir DIR, or --detect"),
    RefusedLine(
      "add with --save-dir and --detect", ["add", "celeste", "--save-dir", "d", "--detect"],
      "--save-dir and --detect are two ways to say where the saves are: give one"),
    RefusedLine("remove without NAME", ["remove", "--json"], "say which game: savevault remove NAME"),
    RefusedLine(
      "completions without a shell", ["completions"], "say which shell: savevault completions bash|zsh|fish"),
    RefusedLine(
      "completions for another shell", ["completions", "tcsh"],
      "say which shell: savevault completions bash|zsh|fish"),
    RefusedLine(
      "completions --list-games with a shell", ["completions", "--list-games", "bash"],
      "unexpected argument 'bash'"),
    RefusedLine("no command", [], "no command given", help: ""),
    RefusedLine("only options", ["--config", "c.json", "-q"], "no command given", help: ""),
    RefusedLine(
      "an unknown command", ["frobnicate", "--save-dir", "d"], "unknown command 'frobnicate'", help: ""),
    RefusedLine(
      "help for an unknown command", ["frobnicate", "--help"], "unknown command 'frobnicate'", help: ""),
  ]

  @Test("refused, with its message and exit status 2", arguments: refused)
  func refusedLine(_ line: RefusedLine) throws {
    do {
      let invocation = try ArgumentParser.parse(line.words)
      Issue.record("\(line.words) parsed: \(invocation)")
    } catch {
      #expect(error.message == line.message)
      #expect(error.command == (line.help?.isEmpty == false ? line.help : nil))
      #expect(ExitStatus(for: error) == .usage)
      #expect(ExitStatus(for: error).code == 2)
    }
  }

  static let accepted: [AcceptedLine] = [
    AcceptedLine(
      name: "backup with every option", words: ["backup", "--game", "one", "--compress", "zstd", "--force"]
    ) {
      let backup = try command($0, as: BackupCommand.self)
      #expect(backup.selection.options.game == "one")
      #expect(backup.selection.compression == .zstd)
      #expect(backup.isForced && !backup.isJSON)
    },
    AcceptedLine(name: "a flag given twice", words: ["backup", "--json", "--json"]) {
      let parsed = try command($0, as: BackupCommand.self)
      #expect(parsed.isJSON)
    },
    AcceptedLine(
      name: "options before the command", words: ["-q", "--config", "c.json", "--game", "one", "status"]
    ) {
      guard case .run(let parsed, let global) = $0 else {
        Issue.record("not a run")
        return
      }
      #expect(global.configFile == "c.json" && global.isQuiet && !global.isVerbose)
      #expect((parsed as? StatusCommand)?.selection.options.game == "one")
    },
    AcceptedLine(name: "an inline value", words: ["sync", "--on-conflict=newer", "--save-dir=/saves/g"]) {
      let sync = try command($0, as: SyncCommand.self)
      #expect(sync.policy == .newer)
      #expect(sync.selection.options.saveDirectory == "/saves/g")
    },
    AcceptedLine(name: "sync asks by default", words: ["sync"]) {
      let parsed = try command($0, as: SyncCommand.self)
      #expect(parsed.policy == .prompt)
    },
    AcceptedLine(
      name: "restore a named archive", words: ["restore", "--archive", "x.tar", "--save-dir", "/s"]
    ) {
      let parsed = try command($0, as: RestoreCommand.self)
      #expect(parsed.step == .archive(.named("x.tar")))
    },
    AcceptedLine(name: "restore --undo", words: ["restore", "--undo", "--json"]) {
      let parsed = try command($0, as: RestoreCommand.self)
      #expect(parsed.step == .undo)
    },
    AcceptedLine(name: "verify every archive", words: ["verify", "--all", "--game", "g"]) {
      let verify = try command($0, as: VerifyCommand.self)
      #expect(verify.archives == .all && !verify.selection.checksPlacement)
    },
    AcceptedLine(name: "verify the latest by default", words: ["verify", "--game", "g"]) {
      let parsed = try command($0, as: VerifyCommand.self)
      #expect(parsed.archives == .latest)
    },
    AcceptedLine(name: "prune both kinds", words: ["prune", "--keep", "3", "--keep-pre-restore=1"]) {
      let prune = try command($0, as: PruneCommand.self)
      #expect(prune.keep == 3 && prune.keepPreRestore == 1)
    },
    AcceptedLine(
      name: "wrap leaves the game's words alone",
      words: ["wrap", "--game", "g", "--", "game", "--game", "x", "--bogus", "-q"]
    ) {
      let wrap = try command($0, as: WrapCommand.self)
      #expect(wrap.command == ["game", "--game", "x", "--bogus", "-q"])
      #expect(wrap.selection.options.game == "g")
    },
    AcceptedLine(
      name: "add with every option",
      words: [
        "add", "celeste", "--save-dir", "d", "--container", "c", "--steam-app-id", "504230", "--replace",
      ]
    ) {
      let add = try command($0, as: AddCommand.self)
      #expect(
        add.game
          == NewGame(name: "celeste", saveDirectory: "d", containerURL: "c", steamAppId: "504230"))
      #expect(add.isReplacing)
    },
    AcceptedLine(name: "a completion script", words: ["completions", "fish"]) {
      let completions = try command($0, as: CompletionsCommand.self)
      #expect(completions.standaloneText?.hasPrefix("# fish completion") == true)
    },
    AcceptedLine(name: "the game names for the scripts", words: ["completions", "--list-games"]) {
      let parsed = try command($0, as: CompletionsCommand.self)
      #expect(parsed.output == .games)
    },
    AcceptedLine(
      name: "help after an option the command does not take", words: ["list", "--compress", "x", "-h"]
    ) {
      guard case .help(let text) = $0 else {
        Issue.record("not help")
        return
      }
      #expect(text.hasPrefix("Usage: savevault list"))
    },
    AcceptedLine(name: "help CMD", words: ["help", "sync"]) {
      guard case .help(let text) = $0 else {
        Issue.record("not help")
        return
      }
      #expect(text.hasPrefix("Usage: savevault sync"))
    },
    AcceptedLine(name: "--version anywhere", words: ["status", "--version"]) {
      guard case .version = $0 else {
        Issue.record("not the version")
        return
      }
    },
  ]

  @Test("parsed into what it says", arguments: accepted)
  func acceptedLine(_ line: AcceptedLine) throws {
    try line.check(try ArgumentParser.parse(line.words))
  }

  @Test(
    "every option a command's completions offer is one the command takes",
    arguments: Commands.declarations.map(\.name))
  func completionsOfferOnlyWhatParses(_ name: String) throws {
    let declaration = try #require(Commands.named(name)).declaration
    for option in Completions.options(of: declaration) {
      let words = [name, option.spelling] + (option.takesValue ? ["1"] : [])
      do {
        _ = try declaration.parse(try ArgumentParser.split(words))
      } catch {
        #expect(!error.message.contains("does not take"), "\(words): \(error.message)")
      }
    }
  }

  @Test("the help lists every exit status, 127 and 128+N too")
  func exitStatusesInHelp() {
    let help = HelpText.main.replacingOccurrences(of: "\n", with: " ")
    for (code, meaning) in ExitStatus.table {
      #expect(help.contains("\(code) \(meaning)"), "\(code) is not in the help")
    }
    #expect(help.contains("127 the game could not be started") && help.contains("128+N stopped by signal N"))
    #expect(Manual.page().contains("128+N stopped by signal N"))
  }
}
