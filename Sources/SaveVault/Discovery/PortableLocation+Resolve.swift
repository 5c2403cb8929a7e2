import Foundation

/// Where a portable location is on this machine.
public enum Resolution: Sendable, Equatable {
  /// The existing paths it matches (real paths, each once).
  case existing([String])
  /// Nothing exists yet, but the game is here (its prefix, install or home folder exists): the
  /// one path a save would be written to.
  case wouldBe(String)
  /// It cannot be placed here: why, and what the player can do.
  case unresolvable(Advised)
}

extension PortableLocation {
  /// Reads the location on this machine: the store's install of the game here (whichever
  /// Steam library holds it, native or Flatpak, whatever the user's name), its prefix, this
  /// user's home. Existing matches win; else, when the template has no wildcard left, the path
  /// to create, preferring `Documents` to `My Documents` and `AppData/Roaming` to
  /// `Application Data`; `<storeUserId>` only when exactly one Steam user folder exists.
  public func resolve(on roots: GameRoots) -> Resolution {
    // A registry key (`registry:HKEY_…`) is kept in a prefix's file, never in a folder.
    guard !RegistryKeyText.isRegistry(template) else {
      return .unresolvable("\(template) is a registry key, which has no folder of its own")
    }
    let context = resolutionContext(on: roots)
    let candidates = Placeholders.candidates(template, in: context)
    guard !candidates.isEmpty else { return .unresolvable(missingReason(on: roots, context: context)) }
    var existing: [String] = []
    for candidate in candidates {
      for match in Glob.expand(
        anchor: candidate.anchor, components: candidate.components, caseSensitive: candidate.caseSensitive)
      where candidate.accepts(match) {
        if let real = match.realPath, !existing.contains(real) { existing.append(real) }
      }
    }
    if !existing.isEmpty { return .existing(existing) }
    guard !hasWildcard else {
      return .unresolvable(
        "nothing here matches \(template), and a path with wildcards cannot be created: \(remedy: .nameSaveDirectory)"
      )
    }
    var reasons: [Unplaceable] = []
    for candidate in candidates {
      switch wouldBePath(candidate, context: context) {
      case .success(let path): return .wouldBe(path)
      case .failure(let reason): reasons.append(reason)
      }
    }
    let why = unique(reasons.map(\.text)).joined(separator: "; ")
    // Which account's save it is: the player names it; else the folder to use.
    let remedy = reasons.contains(where: \.isAccountUnknown) ? Remedy.nameSteamUser : .nameSaveDirectory
    return .unresolvable("\(template) cannot be placed here (\(why)): \(remedy: remedy)")
  }

  /// Whether the template has a wildcard besides its placeholders.
  var hasWildcard: Bool {
    let written = template.replacingOccurrences(of: "<storeUserId>", with: "id")
    let tail = written.hasPrefix("<") ? written.drop { $0 != ">" }.dropFirst() : Substring(written)
    return tail.split(separator: "/").contains { Glob.literal(String($0)) == nil }
  }

  /// What the placeholders mean here for this location's store and game.
  func resolutionContext(on roots: GameRoots) -> PlaceholderContext {
    let store = self.store.flatMap(GameStore.init(rawValue:))
    var context = PlaceholderContext(host: roots.host, store: store, storeGameID: storeGameID)
    guard let store else { return context }
    // Every install of the game: one may be in two roots, or under another folder's name.
    let installs = storeGameID.map { roots.installs(store: store, id: $0) } ?? []
    let installed = installs.first
    context.storeGameIDs = storeGameID.map { [$0] } ?? []
    context.installFolders = unique(installs.compactMap(\.installFolder))
    context.sandbox = installed?.sandbox
    if store == .steam || store == .steamShortcut {
      // The accounts of the Steam that has the game (of every Steam, when none has it); a game
      // not installed yet runs in Flatpak Steam's sandbox when that is the only Steam here.
      let steam = roots.steam.filter { installed?.steamRoot == nil || $0.root == installed?.steamRoot }
      context.storeUserIDs = unique(steam.flatMap { $0.chosenAccount.map { [$0] } ?? $0.accountIDs })
      context.chosenStoreUser = steam.lazy.compactMap(\.chosenAccount).first
      if installed == nil, roots.steam.count == 1 { context.sandbox = roots.steam[0].sandbox }
    }
    switch store {
    case .steam:
      context.prefixUser = "steamuser"
      let libraries = roots.steamLibraries
      if let id = storeGameID {
        // Each install's prefix (its own library's, else the one Steam kept in another when it
        // moved the game): a prefix left behind in another library is not the game's. A game
        // not installed here: every library's.
        context.prefixes =
          installs.isEmpty
          ? libraries.map { $0 + "/steamapps/compatdata/" + id + "/pfx" }.filter(isDirectory)
          : unique(installs.compactMap(\.prefix))
      }
      context.roots =
        installed.map { unique([$0.source] + ($0.steamRoot.map { [$0] } ?? [])) }
        ?? unique(roots.steam.map(\.root) + libraries)
    case .wine where storeGameID == nil:
      context.prefixes = roots.winePrefixes
    case .wine where storeGameID?.hasPrefix("/") == true && installs.isEmpty:
      // An entry written before games in Wine prefixes had ids names its prefix.
      context.prefixes = storeGameID.map { [$0] } ?? []
    default:
      context.prefixes = unique(installs.compactMap(\.prefix))
      context.roots = unique(installs.map(\.source))
      if store == .steamShortcut { context.prefixUser = "steamuser" }
      if installs.contains(where: \.isKnownByTitle), let id = storeGameID {
        // `<game>`: the title, and the folder of each install.
        context.gameNames = unique(
          [id] + installs.map { $0.installFolder.map { ($0 as NSString).lastPathComponent } ?? $0.title })
      }
    }
    return context
  }

