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
  /// The config file and the games this device knows, read once per run: a command over every
  /// game resolves each of them, and each resolution checks against all of them.
  let cache = VaultCache()

  public init(context: Context) throws(ConfigError) {
    self.context = context
    self.paths = try Paths(environment: context.environment)
    self.lockWaitSeconds = context.environment["SAVEVAULT_LOCK_WAIT"].flatMap(Double.init) ?? 10
    self.makeContainer = { [context] target, paths in
      try ContainerFactory.make(for: target, paths: paths, context: context)
    }
  }

  /// Resolves flags, config and environment into a target, and refuses (`ConfigError`) a save
  /// directory placed where SaveVault would lose saves (`Placement`). Its locations are the
  /// resolver's (`resolvedLocations`): the game's list, and what the agreement adds.
  /// What discovery finds of the game comes with it (`discovered`), for every command that
  /// checks where the save lies.
  public func resolve(_ request: TargetRequest) throws(ConfigError) -> Target {
    var target = resolvedLocations(try resolveListed(request))
    guard request.checksPlacement, request.saveDirectory == nil else { return target }
    let configPath =
      request.configFile.map { absolute($0, context: context, home: paths.home) } ?? paths.configFile
    let config = try cache.config(at: configPath, isRequired: request.configFile != nil)
    target.discovered = discoveredSave(
      game: target.game, entry: config.games?[target.game], config: config, configFile: request.configFile)
    return target
  }

  /// `resolve`, with the game's own list of locations only.
  private func resolveListed(_ request: TargetRequest) throws(ConfigError) -> Target {
    let target: Target
    do {
      target = try Target.resolve(
        request, paths: paths, context: context, loadConfig: cache.config, roots: gameRoots)
    } catch .unknownGame(let name, let configPath) {
      // Not in the config file: an installed game the manifest knows, by its name or title.
      guard let found = try? detectedEntry(named: name, configFile: request.configFile, refresh: .launch)
      else {
        throw .unknownGame(name: name, configPath: configPath)
      }
      verbose("'\(name)' is not in the config file; it is the installed game '\(found.name)'")
      guard found.entry.locations?.isEmpty == false else {
        let why: Advised = found.unplaced.dropFirst().reduce(
          found.unplaced.first.map { ": \($0)" } ?? ""
        ) { "\($0); \($1)" }
        throw .invalid(
          "'\(found.name)' is installed here, but none of its save locations has a place on this machine yet (its save folders do not exist, and where the game would make them cannot be told)\(why); start the game once so that it makes them, or add the folders it uses to its \"locations\" in the config file"
        )
      }
      var detected = request
      detected.game = found.name
      target = try Target.resolve(
        detected, paths: paths, context: context,
        loadConfig: { (path, isRequired) throws(ConfigError) in
          var config = try cache.config(at: path, isRequired: isRequired)
          config.games = (config.games ?? [:]).merging([found.name: found.entry]) { old, _ in old }
          return config
        }, roots: gameRoots)
    }
    guard request.checksPlacement else { return target }
    let configPath =
      request.configFile.map { absolute($0, context: context, home: paths.home) } ?? paths.configFile
    let known = try cache.knownGames(for: configPath) { () throws(ConfigError) in
      let config = try cache.config(at: configPath, isRequired: false)
      // The config file's games are known from it; the agreements add the games used with
      // --save-dir alone.
      return KnownGames(
        config: config, configPath: configPath,
        agreed: agreements.allRecords(skipping: Set((config.games ?? [:]).keys)).map(\.place),
        paths: paths, context: context, roots: { gameRoots(config) })
    }
    // A name taken from the folder is bound to the folders the config file and the agreements give it.
    let bound =
      target.isNameFromFolder ? known.saveDirectories.filter { $0.name == target.game }.map(\.path) : []
    // A location of files is placed as the files it names: the folder holding them may hold
    // other things (a home folder, an install folder).
    let placement = Placement(
      saveDirectory: target.locations[0].shown, game: target.game, container: target.container, known: known,
      bound: bound)
    if let problem = placement.problem() { throw problem }
    for location in target.locations.dropFirst() {
      let placement = Placement(
        saveDirectory: location.shown, game: target.game, container: target.container, known: known)
      if let problem = placement.problem() { throw problem }
    }
    // One game's own locations never hold each other: nested ones were merged into the outer
    // (`Target.locations`), and a location of files is inside no other.
    return target
  }

  var agreements: AgreementStore { AgreementStore(directory: paths.agreementsDirectory) }

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

/// What a vault reads once per run: the config file (by path) and the games this device
/// knows (`KnownGames`). Commands that change the config file read it themselves, and forget
/// what is kept here once they did.
final class VaultCache: @unchecked Sendable {
  private let lock = NSLock()
  private var configs: [String: ConfigFile] = [:]
  private var known: [String: KnownGames] = [:]
  private var installed: GameRoots?
  private var identified: (GameRoots, LocationManifestIndex)?

  /// This machine's installed games, found by `make` at the first use (made outside the
  /// lock: it reads the config file and the manifest through this cache).
  func roots(_ make: () -> GameRoots) -> GameRoots {
    lock.lock()
    let cached = installed
    lock.unlock()
    if let cached { return cached }
    let found = make()
    lock.lock()
    defer { lock.unlock() }
    if let installed { return installed }
    installed = found
    return found
  }

  /// The installed games named with the save-location manifest, and the manifest, made by
  /// `make` at the first use that succeeds (`make` runs without the lock: it reads the config
  /// file through this cache).
  func manifest(_ make: () throws -> (GameRoots, LocationManifestIndex)) throws -> (
    GameRoots, LocationManifestIndex
  ) {
    lock.lock()
    let cached = identified
    lock.unlock()
    if let cached { return cached }
    let made = try make()
    lock.lock()
    identified = made
    lock.unlock()
    return made
  }

  /// The config file at `path`, read at its first use (a missing one is empty unless
  /// `isRequired`; errors are not kept).
  func config(at path: String, isRequired: Bool) throws(ConfigError) -> ConfigFile {
    lock.lock()
    defer { lock.unlock() }
    let key = path + (isRequired ? "\u{0}required" : "")
    if let config = configs[key] { return config }
    let config = try ConfigFile.load(path: path, isRequired: isRequired)
    configs[key] = config
    return config
  }

  /// Forgets what was read of the config files and the games known with them, once this run
  /// changed one (under whichever spelling of its path it was read).
  func forgetConfigs() {
    lock.lock()
    defer { lock.unlock() }
    configs = [:]
    known = [:]
  }

  /// The games known with the config file at `configPath`, made by `make` at the first use.
  func knownGames(for configPath: String, make: () throws(ConfigError) -> KnownGames) throws(ConfigError)
    -> KnownGames
  {
    lock.lock()
    let cached = known[configPath]
    lock.unlock()
    if let cached { return cached }
    let games = try make()
    lock.lock()
    known[configPath] = games
    lock.unlock()
    return games
  }
}
