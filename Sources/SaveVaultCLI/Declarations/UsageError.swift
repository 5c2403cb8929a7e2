import SaveVault

/// A command line that cannot be understood: exit status 2.
struct UsageError: Error, Equatable, Sendable, CustomStringConvertible, ExitStatusProviding {
  var message: String
  /// The command whose help to point at, if any.
  var command: String?

  var description: String {
    message + "\n"
      + (command.map { "Run 'savevault \($0) --help' for its usage." } ?? "Run 'savevault --help' for usage.")
  }

  var exitStatus: ExitStatus { .usage }
}
