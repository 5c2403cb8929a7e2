import Foundation
import SaveVault

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The command-line interface: parses the whole command line, runs one command, and turns
/// errors into text and exit statuses (the only place that does).
public enum CLI {
  /// Runs the command line `words` (without the program name) and returns the process exit
  /// code. `context` makes the library's context with the run's log; `gameRunner` starts
  /// `wrap`'s game, stopped by the run's interruption.
  public static func run(
    _ words: [String], context makeContext: (Log) -> Context,
    gameRunner: @escaping @Sendable (Interruption) -> any GameRunner
  ) -> Int32 {
    let invocation: ArgumentParser.Invocation
    do {
      invocation = try ArgumentParser.parse(words)
    } catch {
      Console(isQuiet: false, isVerbose: false).error(error)
      return ExitStatus(for: error).code
    }
    switch invocation {
    case .version:
      Console.write(HelpText.version)
      return ExitStatus.success.code
    case .help(let text):
      Console.write(text)
      return ExitStatus.success.code
    case .run(let command, let global):
      return run(command, global: global, context: makeContext, gameRunner: gameRunner).code
    }
  }

  private static func run(
    _ command: any Command, global: GlobalOptions, context makeContext: (Log) -> Context,
    gameRunner: @escaping @Sendable (Interruption) -> any GameRunner
  ) -> ExitStatus {
    var console = Console(isQuiet: global.isQuiet, isVerbose: global.isVerbose)
    console.warnsInJSON = command.warnsInJSON
    if let text = command.standaloneText {
      writeOutput(Data(text.utf8), to: 1)
      return .success
    }
    var context = makeContext(console.log)
    if let steamUser = global.steamUser { context.environment["SAVEVAULT_STEAM_USER"] = steamUser }
    do {
      let bar = ProgressBar(
        isEnabled: isatty(STDERR_FILENO) == 1 && context.environment["TERM"] != "dumb" && !global.isQuiet
          && !command.isJSON)
      context.progress = { bar.report($0) }
      defer { bar.finish() }
      // Whatever is printed next starts on a clean line, the bar's line cleared first.
      console.beforeWriting = { bar.finish() }
      if let name = command.logFileName, let paths = try? Paths(environment: context.environment) {
        // A log that cannot be kept is one warning on stderr, never a failure.
        console.logFile = LogFile.openForAppending(
          paths.stateDirectory + "/" + name, clock: context.clock, failed: console.log.warning)
      }
      context.log = console.log
      let session = Session(
        vault: try Vault(context: context), console: console, configFile: global.configFile,
        gameRunner: gameRunner)
      if command.warnsAboutUnknownConfigKeys { session.warnAboutUnknownConfigKeys() }
      let status = try command.run(session)
      // A signal that came when nothing could stop any more (the command finished): still say so.
      if let signal = context.interruption.signal, command.reportsLateSignal {
        console.error(command.stopped(by: Interrupted(signal: signal), hasFinished: true))
        return .signal(signal)
      }
      return status
    } catch let interrupted as Interrupted {
      console.error(command.stopped(by: interrupted, hasFinished: false))
      return interrupted.exitStatus
    } catch let reported as AlreadyReported {
      return reported.exitStatus
    } catch {
      console.error(error)
      return ExitStatus(for: error)
    }
  }
}
