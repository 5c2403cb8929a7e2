import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// Hard links stay links, in the archive and after a restore, through the built binary, and
/// GNU tar and Python's tarfile read them back.
@Suite("Hard links, through the binary", .tags(.medium))
struct HardLinkTests {

  @Test("hard-linked files are stored once and come back as one file with two names")
  func hardLinks() async throws {
    let box = try Sandbox("hardlink", device: "testbox")
    let save = box.path("saves/linked")
    let content = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 9) })
    try writeFile(save + "/a/slot.sav", content)
    try makeDirectory(save + "/b")
    #expect(link(save + "/a/slot.sav", save + "/b/slot-link.sav") == 0)
    try writeFile(save + "/c.sav", "c")

    let backup = try await box.runAwaiting(["backup", "--save-dir", save, "--json"])
    try #require(backup.code == 0, "backup failed: \(backup.stderr)")
    let report = try jsonObject(backup.stdout)
    #expect(integer(report["files"]) == 3, "both names are files of the save: \(backup.stdout)")
    let name = try #require(report["archive"] as? String)
    let archive = box.defaultContainer + "/linked/" + name
    let archived = try FileManager.default.attributesOfItem(atPath: archive)[.size] as? Int64 ?? 0
    #expect(archived < 300_000, "the archive holds \(archived) bytes: the data is stored twice")

    let listing =
      "import sys, tarfile\nwith tarfile.open(sys.argv[1]) as t:\n"
      + "    print([(m.name, m.type.decode(), m.linkname, m.size) for m in t if m.name.endswith('.sav')])"
    let listed = try await runProgramAwaiting(try requiredProgram("python3"), ["-c", listing, archive])
    #expect(
      listed.stdout.contains("('b/slot-link.sav', '1', 'a/slot.sav', 0)"),
      "the second name is a hard link to the first: \(listed.stdout)")

    let byTar = box.path("by-tar")
    try makeDirectory(byTar)
    let extracted = try await runProgramAwaiting(try requiredProgram("tar"), ["-xf", archive, "-C", byTar])
    #expect(extracted.code == 0, "tar -xf failed: \(extracted.stderr)")
    #expect(FileManager.default.contents(atPath: byTar + "/b/slot-link.sav") == content)

    try writeFile(save + "/c.sav", "changed")
    #expect(unlink(save + "/b/slot-link.sav") == 0)
    let restore = try await box.runAwaiting(["restore", "--latest", "--save-dir", save, "--json"])
    #expect(restore.code == 0, "restore failed: \(restore.stderr)")
    #expect(try jsonObject(restore.stdout)["verified"] as? Bool == true)
    var first = stat()
    var second = stat()
    try #require(lstat(save + "/a/slot.sav", &first) == 0 && lstat(save + "/b/slot-link.sav", &second) == 0)
    #expect(first.st_ino == second.st_ino && first.st_dev == second.st_dev, "two files, not one")
    #expect(first.st_nlink == 2)
    #expect(FileManager.default.contents(atPath: save + "/b/slot-link.sav") == content)
    let status = try await box.runAwaiting(["status", "--save-dir", save, "--json"])
    #expect(try jsonObject(status.stdout)["state"] as? String == "in-sync", "status: \(status.stdout)")
  }

  @Test("names of one file (same device and inode, more than one link) are hard links to the first")
  func hardlinkDetection() {
    func file(_ path: String, inode: UInt64, links: UInt64 = 2, mtime: Int64 = 5) -> SaveScanEntry {
      SaveScanEntry(
        path: path, kind: .file, size: 3, modifiedNs: mtime, mode: 0o644, changedNs: 7, inode: inode,
        device: 1,
        linkCount: links)
    }
    let scan = SaveScan(
      root: "/nowhere",
      entries: [
        file("a", inode: 10), file("b", inode: 11, links: 1), file("c", inode: 10), file("d", inode: 10),
        // Same inode, other facts: a filesystem whose inode numbers cannot be trusted.
        file("e", inode: 10, mtime: 6),
        SaveScanEntry(
          path: "f", kind: .directory, size: 0, modifiedNs: 5, mode: 0o755, inode: 12, linkCount: 2),
        SaveScanEntry(
          path: "f/g", kind: .directory, size: 0, modifiedNs: 5, mode: 0o755, inode: 12, linkCount: 2),
      ], skipped: [])
    #expect(scan.hardlinks() == [2: 0, 3: 0])
  }
}
