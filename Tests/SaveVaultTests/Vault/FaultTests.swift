import Foundation
import Testing

@testable import SaveVault
@testable import SaveVaultCLI

/// Every command against a container that misbehaves in one way (errors on the Nth call,
/// timeouts, stalls, short reads, wrong bytes, partial or empty listings, permission errors,
/// a full disk, lost answers): it completes, or fails with a message naming what failed and
/// the exit code the CLI maps the error to; retries are bounded; a failed listing is never
/// taken for "no backups"; the save directory is unchanged by a failure, and no archive is
/// lost (prune aside, within its rule).
@Suite("Faults: a misbehaving container never costs a save or an archive", .tags(.small))
struct FaultTests {
  enum Command: String, CaseIterable, Sendable {
    case backup, status, restore, sync, list, verify, prune
  }

  struct Case: CustomStringConvertible, Sendable {
    var fault: FaultyContainer.Fault
    var operation: FaultyContainer.Operation
    var call = 0
    /// Exit codes a failure may have.
    var codes: Set<Int32>
    /// Whether a command that met the fault must fail (false: it may also get past it).
    var mustFail = true
    var description: String { "\(fault) on \(call == 0 ? "every" : "call \(call) of") \(operation)" }
  }

  static let unavailable = ContainerError.unavailable(container: "c", reason: "HTTP 503 after 5 tries")
  static let cases: [Case] = [
    Case(fault: .error(unavailable), operation: .probe, codes: [4]),
    Case(fault: .error(unavailable), operation: .list, codes: [4]),
    Case(fault: .error(unavailable), operation: .list, call: 2, codes: [4], mustFail: false),
    Case(fault: .timeout, operation: .list, codes: [4]),
    Case(fault: .stall(milliseconds: 30), operation: .list, codes: [], mustFail: false),
    Case(fault: .permissionDenied, operation: .list, codes: [4]),
    Case(fault: .partialListing, operation: .list, codes: [4], mustFail: false),
    Case(fault: .emptyListing, operation: .list, codes: [4], mustFail: false),
    Case(fault: .error(unavailable), operation: .read, codes: [4]),
    Case(fault: .timeout, operation: .read, call: 1, codes: [4]),
    Case(fault: .stall(milliseconds: 30), operation: .read, codes: [], mustFail: false),
    Case(fault: .shortRead, operation: .read, codes: [5]),
    Case(fault: .wrongBytes, operation: .read, codes: [5]),
    Case(fault: .permissionDenied, operation: .read, codes: [4]),
    Case(fault: .error(unavailable), operation: .upload, codes: [4]),
    Case(fault: .timeout, operation: .upload, codes: [4]),
    Case(fault: .permissionDenied, operation: .upload, codes: [4]),
    Case(fault: .error(.noSpace(container: "c")), operation: .upload, codes: [4]),
    Case(fault: .error(.alreadyExists(container: "c", name: "n")), operation: .upload, codes: [4]),
    Case(fault: .lostAnswer, operation: .upload, codes: [4]),
    Case(fault: .error(unavailable), operation: .delete, codes: [4]),
    Case(fault: .permissionDenied, operation: .delete, call: 1, codes: [4]),
    Case(fault: .error(.notFound(container: "c", name: "n")), operation: .delete, codes: [1]),
  ]

  /// Two devices' archives in one folder container: this device's two (the second agreed
  /// on), then another device's; the local save changed since.
  struct World {
    let dir = TemporaryDirectory("faults")
    var cloud: String { dir.sub("cloud") }
    var save: String { dir.sub("saves/quest/slot") }
    let vault: Vault
    let target: Target

    init() throws {
      let dir = self.dir
      let (cloud, save) = (dir.sub("cloud"), dir.sub("saves/quest/slot"))
      try makeDirectory(cloud)
      let deck = try Vault(
        context: testContext(home: dir.sub("deck"), environment: ["SAVEVAULT_DEVICE": "deck"]))
      let pc = try Vault(
        context: testContext(
          home: dir.sub("pc"), startMs: 1_795_968_100_000, environment: ["SAVEVAULT_DEVICE": "pc"]))
      let target = try deck.resolve(TargetRequest(game: "quest", saveDirectory: save, containerURL: cloud))
      try writeFile(save + "/a.sav", "deck 1")
      _ = try deck.backup(target, force: false)
      try writeFile(save + "/a.sav", "deck 2")
      _ = try deck.backup(target, force: false)
      let pcTarget = try pc.resolve(
        TargetRequest(game: "quest", saveDirectory: dir.sub("pc-save"), containerURL: cloud))
      try writeFile(dir.sub("pc-save/a.sav"), "pc 1")
      _ = try pc.backup(pcTarget, force: true)  // over deck's archives, on purpose
      try writeFile(save + "/a.sav", "deck 3, not uploaded")
      self.vault = deck
      self.target = target
    }
  }

