import Foundation
import Testing

@testable import SaveVault

/// The export of a location's registry keys, made from a real `system.reg`
/// (Tests/Fixtures/wine-registry/perfect-world-system.reg, see WineRegistryTests) with a game's
/// keys added in both views of `HKEY_LOCAL_MACHINE/Software`.
@Suite("Registry export: only the game's keys, their content, rewritten only when it changes", .tags(.small))
struct RegistryExportTests {
  static let gameKeys = """

    [Software\\\\Wow6432Node\\\\Maker\\\\Game\\\\Settings] 1700000000
    #time=1d9e0a0b0c0d0e0
    "Volume"=dword:00000050

    [Software\\\\Maker\\\\Game] 1700000000
    #time=1d9e0a0b0c0d0e0
    "Installed"="yes"

    [Software\\\\Maker\\\\Gamer] 1700000000
    "Other"="not the game's"

    """

  @Test("HKEY_LOCAL_MACHINE's key is exported from both views, in file order, without times")
  func bothViews() throws {
    let dir = TemporaryDirectory("registry-export")
    let real = try String(contentsOfFile: fixture("wine-registry/perfect-world-system.reg"), encoding: .utf8)
    try writeFile(dir.sub("pfx/system.reg"), real + Self.gameKeys)
    let key = try #require(WineRegistryKey(manifestKey: "HKEY_LOCAL_MACHINE/SOFTWARE/Maker/Game"))
    let source = RegistrySource(
      prefix: dir.sub("pfx"), manifestKey: "HKEY_LOCAL_MACHINE/SOFTWARE/Maker/Game", key: key)
    let export = String(decoding: try #require(try RegistryExport.export(source)), as: UTF8.self)
    #expect(
      export == """
        WINE REGISTRY Version 2
        ;; All keys relative to \\\\Machine

        #arch=win64

        [Software\\\\Wow6432Node\\\\Maker\\\\Game\\\\Settings]
        "Volume"=dword:00000050

        [Software\\\\Maker\\\\Game]
        "Installed"="yes"

        """)
    #expect(try WineRegistry.parse(Array(export.utf8)).sections.count == 2)

    // Made again: the same bytes leave the file (and its times) alone; a change rewrites it.
    let location = SaveLocation(
      name: "2-Game", path: dir.sub("export"), portable: PortableLocation(template: "registry:x"),
      shape: .registry(source))
    try location.shape.kind.prepareScan(location)
    let exported = dir.sub("export/system.reg")
    let first = try FileManager.default.attributesOfItem(atPath: exported)[.systemFileNumber] as? Int
    try writeFile(
      dir.sub("pfx/system.reg"), real.replacingOccurrences(of: "1590583769", with: "1") + Self.gameKeys)
    try location.shape.kind.prepareScan(location)
    #expect(try FileManager.default.attributesOfItem(atPath: exported)[.systemFileNumber] as? Int == first)
    try writeFile(
      dir.sub("pfx/system.reg"), real + Self.gameKeys.replacingOccurrences(of: "\"yes\"", with: "\"no\""))
    try location.shape.kind.prepareScan(location)
    #expect(text(exported)?.contains("\"Installed\"=\"no\"") == true)

    // The keys gone from the prefix: the export is gone (the location is empty).
    try writeFile(dir.sub("pfx/system.reg"), real)
    try location.shape.kind.prepareScan(location)
    #expect(!FileManager.default.fileExists(atPath: exported))
  }

  @Test("a prefix file that is no Wine registry is an error naming it, not an empty save")
  func malformed() throws {
    let dir = TemporaryDirectory("registry-export-bad")
    try writeFile(dir.sub("pfx/user.reg"), "WINE REGISTRY Version 2\n[Software\\\\Game] 1\nnonsense\n")
    let key = try #require(WineRegistryKey(manifestKey: "HKEY_CURRENT_USER/Software/Game"))
    let source = RegistrySource(
      prefix: dir.sub("pfx"), manifestKey: "HKEY_CURRENT_USER/Software/Game", key: key)
    #expect {
      try RegistryExport.export(source)
    } throws: { error in
      guard case .io(let path, let reason) = error as? VaultError else { return false }
      return path == dir.sub("pfx/user.reg") && reason.contains("line 3")
    }
  }
}

@Suite("A Wine prefix in use", .tags(.small))
struct PrefixInUseTests {
  @Test("a wineserver's socket for the prefix (its device and inode in the name) has it in use")
  func wineserverSocket() throws {
    let dir = TemporaryDirectory("prefix-in-use")
    let prefix = dir.sub("pfx")
    try makeDirectory(prefix)
    #expect(Vault.prefixHolder(prefix) == nil)
    var info = stat()
    try #require(stat(prefix, &info) == 0)
    let server =
      "/tmp/.wine-\(getuid())/server-\(String(UInt64(info.st_dev), radix: 16))-\(String(UInt64(info.st_ino), radix: 16))"
    // Wine's own folder is left as it was (made here, it is removed again).
    let wine = (server as NSString).deletingLastPathComponent
    let isMadeHere = !FileManager.default.fileExists(atPath: wine)
    try makeDirectory(server)
    defer { try? FileManager.default.removeItem(atPath: isMadeHere ? wine : server) }
    try writeFile(server + "/socket", "")
    #expect(Vault.prefixHolder(prefix)?.contains(server + "/socket") == true)
  }
}
