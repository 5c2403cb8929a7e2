import SaveVault

/// How the command line spells what the player can do: the library's errors name remedies
/// (`Remedy`), and here they become the commands and flags to type.
enum Advice {
  /// The text of `error` as the command line shows it.
  static func text(for error: any Error) -> String {
    guard let advised = error as? any AdvisedError else { return String(describing: error) }
    return advised.message.spelled(spelling)
  }

  /// `report` with its note spelled for the command line.
  static func spelled(_ report: SyncReport) -> SyncReport {
    var report = report
    if let question = report.unanswered { report.note = text(for: question) }
    return report
  }

  /// `remedy` as a command or flag.
  static func spelling(_ remedy: Remedy) -> String {
    switch remedy {
    case .nameSaveDirectory: "pass --save-dir DIR"
    case .nameSteamUser: "pass --steam-user ID (its account id or 64-bit SteamID)"
    case .nameGameOrSaveDirectory: "pass --game NAME (a game added with 'savevault add') or --save-dir DIR"
    case .nameGame: "name the game with --game NAME"
    case .nameGameForFolder(let folder): "Pass --game NAME to give '\(folder)' a name of its own"
    case .addGameAgain(let game): "'savevault add \(game ?? "NAME") --save-dir DIR --replace'"
    case .removeGame(let game): "'savevault remove \(game)'"
    case .removeGameFirst(let game): "'savevault remove \(game)' first"
    case .replaceGameEntry: "pass --replace"
    case .detectGameAgain(let title): "'savevault add \(Session.shellWord(title)) --detect --replace'"
    case .renameOrReplaceGame(let folder): "pass another NAME for '\(folder)', or --replace"
    case .forceThisBackup: "pass --force"
    case .forcedBackup: "'savevault backup --force'"
    case .backUpFirst: "run 'savevault backup' first"
    case .listArchives: "run 'savevault list'"
    case .allowInsecureHTTP: "pass --allow-insecure-http"
    case .seeBothSides: "Run 'savevault status' to see both sides"
    case .syncWithSomeoneToAsk: "'savevault sync' in a terminal"
    case .choosePolicy: "choose with --on-conflict upload|restore|newer|skip"
    case .restorePolicy: "--on-conflict restore"
    }
  }
}
