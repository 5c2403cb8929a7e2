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

  /// A 60 GiB file with 12 KiB of data: at 4 KiB past 1 GiB (across no chunk boundary), 8 KiB
  /// across the 64 KiB boundary at 30 GiB, and its last 4 KiB.
  static let hugeSize: Int64 = 60 << 30
  static let hugeData: [(offset: Int64, count: Int)] = [
    ((1 << 30) + 4096, 4096), ((30 << 30) - 4096, 8192), ((60 << 30) - 4096, 4096),
  ]

  func makeHuge(_ path: String) throws {
    try makeDirectory((path as NSString).deletingLastPathComponent)
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    try #require(fd >= 0)
    defer { close(fd) }
    try #require(ftruncate(fd, off_t(Self.hugeSize)) == 0)
    for (index, region) in Self.hugeData.enumerated() {
      let bytes = [UInt8](repeating: UInt8(index + 1), count: region.count)
      try #require(
        bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(region.offset)) } == region.count)
    }
  }

  /// The file at `path` has the huge file's size, data and holes, and takes little room.
  func checkHuge(_ path: String) throws {
    var info = stat()
    try #require(lstat(path, &info) == 0, "'\(path)' is missing")
    #expect(Int64(info.st_size) == Self.hugeSize)
    #expect(Int64(info.st_blocks) * 512 < 1 << 20, "\(info.st_blocks) blocks: the holes were filled")
    let fd = open(path, O_RDONLY)
    try #require(fd >= 0)
    defer { close(fd) }
    for (index, region) in Self.hugeData.enumerated() {
      var bytes = [UInt8](repeating: 0, count: region.count + 2)
      let start = region.offset - 1
      let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(start)) }
      let expected = [0] + [UInt8](repeating: UInt8(index + 1), count: region.count) + [0]
      #expect(Array(bytes.prefix(got)) == Array(expected.prefix(got)), "data at \(region.offset)")
    }
  }

  /// The hash by chunks of the file at `path`, by a Python implementation of its definition.
  func independentHash(_ path: String) async throws -> String {
    let run = try await runProgramAwaiting(try requiredProgram("python3"), [fixture("chunk_hash.py"), path])
    try #require(run.code == 0, "chunk_hash.py failed: \(run.stderr)")
    return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The hash the manifest of `archive` lists for `path`.
  func listedHash(_ archive: String, _ path: String) async throws -> String? {
    let manifest = try await runProgramAwaiting(
      try requiredProgram("tar"), ["-xOf", archive, Manifest.path])
    try #require(manifest.code == 0, "tar could not read the manifest: \(manifest.stderr)")
    let entries = try #require(try jsonObject(manifest.stdout)["entries"] as? [[String: Any]])
    return entries.first { $0["path"] as? String == path }?["sha256"] as? String
  }

  @Test(
    "a 60 GiB sparse file of 12 KiB of data, in a tar of GNU tar's: verify, restore, status and backup work by its data",
    arguments: ["gnu", "pax"])
  func hugeSparseFile(format: String) async throws {
    let box = try Sandbox("sparse-huge", device: "testbox")
    let source = box.path("made-by-tar")
    try makeHuge(source + "/world.img")
    try writeFile(source + "/small.sav", "small")
    var made = stat()
    try #require(lstat(source + "/world.img", &made) == 0)
    try #require(Int64(made.st_blocks) * 512 < 1 << 20, "this filesystem does not keep holes")
    let folder = box.defaultContainer + "/world"
    try makeDirectory(folder)
    let archive = folder + "/packsave-20260101T000000.000Z-other.tar"
    let packed = try await runProgramAwaiting(
      try requiredProgram("tar"), ["--sparse", "--format=\(format)", "-cf", archive, "-C", source, "."])
    try #require(packed.code == 0, "tar --sparse failed: \(packed.stderr)")
    // The work is bounded by the data: 1 MiB of content may be hashed and written, not 60 GiB.
    let config = box.path("config.json")
    try writeFile(config, #"{"limits": {"maxBytes": 1048576}}"#)
    let save = box.path("saves/world")

    let verify = try await box.runAwaiting([
      "--config", config, "verify", "--save-dir", save, "--latest", "--json",
    ])
    #expect(verify.code == 0, "verify: \(verify.stdout) \(verify.stderr)")

    let restore = try await box.runAwaiting(["--config", config, "restore", "--latest", "--save-dir", save])
    try #require(restore.code == 0, "restore: \(restore.stderr)")
    try checkHuge(save + "/world.img")

    // A change of metadata makes status hash the file again, by its data: still in sync.
    let later = [timespec(tv_sec: 1_900_000_000, tv_nsec: 0), timespec(tv_sec: 1_900_000_000, tv_nsec: 0)]
    #expect(utimensat(AT_FDCWD, save + "/world.img", later, 0) == 0)
    let status = try await box.runAwaiting(["--config", config, "status", "--save-dir", save, "--json"])
    #expect(try jsonObject(status.stdout)["state"] as? String == "in-sync", "status: \(status.stdout)")

    let backup = try await box.runAwaiting([
      "--config", config, "backup", "--force", "--save-dir", save, "--json",
    ])
    try #require(backup.code == 0, "backup: \(backup.stderr)")
    let name = try #require(try jsonObject(backup.stdout)["archive"] as? String)
    let archived = try FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? Int64 ?? 0
    #expect(archived < 1 << 20, "the archive holds \(archived) bytes for 12 KiB of data")
    let expected = try await independentHash(source + "/world.img")
    #expect(try await listedHash(folder + "/" + name, "world.img") == expected)
    let again = try await box.runAwaiting(["--config", config, "verify", "--save-dir", save, "--latest"])
    #expect(again.code == 0, "verify of SaveVault's own archive: \(again.stderr)")
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
