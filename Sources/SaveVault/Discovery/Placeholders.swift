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
  /// Where `<home>` is read as the home a native game sees (`nativeHome`); nil: by the game,
  /// always when it has no prefix, beside a prefix only for a hidden folder (`NativeHome`).
  var nativeHomeRule: NativeHome?
  /// `<storeUserId>`'s values: the Steam accounts of the game's installation here, by account
  /// id (`SteamInstallation.accountIDs`); empty when not known.
  var storeUserIDs: [String] = []
  /// The Steam account the player chose (`--steam-user`): an id folder of another is not this
  /// player's save.
  var chosenStoreUser: String?

  /// When `<home>` is the home of the player (or of Flatpak Steam's sandbox) rather than only
  /// the prefix's user folder.
  enum NativeHome {
    /// For every path: the game runs natively.
    case always
    /// For a path into a hidden folder (`<home>/.config/…`, `<home>/.local/share/…`), which the
    /// game writes natively beside its prefix (a Windows game's home holds no such folder).
    case hiddenFolders
    /// Never: only the prefixes are read.
    case never
  }

  /// Whether the game runs in Flatpak Steam, whose sandbox keeps its games' whole home
  /// (`~/.var/app/com.valvesoftware.Steam/.config`, `.local/share`, any other folder).
  var isInSteamSandbox: Bool { sandbox?.hasSuffix("/" + SteamInstallation.flatpakID) == true }

  /// The home a native game sees: this user's, or Flatpak Steam's sandbox.
  var nativeHome: String { isInSteamSandbox ? sandbox ?? host.home : host.home }

  /// Whether a native location's folders depend on the game's launcher (a Flatpak sandbox, or
  /// Steam, which may be Flatpak on another machine): its portable form keeps the store and id.
  var isNativeStoreBound: Bool { store == .steam || store == .steamShortcut || sandbox != nil }

  /// The XDG data and config folders a native game may use, the launcher's sandbox first:
  /// Flatpak Steam's only (its games see no other), a Heroic or Lutris Flatpak's `data` and
  /// `config` then this user's (a game ignores the variables as often as it honours them).
  func xdgFolders(data: Bool) -> [(folder: String, home: String)] {
    guard let sandbox else { return (data ? host.dataHomes : host.configHomes).map { ($0, host.home) } }
    if isInSteamSandbox { return [(sandbox + (data ? "/.local/share" : "/.config"), sandbox)] }
    return [(sandbox + (data ? "/data" : "/config"), sandbox)]
      + (data ? host.dataHomes : host.configHomes).map { ($0, host.home) }
  }

  /// The names `<storeUserId>` may have below `parent` (the component before it): a Steam
  /// account's id in `userdata`, its 64-bit SteamID anywhere else (as games write it).
  func storeUserIDs(below parent: String) -> [String] {
    parent == "userdata" ? storeUserIDs : storeUserIDs.compactMap(SteamInstallation.steamID64(account:))
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
  /// For a component where `<storeUserId>` is glued to text (`STEAMUSER<storeUserId>`), that
  /// text, by the component's index: the id is the rest of the name.
  var userIDTexts: [Int: GluedText] = [:]
  /// The folder that must exist for the anchor to be made when it does not (this user's home
  /// for its XDG folders); nil when the anchor itself must exist (a prefix, an install).
  var madeUnder: String?
  /// Whether `<storeUserId>` is a Steam id here (a number).
  var isSteamUser = false
  /// The account the player chose, when they did: only its ids stand for `<storeUserId>`.
  var chosenUser: String?

  /// Whether a name can stand for `<storeUserId>`: Steam's are numbers (the chosen account's
  /// only, when one is), and no store's begins with a dot (SaveVault's own `.savevault-*`
  /// folders beside a save never are one).
  func isUserID(_ name: String) -> Bool {
    guard let first = name.first, first != "." else { return false }
    guard isSteamUser else { return true }
    guard let chosenUser else { return name.allSatisfy(\.isASCIIDigit) }
    return name == chosenUser || name == SteamInstallation.steamID64(account: chosenUser)
  }

  /// Whether a match's names are ids where the template has `<storeUserId>`.
  func accepts(_ match: Glob.Match) -> Bool {
    userIDIndices.allSatisfy { index in
      index >= match.names.count || userID(in: match.names[index], at: index).map(isUserID) == true
    }
  }

  /// The part of `name` that stands for `<storeUserId>` in the component at `index`: the
  /// whole name, or what the text glued to the placeholder leaves; nil when that text is not
  /// around it.
  func userID(in name: String, at index: Int) -> String? {
    guard let text = userIDTexts[index] else { return name }
    return text.id(in: name, caseSensitive: caseSensitive)
  }

  /// `<storeUserId>` written in the name of the component at `index` that held `name`
  /// (`STEAMUSER<storeUserId>`), its text spelled as the name has it.
  func userIDTemplate(of name: String, at index: Int) -> String {
    guard let text = userIDTexts[index] else { return "<storeUserId>" }
    return String(name.prefix(text.before.count)) + "<storeUserId>" + String(name.suffix(text.after.count))
  }

  /// The folder name for the id `id` in the component at `index`.
  func userIDName(for id: String, at index: Int) -> String {
    guard let text = userIDTexts[index] else { return id }
    return text.before + id + text.after
  }
}

