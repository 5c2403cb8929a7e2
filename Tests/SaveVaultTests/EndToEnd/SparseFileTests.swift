import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// Sparse files stay sparse, in the archive and after a restore, through the built binary, and
/// GNU tar and Python's tarfile read them back with their holes.
@Suite("Sparse files, through the binary", .tags(.medium))
struct SparseFileTests {

  static let size: Int64 = 64 << 20
  static let dataOffset: Int64 = 32 << 20
  static let data = [UInt8]((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })

  /// Makes a 64 MiB file holding 4 KiB of data at 32 MiB and holes elsewhere (`hasData`), or
  /// one that is all hole.
  func makeSparse(_ path: String, hasData: Bool = true) throws {
    try makeDirectory((path as NSString).deletingLastPathComponent)
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    try #require(fd >= 0)
    defer { close(fd) }
    try #require(ftruncate(fd, off_t(Self.size)) == 0)
    guard hasData else { return }
    let written = Self.data.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(Self.dataOffset)) }
    try #require(written == Self.data.count)
  }

  /// The bytes of the expected sparse file, checked without building 64 MiB: size, the data
  /// region, zeros around it; and the blocks it takes on disk.
  func checkSparse(_ path: String, by tool: String, hasData: Bool = true) throws {
    var info = stat()
    try #require(lstat(path, &info) == 0, "\(tool): '\(path)' is missing")
    #expect(Int64(info.st_size) == Self.size, "\(tool): size \(info.st_size)")
    #expect(Int64(info.st_blocks) * 512 < 1 << 20, "\(tool): \(info.st_blocks) blocks: the holes were filled")
    let fd = open(path, O_RDONLY)
    try #require(fd >= 0)
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0xAA, count: 1 << 20)
    var offset: Int64 = 0
    var mismatch: Int64?
    while offset < Self.size {
      let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      try #require(got > 0, "\(tool): short read at \(offset)")
      for index in 0..<got where mismatch == nil {
        let position = offset + Int64(index)
        let inData =
          hasData && position >= Self.dataOffset && position < Self.dataOffset + Int64(Self.data.count)
        let expected = inData ? Self.data[Int(position - Self.dataOffset)] : 0
        if buffer[index] != expected { mismatch = position }
      }
      offset += Int64(got)
    }
    #expect(mismatch == nil, "\(tool): wrong byte at \(mismatch ?? 0)")
  }

  @Test("a sparse file is archived small and comes back sparse with the same bytes")
  func sparseFile() async throws {
    let box = try Sandbox("sparse", device: "testbox")
    let save = box.path("saves/world")
    try makeSparse(save + "/world.img")
    try makeSparse(save + "/reserved.img", hasData: false)
    try writeFile(save + "/small.sav", "small")
    var made = stat()
    try #require(lstat(save + "/world.img", &made) == 0)
    try #require(Int64(made.st_blocks) * 512 < 1 << 20, "this filesystem does not keep holes")

    let backup = try await box.runAwaiting(["backup", "--save-dir", save, "--json"])
    try #require(backup.code == 0, "backup failed: \(backup.stderr)")
    let name = try #require(try jsonObject(backup.stdout)["archive"] as? String)
    let archive = box.defaultContainer + "/world/" + name
    let archived = try FileManager.default.attributesOfItem(atPath: archive)[.size] as? Int64 ?? 0
    #expect(archived < 1 << 20, "the archive holds \(archived) bytes for 4 KiB of data and 128 MiB of holes")

    let byTar = box.path("by-tar")
    try makeDirectory(byTar)
    let extracted = try await runProgramAwaiting(try requiredProgram("tar"), ["-xf", archive, "-C", byTar])
    #expect(extracted.code == 0, "tar -xf failed: \(extracted.stderr)")
    try checkSparse(byTar + "/world.img", by: "GNU tar")
    try checkSparse(byTar + "/reserved.img", by: "GNU tar", hasData: false)

    let byPython = box.path("by-tarfile")
    let script = "import sys, tarfile\nwith tarfile.open(sys.argv[1]) as t:\n    t.extractall(sys.argv[2])"
    let python = try await runProgramAwaiting(
      try requiredProgram("python3"), ["-c", script, archive, byPython])
    #expect(python.code == 0, "tarfile failed: \(python.stderr)")
    try checkSparse(byPython + "/world.img", by: "Python's tarfile")
    try checkSparse(byPython + "/reserved.img", by: "Python's tarfile", hasData: false)

    #expect(unlink(save + "/world.img") == 0 && unlink(save + "/reserved.img") == 0)
    let restore = try await box.runAwaiting(["restore", "--latest", "--save-dir", save, "--json"])
    #expect(restore.code == 0, "restore failed: \(restore.stderr)")
    #expect(try jsonObject(restore.stdout)["verified"] as? Bool == true)
    try checkSparse(save + "/world.img", by: "savevault restore")
    try checkSparse(save + "/reserved.img", by: "savevault restore", hasData: false)
    let status = try await box.runAwaiting(["status", "--save-dir", save, "--json"])
    #expect(try jsonObject(status.stdout)["state"] as? String == "in-sync", "status: \(status.stdout)")
  }

  @Test("a file's spans: its data regions and the holes between and after them")
  func spans() {
    func spans(_ regions: [Range<Int64>], _ size: Int64) -> [String] {
      Packer.spans(regions, size: size).map { "\($0.isData ? "data" : "hole") \($0.0)" }
    }
    #expect(spans([0..<10], 10) == ["data 0..<10"])
    #expect(spans([4..<6], 10) == ["hole 0..<4", "data 4..<6", "hole 6..<10"])
    #expect(spans([0..<2, 5..<10], 10) == ["data 0..<2", "hole 2..<5", "data 5..<10"])
    #expect(spans([], 10) == ["hole 0..<10"])
    #expect(spans([], 0) == [])
  }
}
