import SaveVault

/// `savevault scan`: the installed games that have save data here, found with the manifest.
struct ScanCommand: Command {
  static let all = Option(
    name: "all", kind: .flag, help: "also list installed games the manifest knows that have no save here yet")
  static let everywhere = Option(
    name: "everywhere", kind: .flag,
    help:
      "also list games of the whole manifest that are not installed but left saves here (home, XDG folders, Proton and Wine prefixes)"
  )
  static let json = Option.json("print a list, one object per game")

  static let declaration = CommandDeclaration(
    name: "scan", abstract: "find the installed games that have saves here",
    discussion: """
      Looks at what this machine has installed (Steam, native and Flatpak, with every library
      of libraryfolders.vdf and each game's Proton prefix; Heroic's GOG and Epic games; Lutris;
      the config's "roots" and "winePrefixes") and, with the save-location manifest, lists
      each game that has save data here: its name (the title, or its safe form), title, store
      and id, and each location found, as a path and in its portable form (with placeholders,
      the same on any machine). Nothing is written. 'savevault add TITLE --detect' adds one
      to the config file; '--game NAME' works on one without adding it.

      With --everywhere, every game of the manifest is also looked for by the saves it may
      have left without being installed (after an uninstall, or a DRM-free game run from
      anywhere): its save paths that need no install folder, in your home and XDG folders,
      in the Proton prefix Steam kept for each of its app ids, and in the config's
      "winePrefixes". Such a game is listed as not installed.
      """,
    options: [all, everywhere, json])

  var isAll: Bool
  var isEverywhere: Bool
  var isJSON: Bool

  init(_ arguments: ParsedArguments) {
    isAll = arguments.has(Self.all)
    isEverywhere = arguments.has(Self.everywhere)
    isJSON = arguments.has(Self.json)
  }

  func run(_ session: Session) throws -> ExitStatus {
    let console = session.console
    let games = try session.vault.findGames(
      configFile: session.configFile, includingWithoutSaves: isAll, everywhere: isEverywhere,
      refresh: .ifStale(deadline: 30))
    if isJSON {
      console.json(games)
      return .success
    }
    guard !games.isEmpty else {
      console.out(
        "No \(isEverywhere ? "game" : "installed game") with saves found. Add one by hand with '\(session.commandLine(["add", "NAME", "--save-dir", "DIR"]))'."
      )
      return .success
    }
    for game in games {
      let id = game.storeGameId.map { " \($0)" } ?? ""
      let title = game.title == game.game ? "" : " (\(game.title))"
      let added = (game.installed ? "" : ", not installed") + (game.configured ? ", in the config file" : "")
      console.out(
        "\(game.game)\(title): \(game.store)\(id), \(Format.count(game.files, "file")), \(Format.bytes(game.bytes))\(added)"
      )
      for location in game.locations {
        console.out("  \(location.path)\n    \(location.portable)")
      }
      if game.locations.isEmpty { console.out("  no save here yet") }
      for location in game.leftOut ?? [] {
        console.out("  left out by the config file: \(location.path)\n    \(location.portable)")
      }
      if game.leftOut?.isEmpty == false {
        console.out(
          "  backups of \(game.game) are refused until \(Advice.spelling(.detectGameAgain(game.title))) adds them, or its \"exclude\" names them"
        )
      }
    }
    return .success
  }
}
