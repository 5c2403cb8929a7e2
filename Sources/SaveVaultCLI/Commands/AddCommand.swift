import SaveVault

/// `savevault add`: a game written into the config file.
struct AddCommand: Command {
  static let saveDirectory = TargetOptions.saveDirectory.described("where the game keeps its saves")
  static let detect = Option(
    name: "detect", kind: .flag,
    help: "add an installed game found by 'savevault scan' (by its name or title), with its save locations")
  static let container = TargetOptions.container.described(
    "this game's container (default: the config file's, then $SAVEVAULT_CONTAINER, then $XDG_DATA_HOME/savevault/container)"
  )
  static let steamAppId = Option(
    name: "steam-app-id", kind: .value(placeholder: "N"),
    help: "the game's Steam app id, for 'savevault wrap -- %command%'", summary: "the game's Steam app id")
  static let replace = Option(
    name: "replace", kind: .flag, help: "replace the game's entry if it is already there")
  static let json = Option.json("print what was written as JSON")

  static let declaration = CommandDeclaration(
    name: "add",
    abstract: "add a game to the config file (its save directory or detected locations, container)",
    discussion: """
      Adds the game NAME to the config file (creating the file if needed; every other game
      and setting is kept), so that --game NAME is enough. NAME is the game's folder in the
      container: \(Target.gameNameRule). DIR is stored as an absolute path and
      need not exist yet. A name already in the config file is refused unless --replace, and so
      is a DIR that overlaps another game's save directory, holds the container or SaveVault's
      own folders, or is a mount point. Bad input exits 2 and writes nothing.

      With --detect, NAME is an installed game 'savevault scan' finds (its name or title): its
      save locations are written with placeholders (so the entry holds on any machine), with
      its Steam app id or store id; NAME's safe form becomes the game's name.
      """,
    positionals: [
      CommandDeclaration.Positional(
        name: "NAME", missing: "say which game: savevault add NAME --save-dir DIR")
    ],
    options: [saveDirectory, detect, container, steamAppId, replace, json],
    groups: [
      CommandDeclaration.Group(
        names: ["save-dir", "detect"],
        missing: "say where the game keeps its saves: --save-dir DIR, or --detect",
        conflict: { _ in "--save-dir and --detect are two ways to say where the saves are: give one" })
    ])

  var game: NewGame
  var isDetected: Bool
  var isReplacing: Bool
  var isJSON: Bool

  init(_ arguments: ParsedArguments) {
    game = NewGame(
      name: arguments.positionals.first ?? "", saveDirectory: arguments.value(Self.saveDirectory) ?? "",
      containerURL: arguments.value(Self.container), steamAppId: arguments.value(Self.steamAppId))
    isDetected = arguments.has(Self.detect)
    isReplacing = arguments.has(Self.replace)
    isJSON = arguments.has(Self.json)
  }

  func run(_ session: Session) throws -> ExitStatus {
    let console = session.console
    let name = game.name
    let report =
      isDetected
      ? try session.vault.addDetectedGame(game, configFile: session.configFile, replacing: isReplacing)
      : try session.vault.addGame(game, configFile: session.configFile, replacing: isReplacing)
    if !report.saveDirExists {
      console.note(
        "'\(report.saveDir)' does not exist yet; '\(session.commandLine(["sync", "--game", name]))' restores the cloud's save into it"
      )
    }
    if isJSON {
      console.json(report)
      return .success
    }
    let steam = report.steamAppId.map { ", Steam app id \($0)" } ?? ""
    if let locations = report.locations {
      console.out(
        "\(report.replaced ? "Replaced" : "Added") \(report.game) \(report.replaced ? "in" : "to") \(report.configFile)\(steam), container \(report.container ?? "(the default)"), saves in:"
      )
      for location in locations { console.out("  " + location) }
      return .success
    }
    console.out(
      "\(report.replaced ? "Replaced" : "Added") \(name) \(report.replaced ? "in" : "to") \(report.configFile): save directory \(report.saveDir), container \(report.container ?? "(the default)")\(steam)."
    )
    return .success
  }
}
