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

    /// `deskName`: the second device's name ("deck" too: two devices of one name).
    init(deskName: String = "desk") async throws {
      deck = try CrashRig(.folder, device: "deck")
      desk = try CrashRig(.folder, device: deskName, sharing: deck, home: "desk")
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

    /// The next `sync --on-conflict fail` of the device whose archive is not the latest must
    /// ask (exit 3, conflict): the latest does not descend from its save. The device whose
    /// archive is the latest is in sync (its save is the latest). Nothing changes in the
    /// container.
    func expectTheOtherAsks(latestIsDesk: Bool) async throws {
      let before = try deck.containerArchives()
      let deckNext = try await deck.runAwaiting(["sync", "--json", "--on-conflict", "fail"])
      #expect(
        deckNext.code == (latestIsDesk ? 3 : 0), "deck's next sync: \(deckNext.stdout) \(deckNext.stderr)")
      #expect(try jsonObject(deckNext.stdout)["state"] as? String == (latestIsDesk ? "conflict" : "in-sync"))
      let deskNext = try deskRun(["sync", "--json", "--on-conflict", "fail"])
      #expect(
        await deskNext.waitAwaiting() == (latestIsDesk ? 0 : 3),
        "desk's next sync: \(deskNext.stdout) \(deskNext.stderr)")
      #expect(try jsonObject(deskNext.stdout)["state"] as? String == (latestIsDesk ? "in-sync" : "conflict"))
      #expect(try deck.containerArchives() == before, "asking changed nothing")
    }

    /// Desk lists, then waits before naming and storing its archive while deck backs up whole:
    /// two uploads made apart, desk's named after deck's and so the latest.
    func uploadApartDeskLatest() async throws {
      // Within desk's 6 s pause: deck's whole backup.
      let desk = try withinWindow {
        let desk = try deskRun(["backup", "--verbose"], failpoints: "backup.listed=sleep:6000")
        // Its last word before the pause says why it uploads.
        try #require(eventually { desk.stderr.contains("uploading:") }, "desk never listed: \(desk.stderr)")
        let deck = try deck.run(["backup"])
        #expect(deck.code == 0, "deck: \(deck.stderr)")
        return desk
      }
      #expect(await desk.waitAwaiting() == 0, "desk: \(desk.stderr)")
    }
  }

  @Test(
    "two devices upload at the same moment: both archives kept; the device whose archive is not the latest asks"
  )
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
    let latest = try #require(
      after.compactMap { ArchiveName(parsing: $0) }.max { $0.createdMs < $1.createdMs })
    try await two.expectTheOtherAsks(latestIsDesk: latest.device == "desk")
  }

  @Test(
    "a device whose upload ended first is asked when the other's, which does not descend from it, is the latest (no restore over its save)"
  )
  func firstFinisherAsks() async throws {
    let two = try await TwoDevices()
    try await two.uploadApartDeskLatest()
    let archives = try two.deck.containerArchives().compactMap { ArchiveName(parsing: $0) }
    let latest = try #require(archives.max { $0.createdMs < $1.createdMs })
    #expect(latest.device == "desk", "desk's archive, named after deck's, is the latest: \(archives)")
    try await two.expectTheOtherAsks(latestIsDesk: true)
  }

  @Test(
    "a device whose save was made apart stays asked however many uploads follow (beyond the 64 names an archive keeps)"
  )
  func longAfterARace() async throws {
    let two = try await TwoDevices()
    try await two.uploadApartDeskLatest()
    for round in 1...(ArchiveHeader.ancestryLimit + 2) {
      try writeFile(two.deskSave + "/progress.txt", "desk round \(round)\n")
      let backup = try two.deskRun(["backup"])
      #expect(await backup.waitAwaiting() == 0, "desk's backup \(round): \(backup.stderr)")
    }
    let deck = try await two.deck.runAwaiting(["sync", "--json", "--on-conflict", "fail"])
    #expect(deck.code == 3, "deck must still be asked, not restored over: \(deck.stdout) \(deck.stderr)")
    #expect(try jsonObject(deck.stdout)["state"] as? String == "conflict")
  }

  @Test(
    "an upload the player chose over the cloud's latest descends from it: the device that made that latest restores it unasked"
  )
  func choiceTakesTheLatest() async throws {
    let two = try await TwoDevices()
    #expect(try await two.deck.runAwaiting(["backup"]).code == 0)
    // Desk changed its save too: a conflict, which its player settles by uploading.
    let desk = try two.deskRun(["sync", "--json", "--on-conflict", "upload"])
    #expect(await desk.waitAwaiting() == 0, "desk: \(desk.stdout) \(desk.stderr)")
    #expect(try jsonObject(desk.stdout)["action"] as? String == "uploaded")
    let deck = try await two.deck.runAwaiting(["sync", "--json", "--on-conflict", "fail"])
    #expect(deck.code == 0, "deck's save is what the player chose over: \(deck.stdout) \(deck.stderr)")
    #expect(try jsonObject(deck.stdout)["action"] as? String == "restored")
    #expect(
      try String(contentsOfFile: two.deck.save + "/progress.txt", encoding: .utf8) == "desk's own progress\n")
  }

  @Test(
    "after two uploads made apart, the latest's device uploads again unasked, and the other is still asked: the new archive descends from the latest, not from the other's save",
    arguments: ["desk", "deck"])
  func laterUploadHidesNoRace(deskName: String) async throws {
    let two = try await TwoDevices(deskName: deskName)
    try await two.uploadApartDeskLatest()
    try writeFile(two.deskSave + "/progress.txt", "desk played on\n")
    let again = try two.deskRun(["backup", "--json"])
    #expect(
      await again.waitAwaiting() == 0,
      "desk's next backup uploads (its save is the latest): \(again.stdout) \(again.stderr)")
    #expect(try jsonObject(again.stdout)["outcome"] as? String == "uploaded")
    // Deck's save, uploaded at the same moment as desk's first, is in no ancestry of the latest.
    let before = try two.deck.containerArchives()
    let deckNext = try await two.deck.runAwaiting(["sync", "--json", "--on-conflict", "fail"])
    #expect(
      deckNext.code == 3, "deck must be asked, not restored over: \(deckNext.stdout) \(deckNext.stderr)")
    #expect(try jsonObject(deckNext.stdout)["state"] as? String == "conflict")
    #expect(try two.deck.containerArchives() == before, "asking changed nothing")
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