  @Test("each command against each fault", arguments: cases)
  func commandsAgainstFault(_ test: Case) throws {
    for command in Command.allCases {
      let world = try World()
      let raw = FolderContainer(root: world.cloud)
      let before = try raw.archivesNewestFirst(game: "quest")
      let saveBefore = contentTree(world.save)
      let copiesBefore = world.vault.preRestoreCopies(game: "quest").count
      let faulty = FaultyContainer(raw, fault: test.fault, on: test.operation, call: test.call)
      var vault = world.vault
      vault.makeContainer = { _, _ in faulty }

      let what = "\(command.rawValue) with \(test)"
      var failure: (any Error)?
      do {
        try run(command, vault: vault, target: world.target)
      } catch {
        failure = error
      }
      CrashTally.faults.add(faulty.injected)

      if let failure {
        let code = ExitStatus(for: failure).code
        let message = String(describing: failure)
        #expect(test.codes.contains(code), "\(what): exit \(code) (\(message))")
        #expect(
          message.contains(world.cloud) || message.contains("packsave-"),
          "\(what): the message names neither the container nor an archive: \(message)")
        #expect(contentTree(world.save) == saveBefore, "\(what) failed but changed the save")
        if case VaultError.noBackups = failure {
          Issue.record("\(what): a failed listing read as no backups")
        }
      } else if test.mustFail && faulty.injected > 0 && command != .list
        // Some reads are only looks: prune's (does an archive hold a save?) and status's and
        // backup's (is the local save the cloud's latest, both having changed?). An archive
        // that cannot be read proves nothing: prune keeps more, and a look finds the two
        // different (a conflict), so these may rightly succeed.
        && !([.prune, .status, .backup].contains(command) && test.operation == .read)
      {
        Issue.record("\(what): met the fault and reported success")
      }
      if failure == nil, command == .restore || command == .sync, contentTree(world.save) != saveBefore {
        let copies = world.vault.preRestoreCopies(game: "quest").count
        #expect(copies == copiesBefore + 1, "\(what): the replaced save was not kept")
      }
      let after = Set(try raw.list(game: "quest").map(\.name))
      let mayGo = command == .prune ? Set(PrunePlan.deletions(before, keep: 1).map(\.name)) : []
      for archive in before where !after.contains(archive.name) && !mayGo.contains(archive.name) {
        Issue.record("\(what): '\(archive.name)' was lost")
      }
      let plain = try Vault(context: world.vault.context)
      #expect(try plain.verify(world.target, selection: .all).failures.isEmpty, "\(what): a damaged archive")
      #expect(faulty.totalCalls <= 40, "\(what): \(faulty.totalCalls) container calls (retries unbounded?)")
      if case .error(.noSpace) = test.fault, faulty.injected > 0 {
        #expect(faulty.calls(.upload) <= 1, "\(what): a full container was retried")
        #expect(faulty.calls(.delete) == 0, "\(what): a full container was answered by deleting")
      }
      let beside = (try? FileManager.default.contentsOfDirectory(atPath: world.dir.sub("saves/quest"))) ?? []
      #expect(beside.filter { $0.hasPrefix(".savevault-") } == [], "\(what): left beside the save: \(beside)")
    }
    CrashTally.faults.report("\(test)")
  }

  @Test("a listing that lacks the agreed archive and everything newer is refused, not read as less")
  func incompleteListingRefused() throws {
    let world = try World()
    let faulty = FaultyContainer(FolderContainer(root: world.cloud), fault: .emptyListing, on: .list)
    var vault = world.vault
    vault.makeContainer = { _, _ in faulty }
    #expect(throws: ContainerError.self) { try vault.status(world.target) }
    #expect(throws: ContainerError.self) { try vault.backup(world.target, force: false) }
    #expect(throws: ContainerError.self) { try vault.restore(world.target, selection: .latest) }
    #expect(throws: ContainerError.self) {
      try vault.sync(world.target, policy: .upload, resolver: NobodyToAsk())
    }
    CrashTally.faults.add(faulty.injected)
    // Removed on purpose: --force uploads the save anew.
    #expect(try vault.backup(world.target, force: true).outcome == .uploaded)
  }

  /// Runs one command as the CLI does, turning `verify`'s report of damaged archives into the
  /// error the CLI exits 5 with.
  func run(_ command: Command, vault: Vault, target: Target) throws {
    switch command {
    case .backup: _ = try vault.backup(target, force: false, resolver: ScriptedResolver(.upload))
    case .status: _ = try vault.status(target)
    case .restore: _ = try vault.restore(target, selection: .latest)
    case .sync: _ = try vault.sync(target, policy: .restore, resolver: NobodyToAsk())
    case .list: _ = try vault.list(target)
    case .verify:
      let report = try vault.verify(target, selection: .all)
      if !report.failures.isEmpty { throw VerificationFailed(names: report.failures.map(\.name)) }
    case .prune: _ = try vault.prune(target, keep: 1)
    }
  }
}
