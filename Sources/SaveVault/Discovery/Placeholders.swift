import Foundation

/// What the manifest's placeholders stand for for one game on this machine. Built from an
/// installed game for detection, or from a portable location's store and id for resolution,
/// so that both read a template the same way.
struct PlaceholderContext {
  var host: HostFolders
  /// The store the game was found in; nil for a location outside any game (the player's home).
  var store: GameStore?
  var storeGameID: String?
  /// `<game>`: the title, the manifest's install folder names, the installed folder's name.
  var gameNames: [String] = []
  /// `<storeGameId>`: the store's ids of the game (extra ids included).
  var storeGameIDs: [String] = []
  /// `<root>`: the Steam library and installation, launcher folder or extra root.
  var roots: [String] = []
  /// `<base>`: the install folders (one game may be installed in two roots).
  var installFolders: [String] = []
  /// The Wine or Proton prefixes (folders holding `drive_c`) the Windows placeholders are in.
  var prefixes: [String] = []
  /// The Windows user inside the prefixes: `steamuser` for Proton, any (`*`) for Wine.
  var prefixUser = "*"
  /// A Flatpak launcher's `~/.var/app/<id>`, where its games' XDG folders are.
  var sandbox: String?
  /// `id.flatpak`: the game's own Flatpak folder `~/.var/app/<id>`.
  var flatpakID: String?
  /// Whether `<home>` is also the player's own home. A portable `<home>` with a store names the
  /// prefix's user folder, so resolving one does not look in the player's home.
  var searchesHostHome = true

  /// The XDG data and config folders inside the launcher's sandbox: Flatpak Steam keeps a
  /// home-like `.local/share` and `.config`, Heroic and Lutris Flatpak's `data` and `config`.
  var sandboxFolders: (data: String, config: String)? {
    guard let sandbox else { return nil }
    return sandbox.hasSuffix(SteamInstallation.flatpakID)
      ? (sandbox + "/.local/share", sandbox + "/.config") : (sandbox + "/data", sandbox + "/config")
  }
}

/// One way a template can be read: an exact folder to start from and the glob components
/// below it. The first `keptCount` components (and the anchor) are what the leading
/// placeholder `leading` stands for, so a match's portable form writes that placeholder again.
struct SaveCandidate: Hashable {
  var anchor: String
  var components: [String]
  var keptCount: Int
  /// The leading placeholder, or nil when the template is a plain absolute path.
  var leading: String?
  var caseSensitive: Bool
  /// Whether the location depends on the game's install or prefix (the portable form then
  /// keeps the store and id).
  var isStoreBound: Bool
  /// Indices of components that are `<storeUserId>`: they stay placeholders.
  var userIDIndices: [Int]
}

enum Placeholders {
  static let all = [
    "<root>", "<game>", "<base>", "<home>", "<storeGameId>", "<storeUserId>", "<osUserName>", "<winAppData>",
    "<winLocalAppData>", "<winLocalAppDataLow>", "<winDocuments>", "<winPublic>", "<winProgramData>",
    "<winDir>",
    "<xdgData>", "<xdgConfig>",
  ]

  /// The placeholders that stand for a folder and so can only start a template.
  static let leading: Set<String> = [
    "<root>", "<base>", "<home>", "<winAppData>", "<winLocalAppData>", "<winLocalAppDataLow>",
    "<winDocuments>",
    "<winPublic>", "<winProgramData>", "<winDir>", "<xdgData>", "<xdgConfig>",
  ]

  /// Windows folders inside a prefix, below `drive_c/users/<user>` unless marked: the first
  /// of each is the one a new save is written to.
  static let windowsFolders: [String: [[String]]] = [
    "<home>": [[]],
    "<winAppData>": [["AppData", "Roaming"], ["Application Data"]],
    "<winLocalAppData>": [["AppData", "Local"], ["Local Settings", "Application Data"]],
    "<winLocalAppDataLow>": [["AppData", "LocalLow"]],
    "<winDocuments>": [["Documents"], ["My Documents"]],
  ]
  static let machineFolders: [String: [String]] = [
    "<winPublic>": ["users", "Public"], "<winProgramData>": ["ProgramData"], "<winDir>": ["windows"],
  ]

