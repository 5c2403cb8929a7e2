import Foundation
import SaveVault
import SaveVaultCLI

let signals = SignalTrap.install()
// HTTPS containers trust this system's CA bundle (or SSL_CERT_FILE's), wherever it keeps it.
CertificateBundle.choose(environment: ProcessInfo.processInfo.environment).use()
let code = CLI.run(Array(CommandLine.arguments.dropFirst())) { log in
  var context = Context.live(log: log)
  context.interruption = signals.interruption
  return context
} gameRunner: { interruption in
  GameProcess(interruption: interruption)
}
exit(code)
