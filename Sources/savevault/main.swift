import Foundation
import SaveVault
import SaveVaultCLI

// The signal trap is installed once a command is about to run: reading the command line,
// `--version` and help change nothing, and the trap's thread is a good part of a short run.
nonisolated(unsafe) var signals: SignalTrap?
let code = CLI.run(Array(CommandLine.arguments.dropFirst())) { log in
  let trap = SignalTrap.install()
  signals = trap
  var context = Context.live(log: log)
  context.interruption = trap.interruption
  return context
} gameRunner: { interruption in
  GameProcess(interruption: interruption)
}
exit(code)
