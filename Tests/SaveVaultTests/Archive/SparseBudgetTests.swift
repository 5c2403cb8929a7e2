import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// A sparse file takes only its data on a disk that keeps holes, and its whole size on one
/// that does not: the free space an extraction checks counts what the disk will hold.
@Suite("Sparse files against the free space of the disk", .tags(.medium))
struct SparseBudgetTests {
  /// A GNU tar of a 1 GiB file holding 2 MiB of data at its middle.
  func sparseArchive(in dir: TemporaryDirectory) async throws -> String {
    let source = dir.path + "/source"
    try makeDirectory(source)
    let fd = open(source + "/disk.img", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    try #require(fd >= 0)
    try #require(ftruncate(fd, 1 << 30) == 0)
    let data = [UInt8](repeating: 5, count: 2 << 20)
    try #require(
      data.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(512 << 20)) } == data.count)
    close(fd)
    let archive = dir.path + "/sparse.tar"
    let tar = try await runProgramAwaiting(
      try requiredProgram("tar"), ["--sparse", "--format=pax", "-cf", archive, "-C", source, "disk.img"])
    try #require(tar.code == 0, "tar --sparse failed: \(tar.stderr)")
    return archive
  }

  func extract(_ archive: String, into staging: String, free: FreeSpace) throws {
    let fd = open(archive, O_RDONLY)
    try #require(fd >= 0)
    defer { close(fd) }
    try makeDirectory(staging)
    _ = try Extractor(freeSpace: free).extract(fd: fd, archiveName: "sparse.tar", into: staging)
  }

  @Test("64 MiB free: the 2 MiB of data fit where holes are kept, the 1 GiB file does not where they are not")
  func freeSpace() async throws {
    let dir = TemporaryDirectory("sparse-budget")
    let archive = try await sparseArchive(in: dir)
    #expect(Platform.keepsHoles(in: dir.path), "the test folder's filesystem keeps holes")
    let kept = FreeSpace(path: dir.path, bytes: 64 << 20, keepsHoles: true)
    try extract(archive, into: dir.path + "/kept", free: kept)
    var info = stat()
    try #require(lstat(dir.path + "/kept/disk.img", &info) == 0)
    #expect(Int64(info.st_size) == 1 << 30)
    #expect(Int64(info.st_blocks) * 512 < 4 << 20, "\(info.st_blocks) blocks")

    let filled = FreeSpace(path: dir.path, bytes: 64 << 20, keepsHoles: false)
    #expect(
      throws: ArchiveError.tooLittleSpace(path: dir.path, needed: 1 << 30, free: 64 << 20, kept: 8 << 20)
    ) {
      try extract(archive, into: dir.path + "/filled", free: filled)
    }
    let tight = FreeSpace(path: dir.path, bytes: 2 << 20, keepsHoles: true)
    #expect(
      throws: ArchiveError.tooLittleSpace(path: dir.path, needed: 2 << 20, free: 2 << 20, kept: 256 << 10)
    ) {
      try extract(archive, into: dir.path + "/tight", free: tight)
    }
  }
}
