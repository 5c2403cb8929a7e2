import Foundation
import Testing

@testable import SaveVault

@Suite("Manifest reader", .tags(.small))
struct LocationManifestReaderTests {
  func realGames() throws -> [String: LocationManifestGame] {
    let games = try LocationManifestReader.games(from: Array(LocationManifestFixture.realEntries.utf8))
    #expect(games.map(\.title) == LocationManifestFixture.realTitles)
    return Dictionary(games.map { ($0.title, $0) }) { first, _ in first }
  }

  @Test("every title stays text, in file order, whatever a YAML 1.1 resolver would make of it")
  func titles() throws {
    let games = try realGames()
    for title in [
      "y", "0000", "03.04", "2014-12-31", "'83", "\"LIFE\" not found", "Kota`s New Journey", "1 ⛷ 1",
    ] {
      #expect(games[title] != nil, "\(title)")
    }
  }

  @Test("a save path only for a Mac is left out; one for Windows, Linux, DOS, a store or anything is kept")
  func pathsForOtherSystems() throws {
    let yaml = """
      Game:
        files:
          <home>/Library/Application Support/Game:
            when:
              - os: mac
          <home>/.local/share/Game:
            when:
              - os: linux
          <winAppData>/Game:
            when:
              - os: windows
                store: steam
          <base>/save.dat:
            when:
              - os: mac
              - os: windows
          <base>/any.dat:
            tags:
              - save
          <base>/dos.sav:
            when:
              - os: dos
          <base>/steam.sav:
            when:
              - store: steam
      """
    let games = try LocationManifestReader.games(from: Array(yaml.utf8))
    #expect(
      games.first?.files == [
        "<home>/.local/share/Game", "<winAppData>/Game", "<base>/save.dat", "<base>/any.dat",
        "<base>/dos.sav",
        "<base>/steam.sav",
      ])
  }

  @Test("the fields SaveVault uses are read; launch, cloud, notes and tags are skipped")
  func fields() throws {
    let games = try realGames()
    #expect(
      games[".hack//G.U. Last Recode"]
        == LocationManifestGame(
          title: ".hack//G.U. Last Recode", files: ["<root>/userdata/<storeUserId>/525480/remote/savedata"],
          installDirs: ["hackGU"], steamID: 525480, steamExtra: [746970]))
    #expect(
      games["Klaus"]
        == LocationManifestGame(
          title: "Klaus",
          files: ["<winLocalAppData>/Klaus/Saved/SaveGames", "<home>/AppData/LocalLow/.../**/*.*"],
          installDirs: ["KLAUS"], steamID: 604240, lutrisID: "klaus"))
    #expect(games["0 A.D."]?.flatpakID == "com.play0ad.zeroad")
    #expect(games["0 A.D."]?.files == ["<xdgData>/0ad"])
    #expect(games["-KLAUS-"] == LocationManifestGame(title: "-KLAUS-", alias: "Klaus"))
    #expect(games["!4RC4N01D!"] == LocationManifestGame(title: "!4RC4N01D!", steamID: 777010))
    #expect(games["0000"]?.registry == ["HKEY_CURRENT_USER/Software/Zero"])
    #expect(games["2014-12-31"]?.gogID == 1_400_000_000)
    #expect(games["2014-12-31"]?.gogExtra == [1_400_000_001])
    #expect(games["'83"]?.gogID == 1_207_659_163)
    #expect(games["Kota`s New Journey"]?.files == ["<base>/KONUNG2.SA*"])
  }

  @Test("a field that is not a number is dropped alone")
  func notANumber() throws {
    let games = try realGames()
    #expect(games["Koo & Yuu"] == LocationManifestGame(title: "Koo & Yuu"))
    #expect(games["y"]?.steamExtra == [42, 43])
  }

  @Test("unknown keys of any shape, non-scalar keys and odd values are skipped")
  func oddShapes() throws {
    let text = """
      A:
        future: [1, {x: [y]}, z]
        ? [complex, key]
        : value
        files: not-a-mapping
        steam: [1]
        alias: [x]
        id:
          steamExtra: 5
          lutris: {a: b}
      B: scalar-entry
      C:
      """
    let games = try LocationManifestReader.games(from: Array(text.utf8))
    #expect(
      games == [
        LocationManifestGame(title: "A"), LocationManifestGame(title: "B"), LocationManifestGame(title: "C"),
      ])
  }

  @Test("an empty document has no games")
  func empty() throws {
    #expect(try LocationManifestReader.games(from: Array("".utf8)).isEmpty)
    #expect(try LocationManifestReader.games(from: Array("---\n".utf8)).isEmpty)
  }

  @Test(
    "refused with where it is",
    arguments: [
      ("a: &x [1, 2]\nb: *x\n", YAMLError.alias(line: 2, column: 4)),
      (
        "- just\n- a list\n",
        YAMLError.unexpected("the manifest is not a mapping of titles", line: 1, column: 1)
      ),
      ("<html>\n", YAMLError.unexpected("the manifest is not a mapping of titles", line: 1, column: 1)),
    ])
  func refused(text: String, error: YAMLError) {
    #expect(throws: error) { try LocationManifestReader.games(from: Array(text.utf8)) }
  }

  @Test("malformed YAML is an error with line and column, even after good entries")
  func malformed() throws {
    let text = "A:\n  steam:\n    id: 1\nB:\n  files:\n    \"<base>/x: {}\n"
    do {
      _ = try LocationManifestReader.games(from: Array(text.utf8))
      Issue.record("accepted")
    } catch {
      guard case .malformed(_, let line, _) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(line >= 6)
      #expect(error.description.contains("line"))
    }
  }

  @Test("nesting past the limit is refused, not followed")
  func deep() {
    let text = "a: " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
    #expect(throws: YAMLError.self) { try LocationManifestReader.games(from: Array(text.utf8)) }
  }

  @Test("generated manifests read back as written")
  func roundTrip() throws {
    let games = LocationManifestFixture.games(200)
    #expect(try LocationManifestReader.games(from: Array(LocationManifestFixture.yaml(games).utf8)) == games)
  }

  @Test("YAMLValue.parse: a Lutris game file as plain values")
  func values() throws {
    let text = """
      game:
        exe: /home/me/Games/hades/Hades.exe
        prefix: /home/me/Games/hades
      slug: hades
      year: 2020
      tags: [a, "b"]
      ok: y
      """
    let value = try YAMLValue.parse(Array(text.utf8))
    #expect(value["game"]?["prefix"]?.string == "/home/me/Games/hades")
    #expect(value["slug"]?.string == "hades")
    #expect(value["year"]?.string == "2020")
    #expect(value["ok"]?.string == "y")
    #expect(value["tags"] == .sequence([.scalar("a"), .scalar("b")]))
    #expect(try YAMLValue.parse([UInt8]()) == .scalar(""))
    #expect(throws: YAMLError.self) { try YAMLValue.parse(Array("a: &x 1\nb: *x".utf8)) }
    #expect(throws: YAMLError.self) { try YAMLValue.parse(Array(String(repeating: "[", count: 100).utf8)) }
    #expect(throws: YAMLError.self) { try YAMLValue.parse(Array("? [a]\n: b\n".utf8)) }
  }
}

