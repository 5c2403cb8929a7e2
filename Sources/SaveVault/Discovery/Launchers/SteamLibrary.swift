import Foundation

/// One Steam installation and its libraries. A game lives in one library (the Deck's SD card,
/// a second disk), its Proton prefix in that library's `compatdata`, its cloud files in the
/// installation's `userdata`: so each is read from where Steam itself puts it, never guessed.
public struct SteamInstallation: Sendable, Equatable {
  /// The installation folder (holding `steamapps`, `userdata`).
  public var root: String
  /// `~/.var/app/com.valvesoftware.Steam` for Flatpak Steam: its games' XDG folders are there.
  public var sandbox: String?
  /// The libraries: the installation itself, then the numeric entries' `path` of
  /// `steamapps/libraryfolders.vdf`, each once by real path.
  public var libraries: [String]
  /// The user folders in `userdata` (numeric names): `<storeUserId>`.
  public var userIDs: [String]
  /// The Steam accounts of this installation, by 32-bit account id (`userdata/<id>`): the user
  /// folders, and the accounts `config/loginusers.vdf` says signed in here (a game that never
  /// ran here has no folder of theirs yet).
  public var accountIDs: [String]
  /// The account the player chose (`--steam-user`): the only one `<storeUserId>` names.
  public var chosenAccount: String?

  public init(
    root: String, sandbox: String? = nil, libraries: [String], userIDs: [String], accountIDs: [String]? = nil
  ) {
    self.root = root
    self.sandbox = sandbox
    self.libraries = libraries
    self.userIDs = userIDs
    self.accountIDs = accountIDs ?? userIDs
  }

  /// The 64-bit SteamID of the account `accountID` (what games write into their own save
  /// paths), or the account id of a 64-bit SteamID: they differ by the individual accounts'
  /// base, 76561197960265728.
  static let steamIDBase: UInt64 = 76_561_197_960_265_728

  static func steamID64(account: String) -> String? {
    UInt64(account).flatMap { $0 < 1 << 32 ? String(steamIDBase + $0) : nil }
  }

  static func account(steamID64: String) -> String? {
    guard let id = UInt64(steamID64), id > steamIDBase, id - steamIDBase < 1 << 32 else { return nil }
    return String(id - steamIDBase)
  }

  static let flatpakID = "com.valvesoftware.Steam"

  /// The installations of this machine: native (`~/.local/share/Steam`, `~/.steam/steam`,
  /// `~/.steam/root`, `$XDG_DATA_HOME/Steam`) and Flatpak, each once by real path. A library
  /// listed by two installations belongs to the first.
  static func locate(host: HostFolders, warnings: inout [String]) -> [SteamInstallation] {
    let sandbox = host.home + "/.var/app/" + flatpakID
    let native = [
      host.home + "/.local/share/Steam", host.home + "/.steam/steam", host.home + "/.steam/root",
      host.dataHome + "/Steam",
    ]
    let flatpak = [sandbox + "/.local/share/Steam", sandbox + "/.steam/steam"]
    var seenLibraries = Set<String>()
    var installations: [SteamInstallation] = []
    for root in existingFolders(native + flatpak) {
      let isFlatpak = flatpak.contains(root)
      var libraries: [String] = []
      for library in [root] + libraryPaths(root: root, warnings: &warnings) where isDirectory(library) {
        if let real = Platform.realPath(library), seenLibraries.insert(real).inserted {
          libraries.append(library)
        }
      }
      let userIDs = ((try? Platform.directoryNames(root + "/userdata")) ?? [])
        .filter { !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) && isDirectory(root + "/userdata/" + $0) }
        .sorted()
      let signedIn = signedInAccounts(root: root, warnings: &warnings)
      installations.append(
        SteamInstallation(
          root: root, sandbox: isFlatpak ? sandbox : nil, libraries: libraries, userIDs: userIDs,
          accountIDs: unique(userIDs + signedIn).sorted { ($0.count, $0) < ($1.count, $1) }))
    }
    return installations
  }

  /// The `path` of every numeric entry of `steamapps/libraryfolders.vdf` (older files give the
  /// path as the entry's text).
  static func libraryPaths(root: String, warnings: inout [String]) -> [String] {
    let file = root + "/steamapps/libraryfolders.vdf"
    guard let bytes = FileManager.default.contents(atPath: file) else { return [] }
    do {
      let document = try KeyValues.parse(bytes)
      guard let folders = document.section("libraryfolders") else { return [] }
      return folders.entries.compactMap { entry in
        guard entry.key.allSatisfy(\.isASCIIDigit) else { return nil }
        switch entry.value {
        case .text(let path): return path
        case .section(let library): return library.text("path")
        }
      }
    } catch {
      warnings.append("Steam library list \(file) was not read (\(error)): only \(root) is searched")
      return []
    }
  }

  /// The account ids of `config/loginusers.vdf`'s users (keyed by their 64-bit SteamID).
  static func signedInAccounts(root: String, warnings: inout [String]) -> [String] {
    let file = root + "/config/loginusers.vdf"
    guard let bytes = FileManager.default.contents(atPath: file) else { return [] }
    do {
      let users = try KeyValues.parse(bytes).section("users")
      return (users?.entries ?? []).compactMap { account(steamID64: $0.key) }
    } catch {
      warnings.append(
        "Steam's account list \(file) was not read (\(error)): only userdata's folders are known")
      return []
    }
  }

  /// The games installed in this installation's libraries, from their `appmanifest_<id>.acf`.
  /// The prefix is `compatdata/<id>/pfx` of the game's own library, else of any library in
  /// `allLibraries` (Steam moves games without their prefix).
  func games(allLibraries: [String], warnings: inout [String]) -> [InstalledGame] {
    var games: [InstalledGame] = []
    for library in libraries {
      let steamapps = library + "/steamapps"
      let names = ((try? Platform.directoryNames(steamapps)) ?? []).sorted()
      for name in names where name.hasPrefix("appmanifest_") && name.hasSuffix(".acf") {
        let file = steamapps + "/" + name
        guard let bytes = FileManager.default.contents(atPath: file),
          let state = try? KeyValues.parse(bytes).section("AppState"),
          let appID = state.text("appid"), UInt32(appID) != nil, let folder = state.text("installdir"),
          !folder.isEmpty, !folder.contains("/")
        else {
          warnings.append("Steam app manifest \(file) was not read: it is damaged or incomplete")
          continue
        }
        games.append(
          InstalledGame(
            store: .steam, storeGameID: appID, title: state.text("name") ?? folder,
            installFolder: steamapps + "/common/" + folder,
            prefix: Self.prefix(appID: appID, preferring: library, in: allLibraries), source: library,
            steamRoot: root, sandbox: sandbox))
      }
    }
    return games
  }

  /// `<library>/steamapps/compatdata/<appID>/pfx` of `preferred`, else of the first library
  /// that has one.
  static func prefix(appID: String, preferring preferred: String?, in libraries: [String]) -> String? {
    let ordered = (preferred.map { [$0] } ?? []) + libraries
    return ordered.map { $0 + "/steamapps/compatdata/" + appID + "/pfx" }.first { isDirectory($0) }
  }
}

extension Character {
  var isASCIIDigit: Bool { isASCII && isNumber }
}
