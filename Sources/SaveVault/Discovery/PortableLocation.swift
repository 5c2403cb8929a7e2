/// Where a save location is, in a form that holds on any machine: a path written with the
/// manifest's placeholders, and the store and game id that say which install, Proton or Wine
/// prefix the placeholders are resolved in. `<winDocuments>/Saved Games/Hades` with Steam app
/// 1145360 is `…/compatdata/1145360/pfx/drive_c/users/steamuser/Documents/Saved Games/Hades` in
/// whichever Steam library holds the game on this machine; `<xdgConfig>/StardewValley/Saves`
/// is under this user's own config folder.
public struct PortableLocation: Sendable, Equatable, Hashable, Codable {
  /// The path with placeholders (`<home>`, `<xdgData>`, `<winAppData>`, `<root>`, `<base>`, …),
  /// or a plain absolute path when no placeholder describes it.
  public var template: String
  /// Where the Windows placeholders, `<root>`, `<base>` and `<game>` are resolved: `steam`,
  /// `gog` or `epic` (Heroic), `lutris`, `wine` (a Wine prefix named in the config); nil for a
  /// native path.
  public var store: String?
  /// The game's id in `store`: the Steam app id, the GOG product id, Epic's app name, the Lutris
  /// slug.
  public var storeGameID: String?

  public init(template: String, store: String? = nil, storeGameID: String? = nil) {
    self.template = template
    self.store = store
    self.storeGameID = storeGameID
  }
}
