import Foundation

/// The use cases: backup, status, restore, list, prune. Each takes a resolved `Target`,
/// returns a report, and throws domain errors; none prints or exits.
public struct Vault: Sendable {
  public var context: Context
  public var paths: Paths
  /// How long a command waits for another savevault working on the same game:
  /// `SAVEVAULT_LOCK_WAIT` seconds, 10 by default.
  public var lockWaitSeconds: Double
  /// Makes the container for a target; replaced in tests to wrap containers.
  public var makeContainer: @Sendable (Target, Paths) throws -> any Container

  public init(context: Context) throws(ConfigError) {
    self.context = context
    self.paths = try Paths(environment: context.environment)
    self.lockWaitSeconds = context.environment["SAVEVAULT_LOCK_WAIT"].flatMap(Double.init) ?? 10
    self.makeContainer = { [context] target, paths in
      try ContainerFactory.make(for: target, paths: paths, context: context)
    }
  }

  /// Resolves flags, config and environment into a target, and refuses (`ConfigError`) a save
  /// directory placed where SaveVault would lose saves (`Placement`).
  public func resolve(_ request: TargetRequest) throws(ConfigError) -> Target {
    let target = try Target.resolve(request, paths: paths, context: context)
    let configPath =
      request.configFile.map { absolute($0, context: context, home: paths.home) } ?? paths.configFile
    let config = try ConfigFile.load(path: configPath, isRequired: false)
    let records = ledger.allRecords()
    let known = KnownGames(
      config: config, configPath: configPath, records: records, paths: paths, context: context)
    // A name taken from the folder is bound to the folders the config file and the agreements give it.
    let bound =
      target.isNameFromFolder
      ? known.saveDirectories.filter { $0.name == target.game }.map(\.saveDirectory) : []
    let placement = Placement(
      saveDirectory: target.saveDirectory, game: target.game, container: target.container, known: known,
      paths: paths, configFile: configPath, bound: bound)
    if let problem = placement.problem() { throw problem }
    return target
  }

  var ledger: LedgerStore { LedgerStore(directory: paths.ledgerDirectory) }

  /// Where restore keeps the saves it replaced: a folder container of its own, never uploaded.
  /// Reading it never creates it.
  func preRestoreStore(creating: Bool = false) -> FolderContainer {
    FolderContainer(root: paths.dataDirectory + "/pre-restore", createsRoot: creating)
  }

  /// Archives made while the container was unavailable, waiting to be uploaded.
  func pendingStore(creating: Bool = false) -> FolderContainer {
    FolderContainer(root: paths.dataDirectory + "/pending", createsRoot: creating)
  }

  /// Takes the game's lock, waiting up to `waitSeconds` (default `lockWaitSeconds`) for another
  /// savevault to finish.
  func lock(_ target: Target, purpose: String, waitSeconds: Double? = nil) throws -> GameLock {
    try GameLock(
      game: target.game, directory: paths.lockDirectory, waitSeconds: waitSeconds ?? lockWaitSeconds,
      holder: "pid \(getpid()), savevault \(purpose)")
  }

  func verbose(_ message: @autoclosure () -> String) { context.log.verbose(message()) }
}
