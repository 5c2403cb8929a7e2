import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// Ways a player's ordinary world lost saves: a drive not mounted at launch, a policy applied
/// to a missing save, a rollback, two folders with one name, nested games, a container inside
/// the save. Each through the built binary, with no terminal (a launch under Steam).
@Suite("The player's world: saves that must not be lost", .tags(.medium))
struct PlayerWorldTests {
  /// deck backs up a 100-hour save; pc syncs it down. Returns the world and deck's save folder.
  func deckAndPcAgree(_ label: String) async throws -> (Sandbox, deck: String, pc: String) {
    let world = try Sandbox.world(label)
    let deck = world.path("sd/Game")
    let pc = world.path("pc/Game")
    try writeFile(deck + "/slot.sav", "100 hours")
    try await world.on("deck").ok(["backup", "--save-dir", deck])
    try await world.on("pc").ok(["sync", "--save-dir", pc])
    try #require(text(pc + "/slot.sav") == "100 hours")
    return (world, deck, pc)
  }

  @Test(
    "an unmounted save during a wrapped game: the fresh save is not uploaded, the other device keeps its own",
    arguments: ["prompt", "upload", "skip"])
  func unmountedSaveDuringWrap(policy: String) async throws {
    let (world, deck, pc) = try await deckAndPcAgree("unmounted-\(policy)")
    try FileManager.default.moveItem(atPath: deck, toPath: world.path("sd/Game.unmounted"))
    let before = world.archives("Game")
    // The game starts on an empty folder and writes a new game's save.
    let wrap = try await world.on("deck").runAwaiting(
      [
        "wrap", "--save-dir", deck, "--on-conflict", policy, "--", "/bin/sh", "-c",
        "mkdir -p '\(deck)' && echo 'new game, 0 hours' > '\(deck)/slot.sav'",
      ])
    #expect(wrap.code == 0, "wrap exits with the game's code: \(wrap.stderr)")
    #expect(text(deck + "/slot.sav") == "new game, 0 hours\n")
    #expect(world.archives("Game") == before, "the new game's save was uploaded: \(wrap.stderr)")
    #expect(try await world.on("deck").state(["--save-dir", deck]) == "conflict")
    // A later plain sync, another run: still asked, never settled by itself.
    let later = try await world.on("deck").runAwaiting(["sync", "--save-dir", deck, "--on-conflict", policy])
    #expect(later.code == (policy == "skip" ? 0 : 3), "exit \(later.code): \(later.stdout) \(later.stderr)")
    #expect(world.archives("Game") == before)
    // The other device still has nothing to take.
    let other = try await world.on("pc").ok(["sync", "--save-dir", pc])
    #expect(other.stdout.contains("in-sync"), "\(other.stdout)")
    #expect(text(pc + "/slot.sav") == "100 hours")
  }