@Suite("Manifest merge", .tags(.small))
struct LocationManifestMergeTests {
  @Test("a secondary manifest extends lists and fills ids only where empty")
  func merge() {
    let primary = [
      LocationManifestGame(
        title: "A", files: ["<base>/a"],
        registry: ["HKEY_LOCAL_MACHINE/Software/A", "HKEY_CURRENT_USER/Software/A"],
        installDirs: ["A"], steamID: 1, steamExtra: [2], flatpakID: nil),
      LocationManifestGame(title: "B"),
    ]
    let secondary = [
      LocationManifestGame(
        title: "A", files: ["<base>/a", "./saves", "../shared"], registry: ["HKEY_CURRENT_USER/Software/A"],
        installDirs: ["A", "A2"],
        steamID: 9, steamExtra: [3], gogID: 7, gogExtra: [8], flatpakID: "org.a"),
      LocationManifestGame(title: "C", files: ["./c"]),
    ]
    let merged = LocationManifestMerge.merged(
      primary, with: secondary, origin: .installFolder("/games/common/A Game/"))
    #expect(
      merged == [
        LocationManifestGame(
          title: "A", files: ["<base>/a", "<base>/saves", "<base>/../shared"],
          registry: ["HKEY_LOCAL_MACHINE/Software/A", "HKEY_CURRENT_USER/Software/A"],
          installDirs: ["A", "A2", "A Game"], steamID: 1, steamExtra: [2, 3], gogID: 7, gogExtra: [8],
          flatpakID: "org.a"),
        LocationManifestGame(title: "B"),
        LocationManifestGame(title: "C", files: ["<base>/c"], installDirs: ["A Game"]),
      ])
    #expect(
      LocationManifestMerge.merged(
        primary, with: [LocationManifestGame(title: "B", files: ["x"])], origin: .listed)[1].files
        == ["x"])
  }
}