/// The literal text before and after a placeholder glued into one folder's name
/// (`STEAMUSER<storeUserId>`: `STEAMUSER` and nothing).
struct GluedText: Hashable {
  var before: String
  var after: String

  /// What `name` holds between the text, when it has the text around a non-empty rest.
  func id(in name: String, caseSensitive: Bool) -> String? {
    let (folded, start, end) =
      caseSensitive ? (name, before, after) : (name.lowercased(), before.lowercased(), after.lowercased())
    guard folded.count > start.count + end.count, folded.hasPrefix(start), folded.hasSuffix(end) else {
      return nil
    }
    return String(name.dropFirst(before.count).dropLast(after.count))
  }
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
    let leadingName = String(template.hasPrefix("<") ? template.prefix { $0 != ">" } + ">" : "")
    let isSteamUser = context.store == .steam || context.store == .steamShortcut
    if leading.contains(leadingName) {
      var rest = String(template.dropFirst(leadingName.count))
      // Text glued to the placeholder (`<winLocalAppData>Low/…`) ends its last folder's name.
      let glue = String(rest.prefix { $0 != "/" })
      rest.removeFirst(glue.count)
      let isHidden = rest.split(separator: "/").first?.hasPrefix(".") == true
      for variant in variants(of: leadingName, in: context, hiddenFolder: isHidden) {
        let variant = variant.glued(glue)
        for components in readings(of: rest, in: context, insidePrefix: !variant.caseSensitive) {
          result.append(
            SaveCandidate(
              anchor: variant.anchor, components: variant.kept + components.pattern,
              keptCount: variant.kept.count,
              leading: variant.leading, caseSensitive: variant.caseSensitive,
              isStoreBound: variant.isStoreBound,
              userIDIndices: components.userIDs.map { $0 + variant.kept.count },
              userIDTexts: Dictionary(
                uniqueKeysWithValues: components.userIDTexts.map { ($0.key + variant.kept.count, $0.value) }),
              madeUnder: variant.madeUnder, isSteamUser: isSteamUser, chosenUser: context.chosenStoreUser))
        }
      }
    } else if template.hasPrefix("/") {
      for components in readings(of: template, in: context, insidePrefix: false) {
        result.append(
          SaveCandidate(
            anchor: "/", components: components.pattern, keptCount: 0, leading: nil, caseSensitive: true,
            isStoreBound: false, userIDIndices: components.userIDs, userIDTexts: components.userIDTexts,
            isSteamUser: isSteamUser, chosenUser: context.chosenStoreUser))
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
    var madeUnder: String? = nil

    /// The variant with `glue` appended to the name of the last folder it stands for.
    func glued(_ glue: String) -> Variant {
      guard !glue.isEmpty else { return self }
      var variant = self
      if kept.isEmpty {
        variant.anchor = (anchor as NSString).deletingLastPathComponent
        variant.kept = [Glob.escape((anchor as NSString).lastPathComponent)]
        variant.madeUnder = nil
      }
      variant.kept[variant.kept.count - 1] += glue
      variant.leading += glue
      return variant
    }
  }

  /// The folders a leading placeholder stands for; for `<home>` beside a prefix, whether the
  /// path goes into a hidden folder (`NativeHome.hiddenFolders`).
  static func variants(of name: String, in context: PlaceholderContext, hiddenFolder: Bool = false)
    -> [Variant]
  {
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
      var variants = context.xdgFolders(data: isData).map {
        Variant(
          leading: name, anchor: $0.folder, kept: [], caseSensitive: true,
          isStoreBound: context.isNativeStoreBound,
          madeUnder: $0.folder.hasPrefix($0.home + "/") ? $0.home : nil)
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
    let rule = context.nativeHomeRule ?? (context.prefixes.isEmpty ? .always : .hiddenFolders)
    if name == "<home>" && (rule == .always || (rule == .hiddenFolders && hiddenFolder)) {
      variants.append(
        Variant(
          leading: name, anchor: context.nativeHome, kept: [], caseSensitive: true,
          isStoreBound: context.isNativeStoreBound))
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
  /// `<storeGameId>`; `<storeUserId>` becomes `*` and its component is remembered, with the
  /// literal text glued to it in the name (`STEAMUSER<storeUserId>`), if any.
  static func readings(
    of rest: String, in context: PlaceholderContext, insidePrefix: Bool
  ) -> [(pattern: [String], userIDs: [Int], userIDTexts: [Int: GluedText])] {
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
      var userIDTexts: [Int: GluedText] = [:]
      for component in text.split(separator: "/") where component != "." {
        let parts = component.split(separator: marker, omittingEmptySubsequences: false).map(String.init)
        if component == marker {
          userIDs.append(pattern.count)
        } else if parts.count == 2, let before = Glob.literal(parts[0]), let after = Glob.literal(parts[1]) {
          // The id glued to literal text: the name is that text around it.
          userIDs.append(pattern.count)
          userIDTexts[pattern.count] = GluedText(before: before, after: after)
        }
        // `*<storeUserId>` would make `**`: one star is the same match.
        var star = component.replacingOccurrences(of: marker, with: "*")
        while component.contains(marker) && star.contains("**") {
          star = star.replacingOccurrences(of: "**", with: "*")
        }
        pattern.append(star)
      }
      return (pattern, userIDs, userIDTexts)
    }
  }
}