  @Test(
    "an unanswered deletion holds across runs: the save coming back different is asked about, not uploaded")
  func deletionHoldsAcrossRuns() async throws {
    let (world, deck, _) = try await deckAndPcAgree("deletion-runs")
    try FileManager.default.moveItem(atPath: deck, toPath: world.path("sd/Game.unmounted"))
    #expect(try await world.on("deck").runAwaiting(["sync", "--save-dir", deck]).code == 3)
    try writeFile(deck + "/slot.sav", "something else")
    let before = world.archives("Game")
    #expect(try await world.on("deck").runAwaiting(["sync", "--save-dir", deck]).code == 3)
    #expect(
      try await world.on("deck").runAwaiting(["backup", "--save-dir", deck]).code == 3, "backup asks too")
    #expect(world.archives("Game") == before)
    // The player puts the real save back (the card is mounted): identical, so in sync again.
    try FileManager.default.removeItem(atPath: deck)
    try FileManager.default.moveItem(atPath: world.path("sd/Game.unmounted"), toPath: deck)
    #expect(try await world.on("deck").state(["--save-dir", deck]) == "in-sync")
    try await world.on("deck").ok(["sync", "--save-dir", deck])
    try writeFile(deck + "/slot.sav", "101 hours")
    let sync = try await world.on("deck").ok(["sync", "--save-dir", deck])
    #expect(sync.stdout.contains("uploaded"), "a change after the answer is an upload again: \(sync.stdout)")
  }

  @Test("no policy uploads a missing save: the cloud keeps the last good one, and prune keeps it too")
  func policyNeverUploadsMissingSave() async throws {
    let (world, deck, pc) = try await deckAndPcAgree("policy-missing")
    try FileManager.default.removeItem(atPath: deck)
    let before = world.archives("Game")
    for policy in ["upload", "newer"] {
      let sync = try await world.on("deck").runAwaiting(["sync", "--save-dir", deck, "--on-conflict", policy])
      #expect(sync.code == (policy == "upload" ? 3 : 0), "\(policy): exit \(sync.code): \(sync.stderr)")
      #expect(world.archives("Game") == before, "\(policy) uploaded an empty save")
    }
    // newer restores the cloud's save into the missing folder; the player deletes it again and
    // makes the deletion the latest on purpose, twice.
    #expect(text(deck + "/slot.sav") == "100 hours")
    try FileManager.default.removeItem(atPath: deck + "/slot.sav")
    try await world.on("deck").ok(["backup", "--save-dir", deck, "--force"])
    try await world.on("deck").ok(["backup", "--save-dir", deck, "--force"])
    let pruned = try jsonObject(
      try await world.on("pc").ok(["prune", "--save-dir", pc, "--keep", "1", "--json"]).stdout)
    #expect(
      world.archives("Game").contains(before[0]),
      "prune deleted the last archive that holds a save: \(pruned)")
    #expect((pruned["deleted"] as? [String])?.count == 1, "\(pruned)")
  }

  @Test("a rollback sticks: the older archive restored on purpose is uploaded by the next sync")
  func rollbackSticks() async throws {
    let world = try Sandbox.world("rollback")
    let save = world.path("saves/Game")
    for version in ["v1", "v2", "v3 corrupt"] {
      try writeFile(save + "/slot.sav", version)
      try await world.on("deck").ok(["backup", "--save-dir", save])
    }
    let archives = world.archives("Game")
    try #require(archives.count == 3)
    let restore = try await world.on("deck").ok(["restore", "--save-dir", save, "--archive", archives[1]])
    #expect(restore.stdout.contains("next sync"), "the restore says what happens next: \(restore.stdout)")
    let json = try await world.on("deck").status(["--save-dir", save])
    #expect(json["state"] as? String == "local-changed")
    let sync = try await world.on("deck").ok(["sync", "--save-dir", save])
    #expect(sync.stdout.contains("uploaded"), "\(sync.stdout)")
    #expect(text(save + "/slot.sav") == "v2", "the newer corrupt save came back")
    let latest = try #require(world.archives("Game").last)
    #expect(try await fileInPreRestoreCopy(world.cloud + "/Game/" + latest, "slot.sav") == "v2")
    #expect(try await world.on("deck").state(["--save-dir", save]) == "in-sync")
  }

  @Test("two folders with the same last name are not one game: refused with a hint, fine with --game")
  func twoFoldersOneName() async throws {
    let world = try Sandbox.world("same-name")
    let stardew = world.path("Stardew/Saves")
    let celeste = world.path("Celeste/Saves")
    try writeFile(stardew + "/farm.xml", "farm")
    try writeFile(celeste + "/slot.sav", "slot")
    try await world.on("deck").ok(["backup", "--save-dir", stardew])
    for command in [["backup"], ["sync"], ["status"], ["restore", "--latest"]] {
      let result = try await world.on("deck").runAwaiting(command + ["--save-dir", celeste])
      #expect(result.code == 2, "\(command): exit \(result.code)")
      #expect(result.stderr.contains("--game") && result.stderr.contains(stardew), "\(result.stderr)")
    }
    #expect(world.archives("Saves").count == 1)
    // Reading the container only is no matter of where the save lies.
    try await world.on("deck").ok(["list", "--save-dir", celeste])
    try await world.on("deck").ok(["backup", "--save-dir", celeste, "--game", "Celeste"])
    #expect(world.archives("Celeste").count == 1)
    // Another device whose folder of that name is its own first: a name is bound per device.
    try writeFile(world.path("pc/Celeste/Saves/slot.sav"), "pc slot")
    #expect(
      try await world.on("pc").runAwaiting(["status", "--save-dir", world.path("pc/Celeste/Saves")]).code == 0
    )
  }

  @Test("nested or shared save folders are refused by add, named by doctor, and never restored over")
  func nestedGames() async throws {
    let world = try Sandbox.world("nested")
    let outer = world.path("saves/Outer")
    let inner = outer + "/Inner"
    try writeFile(inner + "/slot.sav", "inner")
    try await world.on("deck").ok(["add", "Outer", "--save-dir", outer])
    for (name, folder) in [("Inner", inner), ("Same", outer), ("Parent", world.path("saves"))] {
      let add = try await world.on("deck").runAwaiting(["add", name, "--save-dir", folder])
      #expect(add.code == 2, "\(name): exit \(add.code)")
      #expect(add.stderr.contains("Outer"), "\(add.stderr)")
    }
    // A config file written by hand before this check: doctor says so, commands refuse.
    let config = world.on("deck").home + "/.config/savevault/config.json"
    try writeFile(
      config, #"{"games": {"Outer": {"saveDir": "\#(outer)"}, "Inner": {"saveDir": "\#(inner)"}}}"#)
    let doctor = try await world.on("deck").runAwaiting(["doctor"])
    #expect(doctor.code == 2 && doctor.stdout.contains("overlaps"), "\(doctor.stdout)")
    for game in ["Outer", "Inner"] {
      #expect(try await world.on("deck").runAwaiting(["sync", "--game", game]).code == 2)
    }
    #expect(world.archives("Outer").isEmpty && world.archives("Inner").isEmpty)
  }

  @Test(
    "a container inside the save, or a save holding SaveVault's folders, is refused naming both",
    arguments: ["backup", "sync", "wrap", "add", "doctor", "restore"])
  func containerInsideSave(command: String) async throws {
    let world = try Sandbox.world("inside-\(command)")
    let save = world.path("Game")
    try writeFile(save + "/slot.sav", "slot")
    let inside = save + "/cloud"
    try makeDirectory(inside)
    func arguments(_ save: String, _ container: String?) -> [String] {
      let target = ["--save-dir", save] + (container.map { ["--container", $0] } ?? [])
      switch command {
      case "wrap": return ["wrap"] + target + ["--", "/bin/true"]
      case "add": return ["add", "Game"] + target
      case "restore": return ["restore", "--latest"] + target
      default: return [command] + target
      }
    }
    let result = try await world.on("deck").runAwaiting(arguments(save, inside))
    // wrap never blocks play: it refuses to sync, says why, and runs the game.
    #expect(
      result.code == (command == "wrap" ? 0 : 2), "exit \(result.code): \(result.stdout) \(result.stderr)")
    #expect((result.stdout + result.stderr).contains(inside), "\(result.stdout) \(result.stderr)")
    if command == "wrap" {
      #expect(result.stderr.contains("running the game without syncing"), "\(result.stderr)")
    }
    #expect(
      world.archives("Game").isEmpty
        && ((try? FileManager.default.contentsOfDirectory(atPath: inside)) ?? []).isEmpty)
    // The whole home as a save directory holds SaveVault's own folders.
    let home = try await world.on("deck").runAwaiting(arguments(world.on("deck").home, nil))
    #expect(home.code == (command == "wrap" ? 0 : 2), "exit \(home.code): \(home.stderr)")
    #expect((home.stdout + home.stderr).contains(".local/share/savevault"), "\(home.stdout) \(home.stderr)")
  }

  @Test("a symlink to the container is the same container: no new device, no conflict")
  func containerThroughSymlink() async throws {
    let world = try Sandbox.world("symlink-container")
    let save = world.path("saves/Game")
    try writeFile(save + "/slot.sav", "slot")
    try await world.on("deck").ok(["backup", "--save-dir", save])
    let link = world.path("linked-cloud")
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: world.cloud)
    let status = try await world.on("deck").status(["--save-dir", save, "--container", link])
    #expect(status["state"] as? String == "in-sync")
    #expect(status["ledger"] is [String: Any], "the agreement is not known through the link: \(status)")
  }

  @Test("a bind mount of the container is the same container: the agreement follows it")
  func containerThroughBindMount() async throws {
    try #require(getuid() == 0, "a bind mount needs root (CI runs as root)")
    let world = try Sandbox.world("bind-container")
    let save = world.path("saves/Game")
    try writeFile(save + "/slot.sav", "slot")
    try await world.on("deck").ok(["backup", "--save-dir", save])
    let mounted = world.path("nas")
    try makeDirectory(mounted)
    try #require(try await runProgramAwaiting("/bin/mount", ["--bind", world.cloud, mounted]).code == 0)
    defer { unmountLazily(mounted) }
    let status = try await world.on("deck").status(["--save-dir", save, "--container", mounted])
    #expect(status["state"] as? String == "in-sync")
    #expect(status["ledger"] is [String: Any], "the agreement is not known through the mount: \(status)")
  }

  @Test(
    "drive and network both gone at launch: the new game's save is kept on the device, never uploaded unasked"
  )
  func unmountedAndOffline() async throws {
    let (world, deck, pc) = try await deckAndPcAgree("unmounted-offline")
    try FileManager.default.moveItem(atPath: deck, toPath: world.path("sd/Game.unmounted"))
    try FileManager.default.moveItem(atPath: world.cloud, toPath: world.path("cloud.away"))
    let wrap = try await world.on("deck").runAwaiting(
      [
        "wrap", "--save-dir", deck, "--", "/bin/sh", "-c",
        "mkdir -p '\(deck)' && echo 'new game' > '\(deck)/slot.sav'",
      ])
    #expect(wrap.code == 0, "\(wrap.stderr)")
    #expect(wrap.stderr.contains("missing or empty"), "wrap says it noted the missing save: \(wrap.stderr)")
    try FileManager.default.moveItem(atPath: world.path("cloud.away"), toPath: world.cloud)
    let before = world.archives("Game")
    let sync = try await world.on("deck").runAwaiting(["sync", "--save-dir", deck, "--on-conflict", "upload"])
    #expect(sync.code == 3, "exit \(sync.code): \(sync.stdout) \(sync.stderr)")
    #expect(world.archives("Game") == before, "the new game's save (or its pending archive) was uploaded")
    try await world.on("pc").ok(["sync", "--save-dir", pc])
    #expect(text(pc + "/slot.sav") == "100 hours")
  }

  @Test(
    "a save agreed empty, played offline, then drive and network gone at launch: the new game's save is still asked about"
  )
  func unmountedAndOfflineAfterEmptyAgreement() async throws {
    let world = try Sandbox.world("unmounted-offline-empty")
    let deck = world.path("sd/Game")
    try makeDirectory(deck)
    // The player backed up before the game made a save: the cloud holds an empty one.
    try await world.on("deck").ok(["backup", "--save-dir", deck, "--force"])
    try FileManager.default.moveItem(atPath: world.cloud, toPath: world.path("cloud.away"))
    // Offline play: kept as a pending archive.
    try await world.on("deck").ok([
      "wrap", "--save-dir", deck, "--", "/bin/sh", "-c", "echo '10 hours' > '\(deck)/slot.sav'",
    ])
    // The drive unmounted at the next launch, still offline: the game starts a new save.
    try FileManager.default.moveItem(atPath: deck, toPath: world.path("sd/Game.unmounted"))
    let wrap = try await world.on("deck").runAwaiting(
      [
        "wrap", "--save-dir", deck, "--", "/bin/sh", "-c",
        "mkdir -p '\(deck)' && echo 'new game' > '\(deck)/slot.sav'",
      ])
    #expect(wrap.code == 0, "\(wrap.stderr)")
    #expect(wrap.stderr.contains("missing or empty"), "wrap says it noted the missing save: \(wrap.stderr)")
    // The drive is mounted again over the new game's folder; the network is back.
    try FileManager.default.moveItem(atPath: deck, toPath: world.path("sd/Game.hidden"))
    try FileManager.default.moveItem(atPath: world.path("sd/Game.unmounted"), toPath: deck)
    try FileManager.default.moveItem(atPath: world.path("cloud.away"), toPath: world.cloud)
    let before = world.archives("Game")
    let sync = try await world.on("deck").runAwaiting(["sync", "--save-dir", deck, "--on-conflict", "upload"])
    #expect(sync.code == 3, "exit \(sync.code): \(sync.stdout) \(sync.stderr)")
    #expect(world.archives("Game") == before, "the new game's save (or its pending archive) was uploaded")
    #expect(text(deck + "/slot.sav") == "10 hours\n")
  }

  @Test("a game pointed at a new folder is not a deletion: the new folder gets the cloud's save")
  func gameMovedToNewFolder() async throws {
    let world = try Sandbox.world("moved")
    let old = world.path("old/Game")
    let new = world.path("new/Game")
    try writeFile(old + "/slot.sav", "slot")
    try await world.on("deck").ok(["add", "Game", "--save-dir", old])
    try await world.on("deck").ok(["backup", "--game", "Game"])
    try await world.on("deck").ok(["add", "Game", "--save-dir", new, "--replace"])
    let sync = try await world.on("deck").ok(["sync", "--game", "Game"])
    #expect(!sync.stdout.contains("deleted"), "\(sync.stdout)")
    #expect(text(new + "/slot.sav") == "slot")
    #expect(text(old + "/slot.sav") == "slot", "the old folder is left alone")
  }
}