@Suite("Manifest reader: the block style read directly", .tags(.small))
struct LocationManifestBlockStyleTests {
  /// The games both ways: read directly (nil when the scanner refuses the text) and by libyaml.
  func bothWays(_ text: String) -> (direct: [LocationManifestGame]?, libyaml: [LocationManifestGame]?) {
    let bytes = Array(text.utf8)
    return (
      try? LocationManifestReader.gamesInBlockStyle(from: bytes),
      try? LocationManifestReader.gamesWithLibYAML(from: bytes)
    )
  }

  @Test(
    "real entries, the published file's fixture and generated manifests are read directly, as libyaml reads them"
  )
  func sameAsLibYAML() throws {
    for text in [
      LocationManifestFixture.realEntries,
      try String(contentsOfFile: fixture("manifest-real-games.yaml"), encoding: .utf8),
      LocationManifestFixture.yaml(LocationManifestFixture.games(300)),
    ] {
      let (direct, libyaml) = bothWays(text)
      #expect(direct != nil, "the manifest's own style is not read directly")
      #expect(direct == libyaml)
    }
  }

  @Test(
    "text outside the block style is left to libyaml, whose games or error stand",
    arguments: [
      "A:\n  steam: # a comment\n    id: 1\n", "A:\n\tsteam:\n", "A:\r\n  alias: B\r\n",
      "A: &x\n  alias: B\nC: *x\n",
      "A:\n  alias: 'B'\n", "A:\n  alias: \"B\n    C\"\n", "A:\n  files: {x: 1}\n", "---\nA: 1\n---\nB: 2\n",
      "A:\n  alias: plain\n    continued\n", "\u{FEFF}A:\n  alias: B\n", "A:\n  alias: B  \n",
      "A:\n  alias: x: y\n",
      "A:\n  id:\n  - 1\n  steam:\n    id: 2\n", "A:\n  alias: \"\\u00e9\\x41\\t\\\\\"\n", "? A\n: B\n",
      "A:\n  installDir:\n    " + String(repeating: "k", count: 1100) + ": {}\n", "A:\n   steam:\n  id: 1\n",
      "- A\n- B\n", "A:\n  - x\n  steam: 1\n", "A:\n  alias: \"\\q\"\n", "A:\n  alias: \"\\ud800\"\n",
    ])
  func outsideTheStyle(text: String) {
    let (direct, libyaml) = bothWays(text)
    if let direct { #expect(direct == libyaml, "read directly, and differently") }
    #expect(
      (try? LocationManifestReader.games(from: Array(text.utf8))) == libyaml,
      "games(from:) does not answer as libyaml does")
  }
}

@Suite("A manifest's registry key in a Wine prefix", .tags(.small))
struct WineRegistryKeyTests {
  @Test(
    "each root key is its file, HKEY_LOCAL_MACHINE's software with its 32-bit view; others have none",
    arguments: [
      (
        "HKEY_CURRENT_USER/Software/Zachtronics/Opus Magnum",
        WineRegistryKey(file: .user, paths: ["Software\\Zachtronics\\Opus Magnum"])
      ),
      ("HKEY_CURRENT_USER/Software/Game/", WineRegistryKey(file: .user, paths: ["Software\\Game"])),
      ("HKCU/Control Panel/Desktop", WineRegistryKey(file: .user, paths: ["Control Panel\\Desktop"])),
      (
        "HKEY_LOCAL_MACHINE/SOFTWARE/Bethesda Softworks/Oblivion",
        WineRegistryKey(
          file: .system,
          paths: [
            "SOFTWARE\\Bethesda Softworks\\Oblivion", "Software\\Wow6432Node\\Bethesda Softworks\\Oblivion",
          ])
      ),
      (
        "HKEY_LOCAL_MACHINE/Software/Wow6432Node/Game",
        WineRegistryKey(file: .system, paths: ["Software\\Wow6432Node\\Game"])
      ),
      ("HKEY_LOCAL_MACHINE/System/Game", WineRegistryKey(file: .system, paths: ["System\\Game"])),
      ("HKEY_CLASSES_ROOT/.sav", nil),
      ("HKEY_USERS/S-1-5-21/Software/Game", nil),
      ("HKEY_CURRENT_USER", nil),
    ] as [(String, WineRegistryKey?)])
  func mapping(_ manifestKey: String, key: WineRegistryKey?) {
    #expect(WineRegistryKey(manifestKey: manifestKey) == key)
  }
}
