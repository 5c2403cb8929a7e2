import Foundation
import SaveVault

let signals = SignalTrap.install()
let code = CLI.run(Array(CommandLine.arguments.dropFirst())) { log in
  var context = Context.live(log: log)
  context.interruption = signals.interruption
  return context
}
exit(code)