/// The question at a real pseudo-terminal (util-linux `script`) says why it is asked, and
/// offers only what may be chosen.
@Suite("The player's world: what the conflict question offers", .tags(.medium))
struct ConflictQuestionTests {
  /// Runs `sync` for `save` as `device` at a terminal, typing each of `answers` once the
  /// question (or the request to answer again) is on the screen. Returns the screen and code.
  func syncAtTerminal(_ world: Sandbox, _ device: String, _ save: String, answers: [String]) async throws
    -> (screen: String, code: Int32)
  {
    let session = try world.on(device).startAtTerminal(["sync", "--save-dir", save])
    var seen = 0
    for answer in answers {
      seen += 1
      let marker = seen == 1 ? "[s] " : "Please answer"
      #expect(
        await session.waitForOutputAwaiting(containing: marker, timeout: 30), "no question: \(session.output)"
      )
      session.type(answer + "\n")
    }
    session.closeInput()
    let result = try #require(
      await session.waitAwaiting(timeout: 30), "sync did not finish: \(session.output)")
    return (result.stdout, result.code)
  }

  @Test("a missing save is asked about with restore or skip only; 'u' is not taken")
  func deletionOffersNoUpload() async throws {
    let world = try Sandbox.world("question-deleted")
    let save = world.path("saves/Game")
    try writeFile(save + "/slot.sav", "100 hours")
    try await world.on("deck").ok(["backup", "--save-dir", save])
    try FileManager.default.removeItem(atPath: save)
    let before = world.archives("Game")
    let (screen, code) = try await syncAtTerminal(world, "deck", save, answers: ["u", "r"])
    #expect(screen.contains("missing or empty"), "\(screen)")
    #expect(screen.contains("Restore cloud [r], or skip [s]?") && !screen.contains("[u]"), "\(screen)")
    #expect(screen.contains("backup --force"), "says how to make the deletion the latest: \(screen)")
    #expect(code == 0, "exit \(code): \(screen)")
    #expect(text(save + "/slot.sav") == "100 hours")
    #expect(world.archives("Game") == before, "nothing uploaded")
  }

  @Test("a device that never agreed is told so, not that both sides changed since they agreed")
  func noAgreementSaysSo() async throws {
    let world = try Sandbox.world("question-new-device")
    try writeFile(world.path("pc/Game/slot.sav"), "pc")
    try await world.on("pc").ok(["backup", "--save-dir", world.path("pc/Game")])
    let deck = world.path("deck/Game")
    try writeFile(deck + "/slot.sav", "deck")
    let (screen, code) = try await syncAtTerminal(world, "deck", deck, answers: ["s"])
    #expect(screen.contains("has not agreed with the cloud about this save folder yet"), "\(screen)")
    #expect(!screen.contains("since they last agreed"), "\(screen)")
    #expect(code == 0, "exit \(code): \(screen)")
  }
}
