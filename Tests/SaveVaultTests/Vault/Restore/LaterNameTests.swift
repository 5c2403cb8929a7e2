import Foundation
import Testing

@testable import SaveVault

/// The name a file the game wrote after a restore set its namesake aside is kept under.
@Suite("The name of a file written after a restore set its namesake aside")
struct LaterNameTests {
  let glob = FilePattern(pattern: "**/*.sav", caseSensitive: true)

  @Test("beside its namesake, in its folder, the extension kept so that the pattern still names it")
  func named() throws {
    let aside = TemporaryDirectory("later-name")
    #expect(Vault.laterName("top.sav", in: aside.path, files: glob) == "top (written after the restore).sav")
    #expect(
      Vault.laterName("Slot A/deep.sav", in: aside.path, files: glob)
        == "Slot A/deep (written after the restore).sav")
    #expect(Vault.laterName(".hidden", in: aside.path, files: glob) == ".hidden (written after the restore)")
  }

  @Test("numbered when that name is taken too")
  func numbered() throws {
    let aside = TemporaryDirectory("later-name-taken")
    try writeFile(aside.path + "/top (written after the restore).sav", "an earlier one\n")
    #expect(
      Vault.laterName("top.sav", in: aside.path, files: glob) == "top (written after the restore 2).sav")
  }

  @Test("a pattern naming one file names no other: a free name all the same, never none")
  func exactPattern() throws {
    let aside = TemporaryDirectory("later-name-exact")
    let name = Vault.laterName(
      "options.ron", in: aside.path, files: .file("options.ron", caseSensitive: true))
    #expect(name == "options (written after the restore).ron")
  }
}
