import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Archive compression: names, packing and extraction limits", .tags(.small))
struct ArchiveCompressionTests {
  @Test(
    "a .tar.zst name parses with its device whole and formats back",
    arguments: [
      ("packsave-20261129T160111.609Z-deck.tar.zst", "deck", ArchiveCompression.zstd),
      ("packsave-20261129T160111.609Z-deck.tar", "deck", .none),
      ("packsave-20261129T160111.609Z-deck.tar.tar.zst", "deck.tar", .zstd),
      ("packsave-20261129T160111.609Z-deck.zst.tar", "deck.zst", .none),
      ("packsave-20261129T160111.609Z-my-deck.local.tar.zst", "my-deck.local", .zstd),
    ])
  func parse(name: String, device: String, compression: ArchiveCompression) throws {
    let parsed = try #require(ArchiveName(parsing: name))
    #expect(parsed.device == device)
    #expect(parsed.ending == compression.suffix)
    #expect(parsed.createdMs == 1_795_968_071_609)
    #expect(parsed.description == name)
    #expect(ArchiveName.isBackupName(name))
  }

  @Test(
    "names with other endings are not archives",
    arguments: [
      "packsave-20261129T160111.609Z-deck.zst", "packsave-20261129T160111.609Z-deck.gz",
      "packsave-20261129T160111.609Z-deck.tar.zstd", "packsave-20261129T160111.609Z-deck.tbz",
      "packsave-20261129T160111.609Z-deck.tzst",
      "packsave-20261129T160111.609Z-.tar.zst", "packsave-20261129T160111.609Z.tar.zst",
    ])
  func rejects(name: String) {
    #expect(ArchiveName(parsing: name) == nil)
  }

  @Test(
    "other tools' compressed tars with SaveVault's stamp parse with their ending",
    arguments: [".tar.gz", ".tgz", ".tar.bz2", ".tar.xz"])
  func foreignEnding(ending: String) throws {
    let name = "packsave-20261129T160111.609Z-deck" + ending
    let parsed = try #require(ArchiveName(parsing: name))
    #expect(parsed.device == "deck")
    #expect(parsed.ending == ending)
    #expect(parsed.description == name)
    #expect(ArchiveName.isBackupName("packsave-by-hand" + ending))
  }

  @Test("the ending names the encoding; settings are spelled exactly")
  func endings() {
    #expect(ArchiveEncoding.ending(of: "a.tar.zst")?.encoding == .zstd)
    #expect(ArchiveEncoding.ending(of: "a.tar")?.encoding == .plain)
    #expect(ArchiveEncoding.ending(of: "a.tgz")?.encoding == .gzip)
    #expect(ArchiveEncoding.ending(of: "a.tar.xz")?.ending == ".tar.xz")
    #expect(ArchiveEncoding.ending(of: "a.zst") == nil)
    #expect(ArchiveCompression(rawValue: "zstd") == .zstd)
    #expect(ArchiveCompression(rawValue: "Zstd") == nil)
    #expect(ArchiveCompression.settings == "none, zstd")
    let name = ArchiveName(createdMs: 5, device: "pc", compression: .zstd)
    #expect(name.description == "packsave-19700101T000000.005Z-pc.tar.zst")
  }

  @Test("mixed kinds list newest first by time, whatever the suffix")
  func ordering() throws {
    let dir = TemporaryDirectory("zstd-order")
    let container = FolderContainer(root: dir.path)
    try makeDirectory(dir.sub("g"))
    let made: [(Int64, ArchiveCompression)] = [(3, .none), (1, .zstd), (4, .zstd), (2, .none), (4, .none)]
    for (ms, compression) in made {
      let name = ArchiveName(createdMs: 1_795_968_071_000 + ms, device: "d", compression: compression)
      try writeFile(dir.sub("g/\(name)"), "x")
    }
    let names = try container.archivesNewestFirst(game: "g").map(\.name)
    #expect(
      names == [
        "packsave-20261129T160111.004Z-d.tar.zst", "packsave-20261129T160111.004Z-d.tar",
        "packsave-20261129T160111.003Z-d.tar", "packsave-20261129T160111.002Z-d.tar",
        "packsave-20261129T160111.001Z-d.tar.zst",
      ])
  }

  @Test("a compressed archive whose files do not fit the free space is refused before any is written")
  func freeSpace() throws {
    let dir = TemporaryDirectory("zstd-space")
    try writeFile(dir.sub("save/small.sav"), "fits")
    try writeFile(dir.sub("save/big.sav"), Data(count: 3 << 20))
    let scan = try #require(try SaveScan.scan(dir.sub("save")))
    let header = ArchiveHeader(format: 1, game: "g", device: "d", createdMs: 1)
    let (fd, path) = try Platform.makeTemporaryFile(prefix: dir.sub("archive-"))
    defer { close(fd) }
    let packed = try Packer(header: header, compression: .zstd).pack(scan, to: fd, outputName: path)
    #expect(packed.byteCount < 64 << 10, "3 MiB of zeros packed into \(packed.byteCount) bytes")

    try makeDirectory(dir.sub("staging"))
    lseek(fd, 0, SEEK_SET)
    // 2 MiB free keeps 256 KiB (an eighth) for the filesystem: 3 MiB of content does not fit.
    let tight = Extractor(freeSpace: FreeSpace(path: dir.path, bytes: 2 << 20))
    #expect(
      throws: ArchiveError.tooLittleSpace(path: dir.path, needed: 3 << 20, free: 2 << 20, kept: 256 << 10)
    ) {
      try tight.extract(fd: fd, archiveName: "a.tar.zst", into: dir.sub("staging"))
    }
    #expect(!FileManager.default.fileExists(atPath: dir.sub("staging/big.sav")))

    try makeDirectory(dir.sub("roomy"))
    lseek(fd, 0, SEEK_SET)
    let roomy = Extractor(freeSpace: FreeSpace(path: dir.path, bytes: 4 << 20))
    let extraction = try roomy.extract(fd: fd, archiveName: "a.tar.zst", into: dir.sub("roomy"))
    #expect(extraction.isVerified)
    #expect(FileManager.default.contents(atPath: dir.sub("roomy/big.sav")) == Data(count: 3 << 20))
  }

  @Test("the tar stream's cap grows with the entries read and never overflows")
  func streamCap() {
    let limits = ExtractionLimits(maxEntries: 10, maxDepth: 4, maxTotalBytes: 1 << 20)
    #expect(limits.maxStreamBytes(entries: 0) == 2 << 20)
    #expect(limits.maxStreamBytes(entries: 16) == (2 << 20) + 16 * (64 << 10))
    #expect(ExtractionLimits(maxTotalBytes: Int64.max - 5).maxStreamBytes(entries: 3) == Int64.max)
  }
}
