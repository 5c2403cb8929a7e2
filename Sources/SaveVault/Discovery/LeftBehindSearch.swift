/// Finds saves of games that are not installed (left after an uninstall, or of a DRM-free game
/// run from anywhere): for every game of the manifest, its save paths that need no install
/// folder (they start with `<home>`, `<xdgData>`, `<xdgConfig>` or a Windows folder, and name
/// no `<root>` or `<base>`), looked for in this user's home and XDG folders, in the Proton
/// prefix Steam keeps for each of the game's app ids in any library, and in the config's Wine
/// prefixes.
///
/// It has to be fast over 50,000 games, so nothing is looked at that cannot exist: each folder
/// is listed once, and a path is only resolved (globs, `<game>`, every variant) when the plain
/// names it starts with are there.
final class LeftBehindSearch {
  /// Where a game may have left saves: natively, or in one prefix.
  private struct Place {
    var installed: InstalledGame
    /// Whether the Windows folders are read (a prefix) rather than the XDG ones (natively).
    var isPrefix: Bool
  }

  private let roots: GameRoots
  /// The Proton prefixes left for each Steam app id: `<library>/steamapps/compatdata/<id>/pfx`.
  private let steamPrefixes: [String: [(library: String, prefix: String)]]
  /// The names in a folder: as they are, and by their lower-case form (for the prefixes).
  private struct Listing {
    var exact: Set<String>
    var folded: [String: [String]]
  }

  /// The names in each folder listed so far; nil when the folder cannot be listed (a file).
  private var listings: [String: Listing?] = [:]
  /// What a leading placeholder stands for in one place: its prefix, the game's Flatpak id.
  private struct AnchorKey: Hashable {
    var prefix: String?
    var flatpakID: String?
    var placeholder: String
  }

  /// The folders each leading placeholder stands for, per place.
  private var folders: [AnchorKey: [String]] = [:]

  /// The leading placeholders of a path that needs no install folder.
  private static let native: Set<String> = ["<home>", "<xdgData>", "<xdgConfig>"]
  private static let windows: Set<String> = [
    "<home>", "<winAppData>", "<winLocalAppData>", "<winLocalAppDataLow>", "<winDocuments>", "<winPublic>",
    "<winProgramData>", "<winDir>",
  ]

  init(roots: GameRoots) {
    self.roots = roots
    var prefixes: [String: [(library: String, prefix: String)]] = [:]
    for library in roots.steamLibraries {
      let compatdata = library + "/steamapps/compatdata"
      for id in (try? Platform.directoryNames(compatdata)) ?? [] where UInt32(id) != nil {
        let prefix = compatdata + "/" + id + "/pfx"
        if isDirectory(prefix) { prefixes[id, default: []].append((library, prefix)) }
      }
    }
    steamPrefixes = prefixes
  }

  /// The locations of `game`'s saves found here, with the store (and id) of the place they
  /// were found in first; nil when there are none.
  func locations(of game: LocationManifestGame) -> (installed: InstalledGame, [DetectedLocation])? {
    // (`<root>` and `<base>` can only start a path.)
    let templates = game.files.filter { !$0.hasPrefix("<root>") && !$0.hasPrefix("<base>") }
    guard !templates.isEmpty else { return nil }
    var found: [DetectedLocation] = []
    var first: InstalledGame?
    for place in places(of: game) {
      // Made only for a path that may exist: most games have none here.
      var made: PlaceholderContext?
      func context() -> PlaceholderContext {
        if let made { return made }
        var context = Detection.context(for: place.installed, game: game, host: roots.host)
        // In a prefix, `<home>` is the prefix's user folder only: this user's own is looked
        // at natively.
        context.nativeHomeRule = place.isPrefix ? .never : .always
        made = context
        return context
      }
      let leading = place.isPrefix ? Self.windows : Self.native
      var here: [DetectedLocation] = []
      for template in templates
      where mayExist(template, leading: leading, place: place, flatpakID: game.flatpakID, context: context) {
        for candidate in Placeholders.candidates(template, in: context()) {
          here += Detection.matches(
            of: candidate, store: place.installed.store, id: place.installed.storeGameID)
        }
      }
      if !here.isEmpty && first == nil { first = place.installed }
      found += here
    }
    guard let first else { return nil }
    return (first, Detection.outermost(found))
  }

  /// This user's own folders, then each prefix the game may have.
  private func places(of game: LocationManifestGame) -> [Place] {
    var places = [
      Place(
        installed: InstalledGame(
          store: .other, storeGameID: nil, title: game.title, installFolder: nil, prefix: nil,
          source: roots.host.home),
        isPrefix: false)
    ]
    let ids = ((game.steamID.map { [$0] } ?? []) + game.steamExtra).map(String.init)
    for id in unique(ids) {
      for (library, prefix) in steamPrefixes[id] ?? [] {
        places.append(
          Place(
            installed: InstalledGame(
              store: .steam, storeGameID: id, title: game.title, installFolder: nil, prefix: prefix,
              source: library),
            isPrefix: true))
      }
    }
    for prefix in roots.winePrefixes {
      places.append(
        Place(
          installed: InstalledGame(
            store: .wine, storeGameID: nil, title: game.title, installFolder: nil, prefix: prefix,
            source: prefix),
          isPrefix: true))
    }
    return places
  }

  /// Whether `template` starts with one of `leading` and the plain names below it, up to the
  /// first that is not one (a glob, a placeholder), are folders or files in one of the folders
  /// that placeholder stands for (matched case-insensitively in a prefix). Every folder is
  /// listed once, so the thousands of paths under `My Games` cost one listing of it, and a
  /// path is read only as far as its first name that is not there.
  private func mayExist(
    _ template: String, leading: Set<String>, place: Place, flatpakID: String?,
    context: () -> PlaceholderContext
  ) -> Bool {
    guard template.hasPrefix("<"), let close = template.firstIndex(of: ">") else { return false }
    let placeholder = String(template[...close])
    guard leading.contains(placeholder) else { return false }
    // Only the XDG folders depend on the game (its own Flatpak folder).
    let key = AnchorKey(
      prefix: place.installed.prefix, flatpakID: placeholder.hasPrefix("<xdg") ? flatpakID : nil,
      placeholder: placeholder)
    let anchors =
      folders[key]
      ?? {
        let found = Placeholders.variants(of: placeholder, in: context()).flatMap { variant in
          Glob.expand(anchor: variant.anchor, components: variant.kept, caseSensitive: variant.caseSensitive)
            .map(
              \.path)
        }
        folders[key] = found
        return found
      }()
    var current = anchors
    for component in template[template.index(after: close)...].split(separator: "/") {
      guard !current.isEmpty else { return false }
      let hasWildcard = component.utf8.contains { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") }
      guard !component.utf8.contains(UInt8(ascii: "<")), !hasWildcard else { return true }
      let isEscaped = component.utf8.contains(UInt8(ascii: "["))
      guard let name = isEscaped ? Glob.literal(String(component)) : String(component) else {
        return true
      }
      current = current.flatMap { folder -> [String] in
        guard let listing = listing(folder) else { return [] }
        let found =
          place.isPrefix
          ? listing.folded[name.lowercased()] ?? [] : listing.exact.contains(name) ? [name] : []
        return found.map { folder + "/" + $0 }
      }
    }
    return !current.isEmpty
  }

  private func listing(_ folder: String) -> Listing? {
    if let known = listings[folder] { return known }
    let names = (try? Platform.directoryNames(folder)).map { names in
      Listing(exact: Set(names), folded: Dictionary(grouping: names) { $0.lowercased() })
    }
    listings[folder] = names
    return names
  }
}
