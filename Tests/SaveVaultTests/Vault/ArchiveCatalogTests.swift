import Testing

@testable import SaveVault

@Suite("Archive catalog: a container's plain listing read into archives once", .tags(.small))
struct ArchiveCatalogTests {
  static let deck = "packsave-20261129T143847.123Z-deck.tar"
  static let pcLater = "packsave-20261129T143847.124Z-pc.tar.zst"
  static let pcSame = "packsave-20261129T143847.123Z-pc.tar"
  static let stray = "packsave-old.tar"

  func file(_ name: String, storedMs: Int64 = 5) -> ContainerFile {
    ContainerFile(name: name, size: 10, modifiedMs: storedMs, metadata: ["path": "/c/g/" + name])
  }

  @Test("SaveVault's names give their time and device; the storage's time is not used for them")
  func recognized() throws {
    let catalog = ArchiveCatalog([file(Self.deck, storedMs: 9_999_999_999_999)])
    let archive = try #require(catalog.recognized.first)
    #expect(archive.modifiedMs == 1_795_963_127_123)
    #expect(archive.device == "deck")
    #expect(archive.size == 10)
    #expect(archive.metadata["path"] == "/c/g/" + Self.deck)
    #expect(catalog.unrecognized.isEmpty)
  }

  @Test("a name SaveVault did not make keeps the storage's time and no device, and is never latest")
  func unrecognized() throws {
    let catalog = ArchiveCatalog([file(Self.stray, storedMs: 9_999_999_999_999), file(Self.deck)])
    #expect(catalog.recognized.map(\.name) == [Self.deck])
    let stray = try #require(catalog.unrecognized.first)
    #expect(stray.modifiedMs == 9_999_999_999_999)
    #expect(stray.device == nil)
    #expect(catalog.all.map(\.name) == [Self.deck, Self.stray])
  }

  @Test("newest first by SaveVault's time, then by name")
  func order() {
    let catalog = ArchiveCatalog([file(Self.deck), file(Self.pcLater), file(Self.pcSame)])
    #expect(catalog.recognized.map(\.name) == [Self.pcLater, Self.pcSame, Self.deck])
  }
}
