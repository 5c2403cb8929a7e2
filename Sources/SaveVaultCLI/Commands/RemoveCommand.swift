import SaveVault

/// `savevault remove`: a game taken out of the config file; no save is deleted.
struct RemoveCommand: Command {
  static let json = Option.json("print what was removed as JSON")

  static let declaration = CommandDeclaration(
    name: "remove", abstract: "forget a game in the config file (deletes nothing)",
    discussion: """
      Removes the game NAME from the config file and forgets this device's agreements about
      it, so that its folder and name are free for another game. No save is deleted: the save
      directory, the archives in the container and the pre-restore copies stay as they are,
      and 'savevault add' brings the game back (its next sync compares the save with the
      cloud by content). A game used with --save-dir alone is forgotten the same way. An
      unknown NAME exits 2.
      """,
    positionals: [
      CommandDeclaration.Positional(name: "NAME", missing: "say which game: savevault remove NAME")
    ],
    options: [json])

  var game: String
  var isJSON: Bool

  init(_ arguments: ParsedArguments) {
    game = arguments.positionals.first ?? ""
    isJSON = arguments.has(Self.json)
  }

  func run(_ session: Session) throws -> ExitStatus {
    let console = session.console
    let report = try session.vault.removeGame(game, configFile: session.configFile)
    if isJSON {
      console.json(report)
      return .success
    }
    if report.isInConfig { console.out("Removed \(game) from \(report.configFile).") }
    if !report.forgotten.isEmpty {
      console.out(
        "Forgot this device's agreements about \(game) (\(report.forgotten.joined(separator: ", "))): a sync of it compares the save with the cloud by content."
      )
    }
    console.out(
      "No save was deleted: the save directory\(report.saveDir.map { " \($0)" } ?? ""), the archives in the container and the copies on this device stay as they are; '\(session.commandLine(["add", game, "--save-dir", "DIR"]))' brings the game back."
    )
    return .success
  }
}
