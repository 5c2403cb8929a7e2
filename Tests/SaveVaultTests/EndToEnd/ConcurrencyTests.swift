import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// Several savevaults at once, through the built binary: two on one game on one machine; two
/// devices uploading at the same moment; a reader listing while a writer uploads.
@Suite("Concurrency: two at once never lose or half-show anything", .tags(.large))
struct ConcurrencyTests {
  @Test("two processes on one game: the second waits, or exits 6 naming the first; status reports busy")
  func twoProcessesOneGame() async throws {
    let rig = try CrashRig(.folder)
    try rig.writeState(1)
    // Within the holder's 8 s: the impatient backup and status run while it holds the lock.
    let (holder, patient) = try withinWindow {
      let holder = try rig.start(["backup"], failpoints: "backup.packed=sleep:8000")
      #expect(eventually { !rig.containerTemporaries().isEmpty }, "the first backup never started")
      let impatient = try rig.run(["backup"], ["SAVEVAULT_LOCK_WAIT": "0.2"])
      #expect(impatient.code == 6, "exit \(impatient.code): \(impatient.stderr)")
      #expect(impatient.stderr.contains("savevault backup"), "names the holder: \(impatient.stderr)")
      let status = try rig.run(["status", "--json"])
      #expect(status.code == 0, "status: \(status.stderr)")
      #expect(try jsonObject(status.stdout)["busy"] as? Bool == true)
      let patient = try rig.start(["restore", "--latest"], ["SAVEVAULT_LOCK_WAIT": "30"])
      return (holder, patient)
    }
    #expect(await holder.waitAwaiting() == 0, "stderr: \(holder.stderr)")
    #expect(await patient.waitAwaiting() == 0, "the waiting restore: \(patient.stderr)")
    #expect(try rig.containerArchives().count == 1)
  }

  /// Two devices sharing a folder container, both agreed on one archive: deck's `run`, desk's
  /// `deskRun`, and the container's archives before their next uploads.
  struct TwoDevices {
    let deck: CrashRig
    let desk: CrashRig
    let deskSave: String

    init() async throws {
      deck = try CrashRig(.folder, device: "deck")
      desk = try CrashRig(.folder, device: "desk", sharing: deck)
      deskSave = deck.dir.sub("desk-saves/quest")
      try deck.writeState(1, mebibytes: 1)
      try #require(try await deck.runAwaiting(["backup"]).code == 0)
      try #require(try await deskRun(["sync"]).waitAwaiting() == 0, "desk's first sync")
      try deck.writeState(2, mebibytes: 1)
      try writeFile(deskSave + "/progress.txt", "desk's own progress\n")
    }

    func deskRun(_ arguments: [String], failpoints: String? = nil) throws -> SpawnedProgram {
      try SpawnedProgram(
        savevaultBinary, arguments + ["--save-dir", deskSave, "--container", desk.containerURL],
        environment: desk.environment(failpoints: failpoints),
        output: deck.dir.sub("desk-\(arguments[0])-\(UUID().uuidString.prefix(8))"))
    }

