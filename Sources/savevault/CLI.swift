import Foundation
import SaveVault

/// The command-line interface: parses, runs one use case, prints, and turns errors into text
/// and exit codes (the only place that does).
enum CLI {
  /// Runs the command line `words` and returns the process exit code.
  static func run(_ words: [String], context makeContext: (Log) -> Context) -> Int32 {
    let arguments: Arguments
    do {
      arguments = try Arguments.parse(words)
    } catch {
      Console(isQuiet: false, isVerbose: false).error(error.description)
      return 2
    }
    var console = Console(isQuiet: arguments.isQuiet, isVerbose: arguments.isVerbose)
    console.warnsInJSON = arguments.command == "wrap" && arguments.has("json")
    if arguments.isVersion {
      Console.write(Help.version)
      return 0
    }
    guard let command = arguments.command, command != "help" else {
      if arguments.isHelp || arguments.command == "help" {
        Console.write(Help.commands[arguments.positional.first ?? ""] ?? Help.main)
        return 0
      }
      console.error(UsageError(message: "no command given", command: nil).description)
      return 2
    }
    if arguments.isHelp {
      guard let text = Help.commands[command] else {
        console.error(UsageError(message: "unknown command '\(command)'", command: nil).description)
        return 2
      }
      Console.write(text)
      return 0
    }
    do {
      if let text = try Commands.generatedText(arguments) {
        FileHandle.standardOutput.write(Data(text.utf8))
        return 0
      }
      var context = makeContext(console.log)
      let bar = ProgressBar(
        isEnabled: isatty(STDERR_FILENO) == 1 && context.environment["TERM"] != "dumb" && !arguments.isQuiet
          && !arguments.has("json"))
      context.progress = { bar.report($0) }
      defer { bar.finish() }
      // Whatever is printed next starts on a clean line, the bar's line cleared first.
      console.beforeWriting = { bar.finish() }
      context.log = console.log
      let vault = try Vault(context: context)
      let code = try Commands(vault: vault, console: console, arguments: arguments).run(command)
      // A signal that came when nothing could stop any more (the command finished): still say so.
      if let signal = context.interruption.signal, command != "wrap" {
        console.error(stopped(Interrupted(signal: signal), arguments: arguments, hasFinished: true))
        return 128 + signal
      }
      return code
    } catch let interrupted as Interrupted {
      console.error(stopped(interrupted, arguments: arguments, hasFinished: false))
      return 128 + interrupted.signal
    } catch let reported as AlreadyReported {
      return exitCode(for: reported.error)
    } catch {
      console.error(Advice.text(for: error))
      return exitCode(for: error)
    }
  }

  /// What a signal that stopped the command left, in words. For restore (and its undo): whether
  /// it happened; a restore is undone when it is stopped before the swap, and finishes once
  /// the swap is made.
  static func stopped(_ interrupted: Interrupted, arguments: Arguments, hasFinished: Bool) -> String {
    let signal = interrupted.signalName
    if arguments.command == "restore" {
      let step = arguments.has("undo") ? "undo" : "restore"
      return hasFinished
        ? "stopped by \(signal) after the \(step) had finished; the save is the one it put in place"
        : "stopped by \(signal): the \(step) did not happen; the save is as it was"
    }
    return hasFinished
      ? "stopped by \(signal) after '\(arguments.command ?? "")' had finished" : interrupted.description
  }

  /// DESIGN.md's exit codes.
  static func exitCode(for error: any Error) -> Int32 {
    switch error {
    case is UsageError, is ConfigError: return 2
    case is VerificationFailed: return 5
    case let interrupted as Interrupted: return 128 + interrupted.signal
    case is SyncUnresolved: return 3
    case let error as ContainerError:
      switch error {
      case .unavailable, .transferFailed, .noSpace: return 4
      case .notFound, .alreadyExists: return 1
      }
    case let error as ArchiveError:
      if case .refused = error { return 5 }
      return 1
    case let error as VaultError:
      switch error {
      case .busy: return 6
      case .conflictUnresolved: return 3
      case .gameNotStarted: return 127
      default: return 1
      }
    default: return 1
    }
  }
}
