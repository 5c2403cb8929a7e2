import Foundation
import SaveVault

extension Session {
  /// The command line that runs `words` (a command and its options) on `target` as this run
  /// named it (`options`), ready to paste: the config file (absolute), `--game` (the target's
  /// game when no flag named one), `--save-dir` (absolute), and the container flags as given
  /// (a folder container absolute), each word quoted for the shell where it needs it.
  func commandLine(_ words: [String], for target: Target, options: TargetOptions) -> String {
    var line = words
    if options.game != nil || options.saveDirectory == nil { line += ["--game", target.game] }
    if options.saveDirectory != nil { line += ["--save-dir", target.saveDirectory] }
    if let container = options.container {
      if case .folder(let path) = target.container {
        line += ["--container", path]
      } else {
        line += ["--container", container]
      }
    }
    if let endpoint = options.endpoint { line += ["--endpoint", endpoint] }
    if options.allowsInsecureHTTP { line.append("--allow-insecure-http") }
    return commandLine(line)
  }

  /// `savevault WORDS`, with this run's config file (absolute) when it named one, quoted for
  /// the shell.
  func commandLine(_ words: [String]) -> String {
    let config = configFile.map { ["--config", vault.configPath($0)] } ?? []
    return (["savevault"] + config + words).map(Self.shellWord).joined(separator: " ")
  }

  /// `word` as one shell word: as it is when it holds only safe characters, else in single quotes.
  static func shellWord(_ word: String) -> String {
    let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")
    guard word.isEmpty || !word.allSatisfy(safe.contains) else { return word }
    return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}
