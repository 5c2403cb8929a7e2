import Foundation
import SaveVault
import SaveVaultCLI

let signals = SignalTrap.install()
let code = CLI.run(Array(CommandLine.arguments.dropFirst())) { log in
  var context = Context.live(log: log)
  context.interruption = signals.interruption
  return context
} gameRunner: { interruption in
  GameProcess(interruption: interruption)
}
exit(code)
