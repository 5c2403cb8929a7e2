import SaveVault

/// The TARGET options: which game a command works on, and where its container is.
struct TargetOptions: Equatable, Sendable {
  var game: String?
  var saveDirectory: String?
  var container: String?
  var endpoint: String?
  var allowsInsecureHTTP = false

  static let game = Option(
    name: "game", kind: .value(placeholder: "NAME"),
    help: "a game from the config file, else an installed game by its name or title (see scan)",
    completion: .games)
  static let saveDirectory = Option(
    name: "save-dir", kind: .value(placeholder: "DIR"),
    help: "a save directory; the game name defaults to DIR's last component", completion: .directories)
  static let container = Option(
    name: "container", kind: .value(placeholder: "URL"),
    help:
      ContainerKind.helpList
      + " (default: $SAVEVAULT_CONTAINER, the config file, or $XDG_DATA_HOME/savevault/container)",
    summary: ContainerKind.summaryList, completion: .directories)
  static let endpoint = Option(
    name: "endpoint", kind: .value(placeholder: "URL"),
    help:
      "the S3 endpoint for s3:// (MinIO, Garage, R2, B2; default $AWS_ENDPOINT_URL, the config file, or AWS)")
  static let allowInsecureHTTP = Option(
    name: "allow-insecure-http", kind: .flag,
    help: "allow plain http:// to an S3 endpoint on another machine")

  static let declared = [game, saveDirectory, container, endpoint, allowInsecureHTTP]

  init() {}

  init(_ arguments: ParsedArguments) {
    game = arguments.value(Self.game)
    saveDirectory = arguments.value(Self.saveDirectory)
    container = arguments.value(Self.container)
    endpoint = arguments.value(Self.endpoint)
    allowsInsecureHTTP = arguments.has(Self.allowInsecureHTTP)
  }

  /// Whether a game is named (by --game or --save-dir); with none, a command works on every
  /// game of the config file, or refuses.
  var namesGame: Bool { game != nil || saveDirectory != nil }
}

/// The target a command asks for and how it reads it.
struct TargetSelection: Sendable {
  var options: TargetOptions
  /// `--compress`, where the command takes it.
  var compression: ArchiveCompression?
  /// Whether where the save lies matters (not for a command reading the container only).
  var checksPlacement = true

  init(options: TargetOptions, compression: ArchiveCompression? = nil, checksPlacement: Bool = true) {
    self.options = options
    self.compression = compression
    self.checksPlacement = checksPlacement
  }

  /// The TARGET options and `--compress` of `arguments`.
  init(_ arguments: ParsedArguments, checksPlacement: Bool = true) {
    options = TargetOptions(arguments)
    compression = arguments.choice(.compress, as: ArchiveCompression.self)
    self.checksPlacement = checksPlacement
  }
}
