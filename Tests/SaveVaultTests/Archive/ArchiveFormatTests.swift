import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// Which archives this SaveVault reads by their header's format: those of the formats it
/// writes and wrote before; one a newer SaveVault made for readers of a newer format only is
/// refused before any entry is extracted.
@Suite("Archive format: a newer format refused by its header, older ones read", .tags(.small))
struct ArchiveFormatTests {
  /// A save of one file packed with `header`, then checked (and extracted into `staging`).
  static func extract(_ header: ArchiveHeader, into staging: String? = nil) throws -> Extractor.Extraction {
    let dir = TemporaryDirectory("archive-format")
    try writeFile(dir.sub("save/slot1.sav"), "chapter 3")
    let scan = try #require(try SaveScan.scan(dir.sub("save")))
    let (fd, path) = try Platform.makeTemporaryFile(prefix: dir.sub("archive-"))
    defer { close(fd) }
    _ = try Packer(header: header).pack(scan, to: fd, outputName: path)
    lseek(fd, 0, SEEK_SET)
    return try Extractor().extract(fd: fd, archiveName: "a.tar", into: staging)
  }

  @Test("an archive of format 1 or 2 is read and verified", arguments: [1, 2])
  func readsItsFormats(_ format: Int) throws {
    let extraction = try Self.extract(ArchiveHeader(format: format, game: "g", device: "d", createdMs: 1))
    #expect(extraction.isVerified)
    #expect(extraction.header?.format == format)
  }

  @Test("an archive of a newer format is refused as made by a newer SaveVault, nothing extracted")
  func refusesANewerFormat() throws {
    let dir = TemporaryDirectory("archive-format-staging")
    try makeDirectory(dir.sub("staging"))
    let header = ArchiveHeader(format: ArchiveHeader.currentFormat + 1, game: "g", device: "d", createdMs: 1)
    #expect(
      throws: ArchiveError.refused(
        archive: "a.tar",
        reason:
          "it was made by a newer SaveVault (format \(ArchiveHeader.currentFormat + 1)): update SaveVault to read it"
      )
    ) {
      try Self.extract(header, into: dir.sub("staging"))
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.sub("staging")).isEmpty)
  }

  @Test(
    "a header asks for a reader of its minReader, else of its format; fields it does not know are ignored",
    arguments: [
      (#""format": 1"#, true), (#""format": 2"#, true),
      (#""format": 3, "minReader": 2, "palette": ["teal"]"#, true),
      (#""format": 3"#, false), (#""format": 3, "minReader": 3"#, false),
      (#""format": 2, "minReader": 3"#, false),
      (#""format": 3, "encryption": {"cipher": "aes-256-gcm"}"#, false),
    ])
  func readerFormat(_ fields: String, isRead: Bool) throws {
    let json = #"{"game": "g", "device": "d", "createdMs": 1, "# + fields + "}"
    let header = try JSONDecoder().decode(ArchiveHeader.self, from: Data(json.utf8))
    #expect((header.newerFormatRefusal == nil) == isRead, "\(json)")
  }
}