  /// Why no reading of the template exists here: the game is not installed, or has no prefix.
  func missingReason(on roots: GameRoots, context: PlaceholderContext) -> Advised {
    let id = storeGameID ?? "?"
    let needsPrefix = template.hasPrefix("<win") || template.hasPrefix("<home>")
    let installed = roots.games.first { $0.store.rawValue == store && $0.storeGameID == storeGameID }
    if let known = store.flatMap(GameStore.init(rawValue:)), let unread = roots.launcherWarnings[known],
      installed?.prefix == nil
    {
      // The launcher's file that would tell of the game is damaged: that, not a missing game.
      let game =
        known == .steam
        ? "Steam app \(id)"
        : known == .steamShortcut ? "the non-Steam game '\(id)'" : "the \(known.rawValue) game \(id)"
      return
        "\(game) was not found here whole: its launcher's files were not all read (\(unread.joined(separator: "; "))): if the game is installed here, repair that file (starting the launcher may), or \(remedy: .nameSaveDirectory)"
    }
    switch store {
    case GameStore.steam.rawValue?:
      guard let installed else {
        let notInstalled =
          "Steam app \(id) is not installed here (no appmanifest_\(id).acf in any Steam library)"
        return needsPrefix
          ? "\(notInstalled), and no Proton prefix compatdata/\(id) exists: install and start the game once, or \(remedy: .nameSaveDirectory)"
          : "\(notInstalled): install the game, or \(remedy: .nameSaveDirectory)"
      }
      return
        "Steam app \(id) is installed in \(installed.source) but has no Proton prefix compatdata/\(id) yet: start the game once, or \(remedy: .nameSaveDirectory)"
    case let store? where store == GameStore.other.rawValue || store == GameStore.wine.rawValue:
      let kind = store == GameStore.wine.rawValue ? "Wine prefixes" : "roots"
      guard let installed else {
        return
          "'\(id)' is not installed in the config file's \(kind) here: install it there, add the folder that holds it to \"\(store == GameStore.wine.rawValue ? "winePrefixes" : "roots")\", or \(remedy: .nameSaveDirectory)"
      }
      return
        "'\(id)' (installed in \(installed.source)) has no Wine prefix here: start the game once, or \(remedy: .nameSaveDirectory)"
    case GameStore.steamShortcut.rawValue?:
      guard let installed else {
        return
          "'\(id)' is not one of Steam's non-Steam games here: add it to Steam under that name, or \(remedy: .nameSaveDirectory)"
      }
      let prefix = installed.shortcutID.map { "compatdata/\($0)" } ?? "compatdata"
      return
        "the non-Steam game '\(id)' has no Proton prefix \(prefix) yet: start it once from Steam, or \(remedy: .nameSaveDirectory)"
    case let store?:
      guard let installed else {
        return "the \(store) game \(id) is not installed here: install it, or \(remedy: .nameSaveDirectory)"
      }
      return
        "the \(store) game \(installed.title) has no Wine prefix here: start the game once, or \(remedy: .nameSaveDirectory)"
    case nil:
      return
        "\(template) names a Windows folder but no game whose Wine or Proton prefix it is in: \(remedy: .nameSaveDirectory)"
    }
  }