    /// Each device's next `sync --on-conflict fail` must ask (exit 3, conflict): their saves
    /// were made apart. The one that finished its upload second saw the other's archive in its
    /// listing after the upload and kept its old agreement; the one that finished first sees
    /// that the latest archive was made without its own. Nothing changes in the container.
    func expectBothAsk() async throws {
      let before = try deck.containerArchives()
      let deckNext = try await deck.runAwaiting(["sync", "--json", "--on-conflict", "fail"])
      #expect(deckNext.code == 3, "deck's next sync must ask: \(deckNext.stdout) \(deckNext.stderr)")
      #expect(try jsonObject(deckNext.stdout)["state"] as? String == "conflict")
      let deskNext = try deskRun(["sync", "--json", "--on-conflict", "fail"])
      #expect(
        await deskNext.waitAwaiting() == 3, "desk's next sync must ask: \(deskNext.stdout) \(deskNext.stderr)"
      )
      #expect(try jsonObject(deskNext.stdout)["state"] as? String == "conflict")
      #expect(try deck.containerArchives() == before, "asking changed nothing")
    }
  }

  @Test("two devices upload at the same moment: both archives kept; the next run on either asks")
  func twoDevicesAtOnce() async throws {
    let two = try await TwoDevices()
    let before = try two.deck.containerArchives()
    // Both stored before either looks again, as when two uploads finish together (wide
    // windows: on a loaded machine the second process may start seconds after the first).
    let hold = "progress.packing=sleep:3000@1;backup.stored=sleep:4000"
    let first = try two.deck.start(["backup"], failpoints: hold)
    let second = try two.deskRun(["backup"], failpoints: hold)
    #expect(await first.waitAwaiting() == 0, "deck: \(first.stderr)")
    #expect(await second.waitAwaiting() == 0, "desk: \(second.stderr)")
    let after = try two.deck.containerArchives()
    #expect(after.count == before.count + 2, "both archives kept: \(after)")
    try await two.expectBothAsk()
  }

  @Test(
    "a device whose upload ended first is asked when the other's, made without it, is the latest (no restore over its save)"
  )
  func firstFinisherAsks() async throws {
    let two = try await TwoDevices()
    // Within desk's 6 s pause: deck's whole backup.
    let desk = try withinWindow {
      // Desk lists, then waits before naming and storing its archive; deck backs up whole meanwhile.
      let desk = try two.deskRun(["backup", "--verbose"], failpoints: "backup.listed=sleep:6000")
      // Its last word before the pause says why it uploads.
      try #require(eventually { desk.stderr.contains("uploading:") }, "desk never listed: \(desk.stderr)")
      let deck = try two.deck.run(["backup"])
      #expect(deck.code == 0, "deck: \(deck.stderr)")
      return desk
    }
    #expect(await desk.waitAwaiting() == 0, "desk: \(desk.stderr)")
    let archives = try two.deck.containerArchives().compactMap { ArchiveName(parsing: $0) }
    let latest = try #require(archives.max { $0.createdMs < $1.createdMs })
    #expect(latest.device == "desk", "desk's archive, named after deck's, is the latest: \(archives)")
    try await two.expectBothAsk()
  }

  @Test(
    "a reader listing while a writer uploads never sees a partial archive", arguments: CrashRig.Kind.allCases)
  func readerDuringUpload(kind: CrashRig.Kind) async throws {
    let rig = try CrashRig(kind)
    try await rig.backUp(1)
    let before = try rig.containerArchives()
    try rig.writeState(2)
    let hold = kind == .folder ? "progress.packing=sleep:2000@2" : "s3.part=sleep:2000@1"
    // While the writer uploads (its 2 s pauses): the reader lists and verifies.
    let (writer, seen) = try withinWindow {
      let writer = try rig.start(["backup"], failpoints: hold)
      var seen: [Set<String>] = []
      while !writer.hasEnded {
        let list = try rig.run(["list", "--json"])
        #expect(list.code == 0, "list: \(list.stderr)")
        let archives = try jsonObject(list.stdout)["archives"] as? [[String: Any]] ?? []
        seen.append(Set(archives.compactMap { $0["name"] as? String }))
        let verify = try rig.run(["verify", "--all"])
        #expect(verify.code == 0, "verify while uploading: \(verify.stdout) \(verify.stderr)")
      }
      return (writer, seen)
    }
    #expect(await writer.waitAwaiting() == 0, "writer: \(writer.stderr)")
    let final = Set(try rig.containerArchives())
    #expect(final.count == before.count + 1)
    // Every listing showed the old archives, or the old ones and the whole new one.
    for names in seen { #expect(names == Set(before) || names == final, "the reader saw \(names.sorted())") }
    #expect(seen.contains(Set(before)), "the reader never looked while the upload ran")
  }
}
