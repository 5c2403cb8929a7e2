/// Finds saves of games that are not installed (left after an uninstall, or of a DRM-free game
/// run from anywhere): for every game of the manifest, its save paths that need no install
/// folder (they start with `<home>`, `<xdgData>`, `<xdgConfig>` or a Windows folder, and name
/// no `<root>` or `<base>`), looked for in this user's home and XDG folders, in the Proton
/// prefix Steam keeps for each of the game's app ids in any library, and in the config's Wine
/// prefixes.
///
/// It has to be fast over 50,000 games, so nothing is looked at that cannot exist: each folder
/// a placeholder stands for is listed once, and a path is only resolved when the first folder
/// it names below it is there.
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
  /// The folders each leading placeholder stands for, per place (`Place` key, placeholder).
  private var folders: [String: [String]] = [:]

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
    let templates = game.files.filter { !$0.contains("<root>") && !$0.contains("<base>") }
    guard !templates.isEmpty else { return nil }
    var found: [DetectedLocation] = []
    var first: InstalledGame?
    for place in places(of: game) {
      var context = Detection.context(for: place.installed, game: game, host: roots.host)
      // In a prefix, `<home>` is the prefix's user folder only: this user's own is looked at
      // natively.
      context.searchesHostHome = !place.isPrefix
      let leading = place.isPrefix ? Self.windows : Self.native
      var here: [DetectedLocation] = []
      for template in templates where mayExist(template, leading: leading, place: place, context: context) {
        for candidate in Placeholders.candidates(template, in: context) {
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
  /// listed once, so the thousands of paths under `My Games` cost one listing of it.
  private func mayExist(
    _ template: String, leading: Set<String>, place: Place, context: PlaceholderContext
  ) -> Bool {
    guard template.hasPrefix("<"), let close = template.firstIndex(of: ">") else { return false }
    let placeholder = String(template[...close])
    guard leading.contains(placeholder) else { return false }
    var names: [String] = []
    for component in template[template.index(after: close)...].split(separator: "/") {
      guard !component.contains("<"), let literal = Glob.literal(String(component)) else { break }
      names.append(literal)
    }
    let key = [place.installed.prefix ?? "", context.flatpakID ?? "", placeholder].joined(separator: "\n")
    let anchors =
      folders[key]
      ?? {
        let found = Placeholders.variants(of: placeholder, in: context).flatMap { variant in
          Glob.expand(anchor: variant.anchor, components: variant.kept, caseSensitive: variant.caseSensitive)
            .map(
              \.path)
        }
        folders[key] = found
        return found
      }()
    return anchors.contains { exists(names[...], in: $0, folded: place.isPrefix) }
  }

  /// Whether the path of `names` below `folder` exists, each name compared case-insensitively
  /// when `folded`.
  private func exists(_ names: ArraySlice<String>, in folder: String, folded: Bool) -> Bool {
    guard let name = names.first else { return true }
    guard let listing = listing(folder) else { return false }
    let found = folded ? listing.folded[name.lowercased()] ?? [] : listing.exact.contains(name) ? [name] : []
    return found.contains { exists(names.dropFirst(), in: folder + "/" + $0, folded: folded) }
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