  /// Why one reading cannot be made a path.
  struct Unplaceable: Error {
    var text: String
    /// Whether it is which Steam account's folder `<storeUserId>` is that cannot be told.
    var isAccountUnknown = false
  }

  /// The path a candidate names, its anchor existing (or the folder it may be made in, for
  /// this user's XDG folders): literal components as written (or as an existing folder spells
  /// them, inside a prefix), a wildcard only if exactly one folder matches it (a prefix's
  /// `Public` user does not count), `<storeUserId>` the one id folder there, else the one
  /// account of this machine's Steam.
  func wouldBePath(_ candidate: SaveCandidate, context: PlaceholderContext) -> Result<String, Unplaceable> {
    guard isDirectory(candidate.anchor) || candidate.madeUnder.map(isDirectory) == true else {
      return .failure(Unplaceable(text: "\(candidate.anchor) does not exist"))
    }
    var path = candidate.anchor == "/" ? "" : candidate.anchor
    var previous = ""
    for (index, component) in candidate.components.enumerated() {
      let names = ((try? Platform.directoryNames(path.isEmpty ? "/" : path)) ?? []).sorted()
      if candidate.userIDIndices.contains(index) {
        // The ids of the folders there (a whole name, or what the text glued to it leaves).
        let present = names.compactMap { name in
          candidate.userID(in: name, at: index).flatMap {
            candidate.isUserID($0) ? (id: $0, name: name) : nil
          }
        }
        switch userIDName(among: present.map(\.id), below: previous, context: context, in: path) {
        case .success(let id):
          path += "/" + (present.first { $0.id == id }?.name ?? candidate.userIDName(for: id, at: index))
        case .failure(let reason): return .failure(reason)
        }
      } else if let literal = Glob.literal(component) {
        let spelled = candidate.caseSensitive ? nil : names.first { $0.lowercased() == literal.lowercased() }
        path += "/" + (spelled ?? literal)
      } else {
        let matching = names.filter {
          Glob.matches($0, component, caseSensitive: candidate.caseSensitive)
            && !(previous.lowercased() == "users" && $0 == "Public")
        }
        guard matching.count == 1 else {
          let found = matching.isEmpty ? "none" : matching.joined(separator: ", ")
          return .failure(Unplaceable(text: "\(matching.count) folders in \(path) could be meant (\(found))"))
        }
        path += "/" + matching[0]
      }
      previous = component
    }
    return .success(path.isEmpty ? "/" : path)
  }

  /// The folder name `<storeUserId>` has in `path`: the one id folder the game made there, else
  /// the one account this machine's Steam knows (the game never ran here).
  func userIDName(among present: [String], below parent: String, context: PlaceholderContext, in path: String)
    -> Result<String, Unplaceable>
  {
    if present.count == 1 { return .success(present[0]) }
    // Steam's own `userdata` is in its installation (which has its accounts' list), never in
    // another library.
    let installation = (path as NSString).deletingLastPathComponent
    if parent == "userdata" && !isDirectory(path)
      && !Platform.isRegularFile(installation + "/config/loginusers.vdf")
    {
      return .failure(Unplaceable(text: "\(path) does not exist"))
    }
    guard present.isEmpty else {
      return .failure(
        Unplaceable(
          text:
            "\(present.count) folders in \(path) could be meant (\(present.joined(separator: ", "))): which account's save it is cannot be told",
          isAccountUnknown: context.store == .steam || context.store == .steamShortcut))
    }
    let known = context.storeUserIDs(below: parent)
    if known.count == 1 { return .success(known[0]) }
    return .failure(
      Unplaceable(
        text: known.isEmpty
          ? "no account of \(context.store?.rawValue ?? "the store") is known on this machine to name the folder in \(path): start the game here once"
          : "\(known.count) Steam accounts here could be meant (\(known.joined(separator: ", "))): which one's save it is cannot be told",
        isAccountUnknown: !known.isEmpty))
  }
}

extension Glob.Match {
  /// Where the match really is: its real path, except that a symlink to anything but a folder
  /// stays a name in its folder's real path (a save scan keeps it there as a link, or skips
  /// it, and says so), so that a location is never where a link in its folder leads. Nil when
  /// it is gone.
  var realPath: String? {
    guard Platform.isSymlink(path), !Platform.isFolder(path) else { return Platform.realPath(path) }
    let folder = (path as NSString).deletingLastPathComponent
    return Platform.realPath(folder).map { $0 + "/" + (path as NSString).lastPathComponent }
  }
}
