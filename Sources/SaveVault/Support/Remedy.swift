/// Something the player can do about a failure, named by what it does rather than by how a
/// front end spells it: the library's messages say it in words (`inWords`), the command line
/// as a command and its flags.
public enum Remedy: Sendable, Equatable {
  /// Name the save directory itself instead of a configured game.
  case nameSaveDirectory
  /// Name the Steam account whose saves these are (`--steam-user`).
  case nameSteamUser
  /// Name a configured game, or a save directory.
  case nameGameOrSaveDirectory
  /// Give the game a name of its own rather than its save directory's last component.
  case nameGame
  /// The same, for the save directory named, at the start of a sentence.
  case nameGameForFolder(String)
  /// Add the game again, replacing its entry in the config file.
  case addGameAgain(String?)
  /// Forget a game no longer played.
  case removeGame(String)
  /// Forget the game first (before adding it anew).
  case removeGameFirst(String)
  /// Replace the game's entry in the config file.
  case replaceGameEntry
  /// Add the game again from what discovery finds, replacing its entry.
  case detectGameAgain(String)
  /// Add the save directory under another game name, or replace the game's entry.
  case renameOrReplaceGame(String)
  /// Force this backup (of an empty or missing save).
  case forceThisBackup
  /// A forced backup, which makes the local save the agreed one.
  case forcedBackup
  /// Make a first backup.
  case backUpFirst
  /// List what the container holds.
  case listArchives
  /// Allow plain HTTP to an S3 endpoint on another machine.
  case allowInsecureHTTP
  /// Look at both sides of a conflict, at the start of a sentence.
  case seeBothSides
  /// A sync where someone can answer its question.
  case syncWithSomeoneToAsk
  /// A conflict policy that chooses.
  case choosePolicy
  /// The policy that restores the cloud's save.
  case restorePolicy

  /// The remedy in words, naming no command or flag.
  public var inWords: String {
    switch self {
    case .nameSaveDirectory: "name its save directory instead"
    case .nameSteamUser: "name your Steam account"
    case .nameGameOrSaveDirectory: "name a game added to the config file, or a save directory"
    case .nameGame: "give the game a name of its own"
    case .nameGameForFolder(let folder): "Give '\(folder)' a game name of its own"
    case .addGameAgain: "a new entry for the game"
    case .removeGame(let game): "removing the game '\(game)'"
    case .removeGameFirst(let game): "remove the game '\(game)' first"
    case .replaceGameEntry: "replace its entry"
    case .detectGameAgain: "adding the game again as scanning finds it"
    case .renameOrReplaceGame(let folder): "add '\(folder)' under another name, or replace the game's entry"
    case .forceThisBackup: "force the backup"
    case .forcedBackup: "a forced backup"
    case .backUpFirst: "make a first backup"
    case .listArchives: "list its archives"
    case .allowInsecureHTTP: "allow plain HTTP to it explicitly"
    case .seeBothSides: "Look at both sides (the game's status)"
    case .syncWithSomeoneToAsk: "a sync where someone can answer"
    case .choosePolicy: "choose a conflict policy (upload, restore, newer or skip)"
    case .restorePolicy: "the restore conflict policy"
    }
  }
}

/// A message with remedies in it, spelled when it is shown: `"…, or \(remedy: .nameGame)"`.
public struct Advised: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringInterpolation {
  enum Piece: Sendable, Equatable {
    case text(String)
    case remedy(Remedy)
  }

  var pieces: [Piece]

  public init(stringLiteral value: String) { pieces = [.text(value)] }

  public init(stringInterpolation: Interpolation) { pieces = stringInterpolation.pieces }

  /// Plain words, with no remedy in them.
  public init(_ text: String) { pieces = [.text(text)] }

  /// The message with each remedy spelled by `spell`.
  public func spelled(_ spell: (Remedy) -> String) -> String {
    pieces.map { piece in
      switch piece {
      case .text(let text): text
      case .remedy(let remedy): spell(remedy)
      }
    }.joined()
  }

  /// The message with its remedies in words.
  public var description: String { spelled(\.inWords) }

  /// The remedies the message names, in order.
  public var remedies: [Remedy] {
    pieces.compactMap { if case .remedy(let remedy) = $0 { remedy } else { nil } }
  }

  public struct Interpolation: StringInterpolationProtocol {
    var pieces: [Piece] = []

    public init(literalCapacity: Int, interpolationCount: Int) {}

    public mutating func appendLiteral(_ literal: String) { pieces.append(.text(literal)) }

    public mutating func appendInterpolation(remedy: Remedy) { pieces.append(.remedy(remedy)) }

    public mutating func appendInterpolation(_ advised: Advised) { pieces += advised.pieces }

    public mutating func appendInterpolation<Value>(_ value: Value) {
      pieces.append(.text(String(describing: value)))
    }
  }
}

/// A failure whose message names remedies, for the front end that shows it to spell.
public protocol AdvisedError: Error, CustomStringConvertible {
  /// What happened and what the player can do.
  var message: Advised { get }
}

extension AdvisedError {
  /// The message with its remedies in words.
  public var description: String { message.description }
}
