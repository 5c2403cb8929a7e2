import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// A save copied in by hand with `cp -p`, `rsync -a` or an unzip keeps each file's size and
/// modification time: the change time and the inode still tell it apart, so content decides.
@Suite("Changes that keep size and modification time, through the binary", .tags(.medium))
struct SameSizeAndTimeChangeTests {

  func state(_ box: Sandbox, _ save: String) async throws -> String? {
    let status = try await box.runAwaiting(["status", "--save-dir", save, "--json"])
    try #require(status.code == 0, "status failed: \(status.stderr)")
    return try jsonObject(status.stdout)["state"] as? String
  }

  func modifiedNs(_ path: String) throws -> Int64 {
    var info = stat()
    try #require(lstat(path, &info) == 0)
    return FileTimes.modifiedNs(info)
  }

  /// A sandbox whose save `farm` (`farm.sav` and `other`) is backed up.
  func backedUp(_ label: String, other: String) async throws -> (Sandbox, String) {
    let box = try Sandbox(label, device: "testbox")
    let save = box.path("saves/farm")
    try writeFile(save + "/farm.sav", "year 3, 40 cows")
    if other.hasSuffix("/") {
      try makeDirectory(save + "/" + other)
    } else {
      try writeFile(save + "/" + other, "x")
    }
    let backup = try await box.runAwaiting(["backup", "--save-dir", save])
    try #require(backup.code == 0, "backup failed: \(backup.stderr)")
    return (box, save)
  }

  @Test("other bytes of the same size under the old time are a local change; the same bytes are not")
  func sameSizeAndTime() async throws {
    let (box, save) = try await backedUp("cp-p", other: "other.sav")
    let time = try modifiedNs(save + "/farm.sav")

    // What `cp -p` of another copy does: new bytes, same size, the copy's (here the old) time.
    try writeFile(save + "/farm.sav", "year 1, 02 cows", modifiedNs: time)
    #expect(try modifiedNs(save + "/farm.sav") == time)
    #expect(try await state(box, save) == "local-changed")

    // What `rsync -a` does: a new file renamed over the old one, with the old time.
    try writeFile(box.path("copy.sav"), "year 1, 03 cows", modifiedNs: time)
    #expect(rename(box.path("copy.sav"), save + "/farm.sav") == 0)
    #expect(try await state(box, save) == "local-changed")

    // The agreed bytes again, under the old time or a new one: nothing changed.
    try writeFile(save + "/farm.sav", "year 3, 40 cows", modifiedNs: time)
    #expect(try await state(box, save) == "in-sync")
    try writeFile(save + "/farm.sav", "year 3, 40 cows", modifiedNs: time + 5_000_000_000)
    #expect(try await state(box, save) == "in-sync")
  }

  @Test("an agreement written before change times were recorded reads as in sync, not as a change")
  func agreementFromBefore() async throws {
    let (box, save) = try await backedUp("old-agreement", other: "empty/")

    // The files an earlier SaveVault wrote: six fields per index line, and a metadata digest
    // computed without change times and inodes (here: any other digest).
    let agreements = box.home + "/.local/state/savevault/ledger"
    let names = try FileManager.default.contentsOfDirectory(atPath: agreements)
    let index = agreements + "/" + (try #require(names.first { $0.hasSuffix(".index") }, "\(names)"))
    let record = agreements + "/" + (try #require(names.first { $0.hasSuffix(".json") }, "\(names)"))
    let lines = try String(contentsOfFile: index, encoding: .utf8).split(separator: "\n")
    let oldLines = lines.map { line -> String in
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
      return (fields.prefix(4) + fields.suffix(2)).joined(separator: "\t")
    }
    #expect(oldLines.allSatisfy { $0.split(separator: "\t", omittingEmptySubsequences: false).count == 6 })
    try (oldLines.joined(separator: "\n") + "\n").write(toFile: index, atomically: true, encoding: .utf8)
    var json = try jsonObject(try String(contentsOfFile: record, encoding: .utf8))
    json["metadataDigest"] = String(repeating: "0", count: 64)
    try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: record))

    #expect(try await state(box, save) == "in-sync")
    let again = try await box.runAwaiting(["backup", "--save-dir", save, "--json"])
    #expect(try jsonObject(again.stdout)["outcome"] as? String == "unchanged", "backup: \(again.stdout)")
  }
}