  /// Every reading of `template` in `context`; a reading that leaves a placeholder unresolved
  /// is dropped, as Ludusavi drops it.
  static func candidates(_ template: String, in context: PlaceholderContext) -> [SaveCandidate] {
    var result: [SaveCandidate] = []
    let leadingName = template.hasPrefix("<") ? template.prefix { $0 != ">" } + ">" : ""
    if leading.contains(String(leadingName)) {
      let rest = String(template.dropFirst(leadingName.count))
      for variant in variants(of: String(leadingName), in: context) {
        for components in readings(of: rest, in: context, insidePrefix: !variant.caseSensitive) {
          result.append(
            SaveCandidate(
              anchor: variant.anchor, components: variant.kept + components.pattern,
              keptCount: variant.kept.count,
              leading: variant.leading, caseSensitive: variant.caseSensitive,
              isStoreBound: variant.isStoreBound,
              userIDIndices: components.userIDs.map { $0 + variant.kept.count }))
        }
      }
    } else if template.hasPrefix("/") {
      for components in readings(of: template, in: context, insidePrefix: false) {
        result.append(
          SaveCandidate(
            anchor: "/", components: components.pattern, keptCount: 0, leading: nil, caseSensitive: true,
            isStoreBound: false, userIDIndices: []))
      }
    }
    return unique(result)
  }

  struct Variant {
    var leading: String
    var anchor: String
    var kept: [String]
    var caseSensitive: Bool
    var isStoreBound: Bool
  }

  /// The folders a leading placeholder stands for.
  static func variants(of name: String, in context: PlaceholderContext) -> [Variant] {
    let host = context.host
    switch name {
    case "<root>":
      return context.roots.map {
        Variant(leading: name, anchor: $0, kept: [], caseSensitive: true, isStoreBound: true)
      }
    case "<base>":
      return context.installFolders.map {
        Variant(leading: name, anchor: $0, kept: [], caseSensitive: true, isStoreBound: true)
      }
    case "<xdgData>", "<xdgConfig>":
      let isData = name == "<xdgData>"
      // Steam and Flatpak launchers may run the game in a sandbox: the portable form keeps the
      // store and id so that another machine looks in its own launcher's folders too.
      let isSandboxed = context.store == .steam || context.sandbox != nil
      var folders = isData ? host.dataHomes : host.configHomes
      // The launcher's sandbox first: a game run from Flatpak Steam writes there.
      if let sandbox = context.sandboxFolders {
        folders.insert(isData ? sandbox.data : sandbox.config, at: 0)
      }
      var variants = folders.map {
        Variant(leading: name, anchor: $0, kept: [], caseSensitive: true, isStoreBound: isSandboxed)
      }
      if let id = context.flatpakID {
        let kept = [".var", "app", Glob.escape(id), isData ? "data" : "config"]
        variants.append(
          Variant(leading: "<home>", anchor: host.home, kept: [], caseSensitive: true, isStoreBound: false))
        variants[variants.count - 1].kept = kept
        variants[variants.count - 1].leading = "<home>/" + kept.joined(separator: "/")
      }
      return variants
    default:
      break
    }
    var variants: [Variant] = []
    if name == "<home>" && context.searchesHostHome {
      variants.append(
        Variant(leading: name, anchor: host.home, kept: [], caseSensitive: true, isStoreBound: false))
    }
    for prefix in context.prefixes {
      if let folders = windowsFolders[name] {
        for folder in folders {
          variants.append(
            Variant(
              leading: name, anchor: prefix, kept: ["drive_c", "users", context.prefixUser] + folder,
              caseSensitive: false, isStoreBound: true))
        }
      } else if let folder = machineFolders[name] {
        variants.append(
          Variant(
            leading: name, anchor: prefix, kept: ["drive_c"] + folder, caseSensitive: false,
            isStoreBound: true))
      }
    }
    return variants
  }

  /// The glob components of the text after the leading placeholder, for each `<game>` and
  /// `<storeGameId>`; `<storeUserId>` becomes `*` and its component is remembered.
  static func readings(
    of rest: String, in context: PlaceholderContext, insidePrefix: Bool
  ) -> [(pattern: [String], userIDs: [Int])] {
    let userName = insidePrefix ? context.prefixUser : Glob.escape(context.host.userName)
    var texts = [rest.replacingOccurrences(of: "<osUserName>", with: userName)]
    for (placeholder, values) in [("<game>", context.gameNames), ("<storeGameId>", context.storeGameIDs)]
    where texts.contains(where: { $0.contains(placeholder) }) {
      texts = texts.flatMap { text in
        values.map { text.replacingOccurrences(of: placeholder, with: Glob.escape($0)) }
      }
    }
    let marker = "\u{1}"
    return texts.compactMap { text in
      let text = text.replacingOccurrences(of: "<storeUserId>", with: marker)
      guard !text.contains("<") else { return nil }
      var pattern: [String] = []
      var userIDs: [Int] = []
      for component in text.split(separator: "/") where component != "." {
        if component == marker { userIDs.append(pattern.count) }
        // `*<storeUserId>` would make `**`: one star is the same match.
        var star = component.replacingOccurrences(of: marker, with: "*")
        while component.contains(marker) && star.contains("**") {
          star = star.replacingOccurrences(of: "**", with: "*")
        }
        pattern.append(star)
      }
      return (pattern, userIDs)
    }
  }
}
