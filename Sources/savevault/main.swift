import Foundation
import SaveVault

let code = CLI.run(Array(CommandLine.arguments.dropFirst()), context: Context.live(log:))
exit(code)
