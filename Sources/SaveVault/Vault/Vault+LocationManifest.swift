import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Vault {
  /// Where Ludusavi's manifest is published (the default of Ludusavi's `manifest.url`).
  public static let manifestURL =
    "https://raw.githubusercontent.com/mtkennerly/ludusavi-manifest/master/data/manifest.yaml"

  /// The save-location manifest, as an index that answers lookups without parsing the YAML
  /// again. First found wins: `SAVEVAULT_MANIFEST` (a file, used as it is), the config's
  /// `manifest` (a file, or a URL downloaded to the cache), SaveVault's own copy (downloaded
  /// from `SAVEVAULT_MANIFEST_URL` or `manifestURL`), Ludusavi's cached copy. The config's
  /// `secondaryManifests` and the `.ludusavi.yaml` of each of `installFolders` are merged in
  /// (one that cannot be read is skipped with a warning).
  ///
  /// Downloads happen as `refresh` says; a game-launching command passes `.launch`, which
  /// never downloads over a stale copy and waits at most 2 s for a first one. Throws `LocationManifestError` (no manifest at all, or one that is not a
  /// manifest) and `ConfigError`.
  public func manifest(
    refresh: LocationManifestRefresh, installFolders: [String] = [], configFile: String? = nil
  ) throws -> LocationManifestIndex {
    try loadManifest(refresh: refresh, installFolders: installFolders, configFile: configFile).index
  }

  /// Which manifest `manifest(refresh:)` uses, where it is and how old.
  public func manifestStatus(refresh: LocationManifestRefresh = .never, configFile: String? = nil) throws
    -> LocationManifestStatus
  {
    try loadManifest(refresh: refresh, installFolders: [], configFile: configFile).status
  }

  /// Downloads the manifest (and the secondary manifests given by URL) now, whatever their
  /// age, and says what happened. A failed download is an outcome, not an error: the copy
  /// there was is kept and still used. Throws only for a manifest that is not one, or the
  /// config file.
  /// With `refresh` `.background`, only a copy due for its daily check is downloaded.
  public func updateManifest(configFile: String? = nil, refresh: LocationManifestRefresh = .force) throws
    -> LocationManifestUpdate
  {
    do {
      let loaded = try loadManifest(refresh: refresh, installFolders: [], configFile: configFile)
      let outcome: LocationManifestUpdate.Outcome =
        switch loaded.outcome {
        case nil: .notDownloaded
        case .updated: .updated
        case .unchanged: .unchanged
        case .skipped: refresh == .force ? .unchanged : .notDue
        case .failed(let reason): .failed(reason: reason)
        }
      return LocationManifestUpdate(outcome: outcome, status: loaded.status)
    } catch let error as LocationManifestError {
      guard case .unavailable(_, let reason) = error else { throw error }
      return LocationManifestUpdate(outcome: .failed(reason: reason), status: nil, error: error)
    }
  }

  /// Whether a downloaded copy of the manifest in use (the primary one, or a secondary one
  /// given by URL) is due for its daily check: what `wrap` asks once the game runs, to have it
  /// refreshed in the background (`updateManifest(refresh: .background)`). Reads no manifest.
  public func isManifestRefreshDue(configFile: String? = nil) -> Bool {
    guard context.environment["SAVEVAULT_MANIFEST"].map(\.isEmpty) ?? true,
      let config = try? cache.config(at: configPath(configFile), isRequired: false)
    else { return false }
    var copies = (config.secondaryManifests ?? []).filter(Self.isURL).map(cachedCopy)
    if let entry = config.manifest, !entry.isEmpty {
      if Self.isURL(entry) { copies.append(cachedCopy(of: entry)) }
    } else {
      copies.append(ownCopy)
    }
    let now = context.clock()
    return copies.contains { $0.isDue(.background, now: now) }
  }

  /// When a copy of the manifest is due for its daily check (`isManifestRefreshDue`), starts
  /// `savevault manifest update --if-stale` (this program, with this run's config file) as a
  /// process of its own that nothing waits for, and says so; false when none is due, or it
  /// cannot be started (the copy is then checked at a later run). What `wrap` does once the
  /// game runs, so that no download ever stands in front of a launch.
  public func startManifestRefresh(configFile: String?) -> Bool {
    guard isManifestRefreshDue(configFile: configFile), let executable = DetachedProcess.ownExecutable else {
      return false
    }
    let config = configFile.map { ["--config", absolute($0, context: context, home: paths.home)] } ?? []
    do {
      try DetachedProcess.start(
        executable, ["manifest", "update", "--if-stale"] + config, environment: context.environment)
      return true
    } catch {
      context.log.verbose("the manifest's refresh in the background did not start: \(error)")
      return false
    }
  }

  /// SaveVault's own copy of the manifest, from `SAVEVAULT_MANIFEST_URL` or `manifestURL`.
  private var ownCopy: LocationManifestCopy {
    let url =
      context.environment["SAVEVAULT_MANIFEST_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.manifestURL
    return LocationManifestCopy(
      url: url, file: paths.cacheDirectory + "/manifest.yaml",
      certificates: CertificateBundle.choose(environment: context.environment))
  }

  /// Where the index of the manifest in use is kept.
  var manifestIndexPath: String { paths.cacheDirectory + "/manifest.index" }

  private struct LoadedManifest {
    var index: LocationManifestIndex
    var status: LocationManifestStatus
    /// What the download did, for a downloaded manifest.
    var outcome: LocationManifestCopy.Outcome?
  }

  /// The primary manifest's file, before it is read.
  private struct Located {
    var source: LocationManifestStatus.Source
    var path: String
    var setting: String
    var copy: LocationManifestCopy?
    var outcome: LocationManifestCopy.Outcome?
    /// The games, when a download has just parsed them.
    var games: [LocationManifestGame]?
  }

  private func loadManifest(
    refresh: LocationManifestRefresh, installFolders: [String], configFile: String?
  ) throws -> LoadedManifest {
    let configPath = configPath(configFile)
    let config = try cache.config(at: configPath, isRequired: false)
    let configFolder = (configPath as NSString).deletingLastPathComponent
    let now = context.clock()
    let primary = try locatePrimary(config: config, configFolder: configFolder, refresh: refresh, now: now)
    var inputs: [(path: String, origin: LocationManifestMerge.Origin)] = []
    for entry in config.secondaryManifests ?? [] {
      var path = absolute(entry, in: configFolder, home: paths.home)
      if Self.isURL(entry) {
        let copy = cachedCopy(of: entry)
        if case .failed(let reason) = copy.refresh(refresh, now: now).0 {
          context.log.verbose("secondary manifest '\(entry)': download failed (\(reason))")
        }
        path = copy.file
      }
      if Self.stamp(of: path) != nil {
        inputs.append((path, .listed))
      } else {
        context.log.warning("secondary manifest '\(entry)' skipped: no copy of it to read")
      }
    }
    for folder in installFolders where Self.stamp(of: folder + "/.ludusavi.yaml") != nil {
      inputs.append((folder + "/.ludusavi.yaml", .installFolder(folder)))
    }
    let stamp = ([primary.path] + inputs.map(\.path)).map { Self.stamp(of: $0) ?? $0 }.joined(separator: "\n")
    let index = try LocationManifestIndex.load(path: manifestIndexPath, stamp: stamp) {
      var games = try primary.games ?? Self.readGames(at: primary.path, setting: primary.setting)
      for input in inputs {
        do {
          let secondary = try Self.readGames(at: input.path, setting: "secondaryManifests")
          games = LocationManifestMerge.merged(games, with: secondary, origin: input.origin)
        } catch {
          context.log.warning("secondary manifest skipped: \(error)")
        }
      }
      return games
    }
    let state = primary.copy?.state
    let changedMs = Self.modifiedMs(primary.path)
    let status = LocationManifestStatus(
      source: primary.source, path: primary.path, url: primary.copy?.url,
      ageMs: (state?.updatedMs ?? changedMs).map { max(0, now - $0) }, checkedMs: state?.checkedMs,
      games: index.gameCount, etag: state?.etag, secondary: inputs.map(\.path))
    return LoadedManifest(index: index, status: status, outcome: primary.outcome)
  }

  private func locatePrimary(
    config: ConfigFile, configFolder: String, refresh: LocationManifestRefresh, now: Int64
  ) throws -> Located {
    if let file = context.environment["SAVEVAULT_MANIFEST"], !file.isEmpty {
      return try readable(
        Located(
          source: .environment, path: absolute(file, context: context, home: paths.home),
          setting: "SAVEVAULT_MANIFEST"))
    }
    if let entry = config.manifest, !entry.isEmpty {
      guard Self.isURL(entry) else {
        return try readable(
          Located(
            source: .config, path: absolute(entry, in: configFolder, home: paths.home),
            setting: "the config's manifest"))
      }
      let copy = cachedCopy(of: entry)
      let (outcome, games) = copy.refresh(refresh, now: now)
      guard copy.exists else {
        throw LocationManifestError.unavailable(url: entry, reason: Self.reason(outcome))
      }
      return Located(
        source: .config, path: copy.file, setting: "the config's manifest", copy: copy, outcome: outcome,
        games: games)
    }
    let copy = ownCopy
    let url = copy.url
    let (outcome, games) = copy.refresh(refresh, now: now)
    if case .failed(let reason) = outcome {
      context.log.verbose("manifest download from '\(url)' failed: \(reason)")
    }
    if copy.exists {
      return Located(
        source: .download, path: copy.file, setting: "SaveVault's copy", copy: copy, outcome: outcome,
        games: games)
    }
    let ludusavi = paths.configHome + "/ludusavi/manifest.yaml"
    if FileManager.default.isReadableFile(atPath: ludusavi) {
      return Located(source: .ludusavi, path: ludusavi, setting: "Ludusavi's copy", outcome: outcome)
    }
    throw LocationManifestError.unavailable(url: url, reason: Self.reason(outcome))
  }

  /// `located` when its file can be read.
  private func readable(_ located: Located) throws -> Located {
    guard FileManager.default.isReadableFile(atPath: located.path) else {
      let reason = FileManager.default.fileExists(atPath: located.path) ? "permission denied" : "no such file"
      throw LocationManifestError.unreadable(path: located.path, setting: located.setting, reason: reason)
    }
    return located
  }

  /// The cached copy of a manifest downloaded from `url` (not SaveVault's own copy).
  private func cachedCopy(of url: String) -> LocationManifestCopy {
    LocationManifestCopy(
      url: url, file: paths.cacheDirectory + "/manifest-" + SHA256.hex(of: url).prefix(16) + ".yaml",
      certificates: CertificateBundle.choose(environment: context.environment))
  }

  private static func reason(_ outcome: LocationManifestCopy.Outcome) -> String {
    if case .failed(let reason) = outcome { return reason }
    return "it has not been downloaded yet"
  }

  static func isURL(_ text: String) -> Bool {
    let lower = text.lowercased()
    return lower.hasPrefix("http://") || lower.hasPrefix("https://")
  }

  /// The games of the manifest file at `path`.
  static func readGames(at path: String, setting: String) throws -> [LocationManifestGame] {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw LocationManifestError.unreadable(path: path, setting: setting, reason: "cannot read it")
    }
    do {
      return try LocationManifestReader.games(from: data)
    } catch {
      throw LocationManifestError.malformed(path: path, error)
    }
  }

  /// What says a file has changed: its path, size, change time and inode; nil when it is
  /// missing.
  static func stamp(of path: String) -> String? {
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    return
      "\(path)\t\(info.st_size)\t\(FileTimes.modifiedNs(info))\t\(FileTimes.changedNs(info))\t\(info.st_ino)\t\(info.st_dev)"
  }

  static func modifiedMs(_ path: String) -> Int64? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return FileTimes.modifiedNs(info) / 1_000_000
  }
}
