import Foundation

@testable import SaveVault

/// Manifests in the real format, as Ludusavi's generator (serde_yaml on yaml-rust) writes
/// them: a `---` line, 2-space block style, `{}` for empty mappings, double quotes only where
/// its emitter needs them. The entries are copied from the published manifest or shaped like
/// its awkward ones.
enum LocationManifestFixture {
  /// Verbatim entries and the tricky titles, in file order.
  static let realEntries = #"""
    ---
    "!4RC4N01D!":
      steam:
        id: 777010
    "\"LIFE\" not found":
      files:
        "<base>/save.dat": {}
      steam:
        id: 1000001
    "$1 Ride":
      installDir:
        "$1 Ride": {}
    "'83":
      gog:
        id: 1207659163
    "-KLAUS-":
      alias: Klaus
    ".hack//G.U. Last Recode":
      files:
        "<root>/userdata/<storeUserId>/525480/remote/savedata":
          tags:
            - save
          when:
            - os: windows
              store: steam
      id:
        steamExtra:
          - 746970
      installDir:
        hackGU: {}
      launch:
        "<base>/hackGU.exe":
          - arguments: " -windowed"
            when:
              - bit: 64
                os: windows
                store: steam
      steam:
        id: 525480
    "0000":
      registry:
        "HKEY_CURRENT_USER/Software/Zero": {}
    "03.04":
      files:
        "<winDocuments>/0304": {}
    0 A.D.:
      cloud:
        steam: true
      files:
        "<xdgData>/0ad":
          tags:
            - save
          when:
            - os: linux
      id:
        flatpak: com.play0ad.zeroad
    0°N 0°W:
      files:
        "<winAppData>/Colorfiction/0N0W": {}
      steam:
        id: 1081770
    1 ⛷ 1:
      steam:
        id: 1234560
    1/4平方米的星空:
      steam:
        id: 1534820
    2014-12-31:
      gog:
        id: 1400000000
      id:
        gogExtra:
          - 1400000001
    Klaus:
      files:
        "<winLocalAppData>/Klaus/Saved/SaveGames": {}
        "<home>/AppData/LocalLow/.../**/*.*": {}
      id:
        lutris: klaus
      installDir:
        KLAUS: {}
      notes:
        - message: "Saves are shared with the demo."
      steam:
        id: 604240
    Koo & Yuu:
      registry: {}
      steam:
        id: not-a-number
    "Kota`s New Journey":
      files:
        "<base>/KONUNG2.SA*":
          when:
            - os: dos
    y:
      id:
        steamExtra:
          - 42
          - x
          - 43
    """#

  /// The titles of `realEntries`, in order.
  static let realTitles = [
    "!4RC4N01D!", "\"LIFE\" not found", "$1 Ride", "'83", "-KLAUS-", ".hack//G.U. Last Recode", "0000",
    "03.04",
    "0 A.D.", "0°N 0°W", "1 ⛷ 1", "1/4平方米的星空", "2014-12-31", "Klaus", "Koo & Yuu", "Kota`s New Journey", "y",
  ]

  /// `games` written in the manifest's format (every key quoted, as the emitter does for the
  /// awkward ones), with a `launch` block on every fifth game as the real file has.
  static func yaml(_ games: [LocationManifestGame]) -> String {
    var text = "---\n"
    func quoted(_ value: String) -> String {
      "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        + "\""
    }
    for (position, game) in games.enumerated() {
      text += quoted(game.title) + ":\n"
      if let alias = game.alias {
        text += "  alias: \(quoted(alias))\n"
        continue
      }
      if !game.files.isEmpty {
        text += "  files:\n"
        for file in game.files {
          text += "    \(quoted(file)):\n      tags:\n        - save\n      when:\n        - os: windows\n"
        }
      }
      let ids =
        !game.steamExtra.isEmpty || !game.gogExtra.isEmpty || game.lutrisID != nil || game.flatpakID != nil
      if ids {
        text += "  id:\n"
        if let flatpak = game.flatpakID { text += "    flatpak: \(quoted(flatpak))\n" }
        if !game.gogExtra.isEmpty {
          text += "    gogExtra:\n" + game.gogExtra.map { "      - \($0)\n" }.joined()
        }
        if let lutris = game.lutrisID { text += "    lutris: \(quoted(lutris))\n" }
        if !game.steamExtra.isEmpty {
          text += "    steamExtra:\n" + game.steamExtra.map { "      - \($0)\n" }.joined()
        }
      }
      if !game.installDirs.isEmpty {
        text += "  installDir:\n" + game.installDirs.map { "    \(quoted($0)): {}\n" }.joined()
      }
      if position % 5 == 0 {
        text +=
          "  launch:\n    \"<base>/game.exe\":\n      - when:\n          - bit: 64\n            os: windows\n"
      }
      if game.hasRegistry {
        text += "  registry:\n" + game.registry.map { "    \(quoted($0)): {}\n" }.joined()
      }
      if let gog = game.gogID { text += "  gog:\n    id: \(gog)\n" }
      if let steam = game.steamID { text += "  steam:\n    id: \(steam)\n" }
    }
    return text
  }

  /// `count` manifest-shaped games with distinct titles and ids; every tenth an alias of the
  /// one before.
  static func games(_ count: Int) -> [LocationManifestGame] {
    (0..<count).map { number in
      if number % 10 == 9 {
        return LocationManifestGame(title: "Alias \(number)", alias: "Game \(number - 1)")
      }
      return LocationManifestGame(
        title: "Game \(number)", files: ["<winDocuments>/Game \(number)/Saves", "<xdgData>/game\(number)"],
        registry: number % 3 == 0 ? ["HKEY_CURRENT_USER/Software/\(number)"] : [],
        installDirs: ["Game\(number)"], steamID: UInt32(100_000 + number),
        steamExtra: number % 4 == 0 ? [UInt32(900_000 + number)] : [],
        gogID: number % 2 == 0 ? UInt64(1_000_000_000 + number) : nil,
        lutrisID: "game-\(number)")
    }
  }
}
