import Foundation

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// A device whose Wine prefix is on a small disk of its own (a full SD card, as in
/// `DiskFullTests`: a 1 MiB tmpfs, filled to its last byte), in a scenario of registry. Some of
/// its restores, syncs and wraps meet the disk full: full from the start, or filling as the
/// restore has its journal written (its merge of the keys held back by a `sleep` at
/// `restore.registry-merging`, so the disk is full when it writes the merged `user.reg`). What
/// SaveVault promises: such a restore refuses before anything changes (exit 1, the save as it
/// was, no restore left half-done) or completes; a `wrap` never starts its game on a save
/// restored halfway; and nothing is lost. The disk has room again after the command (at the
/// game's start, for a `wrap`), so that Wine can write the prefix's file.
extension SimulatedDevice {
  /// Mounts a 1 MiB tmpfs on `path` (made first), which holds the prefix from then on.
  func mountSmallDisk(_ path: String) throws {
    SimulatedPath.makeFolders(path)
    let mount = try runProgram("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", path])
    guard mount.code == 0 else {
      throw SimulationFailure(
        invariant: "harness", detail: "mount -t tmpfs on \(path) failed: \(mount.stderr)")
    }
    smallDisk = path
  }

  /// Fills the small disk to its last byte; returns the filler's path.
  func fillSmallDisk() -> String? { smallDisk.flatMap(Self.fill) }

  /// Fills the disk mounted at `disk` to its last byte; returns the filler's path.
  static func fill(_ disk: String) -> String? {
    let filler = disk + "/filler"
    let fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    let chunk = [UInt8](repeating: 0xee, count: 64 << 10)
    var size = chunk.count
    while size > 0 {
      let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress, size) }
      if written < 0 { size /= 2 }  // ENOSPC: smaller pieces, down to the last byte
    }
    return filler
  }
}

/// Fills a device's small disk once the restore of a running command has written its journal
/// (a restore of several locations writes it before its first swap): from a thread of its own,
/// while the command's merge of the keys sleeps at `restore.registry-merging`.
final class DiskFiller: @unchecked Sendable {
  private let lock = NSLock()
  private var isStopped = false
  private var filler: String?
  private let done = DispatchSemaphore(value: 0)

  init(disk: String, journal: String) {
    let thread = Thread { [self] in
      defer { done.signal() }
      while !lock.withLock({ isStopped }) {
        if FileManager.default.fileExists(atPath: journal) {
          let path = SimulatedDevice.fill(disk)
          lock.withLock { filler = path }
          return
        }
        usleep(1_000)
      }
    }
    thread.start()
  }

  /// Stops watching; returns the filler's path if it filled the disk.
  func stop() -> String? {
    lock.withLock { isStopped = true }
    done.wait()
    return lock.withLock { filler }
  }
}

extension SimulationScenario {
  /// Unmounts the devices' small disks (at the end of the scenario, passed or failed).
  func unmountSmallDisks() {
    for device in devices {
      guard let disk = device.smallDisk else { continue }
      if (try? runProgram("/bin/umount", [disk]))?.code != 0 {
        _ = try? runProgram("/bin/umount", ["-l", disk])
      }
      device.smallDisk = nil
    }
  }

  /// A restore, sync or wrap on `device` meets its prefix's disk full: full from the start, or
  /// filling once the restore's journal is written, its merge of the keys still to come (see
  /// the type's comment for what is checked).
  func diskFull(_ device: SimulatedDevice) throws {
    let atMerge = random.chance(50)
    let command = random.pick(["restore", "sync", "wrap"]) ?? "restore"
    // The game wrote its keys first (always before a restore), so that a restore has keys to
    // merge: the archive's differ from the prefix's.
    if command == "restore" || random.chance(30) {
      gameOverwrites(device)
      note(
        "\(device.name) plays: \(device.registryName ?? "registry"): "
          + device.playRegistry(&random, tag: "s\(step)"))
      made(device.state)
    }
    let keysBefore = SimulatedRegistry.contentHash(ofFile: device.userReg)
    let hadJournal = device.hasRestoreJournal
    let before = stateAfterRecovery(device)
    let refusalsBefore = counts.diskFullRefusals
    counts.diskFullCommands += 1
    var filler: String?
    var watcher: DiskFiller?
    var isFilledAtMerge = false
    func makeRoom() {
      if let watcher, let path = watcher.stop() {
        isFilledAtMerge = true
        unlink(path)
      }
      if let filler { unlink(filler) }
      watcher = nil
      filler = nil
      isDiskFull = false
    }
    if atMerge {
      watcher = device.smallDisk.map { DiskFiller(disk: $0, journal: device.restoreJournalPath) }
    } else {
      filler = device.fillSmallDisk()
    }
    isDiskFull = true
    note(
      "\(device.name): its prefix's disk " + (atMerge ? "fills once a restore has its journal" : "is full")
        + " (\(command))")
    defer { makeRoom() }
    /// The promise, checked after the command (and at a wrap's game start): no restore left
    /// halfway, and a refusal changed nothing.
    func check(_ when: String) throws {
      if !hadJournal && device.hasRestoreJournal {
        throw SimulationFailure(
          invariant: "a full disk: a restore refuses before anything changes, or completes",
          detail:
            "\(command) on \(device.name) \(when) with its prefix's disk full\(atMerge ? " at the merge of the keys" : ""): a restore is left halfway (its journal names \(device.restoreJournal?.archive ?? "?"); the save is \(device.state?.prefix(12) ?? "nothing"), it was \(before?.prefix(12) ?? "nothing"))"
        )
      }
      if !hadJournal, counts.diskFullRefusals > refusalsBefore, before != Self.unknownState,
        device.state != before, device.agreedArchive == device.agreedAtStart
      {
        throw SimulationFailure(
          invariant: "a full disk: a restore refuses before anything changes, or completes",
          detail:
            "\(command) on \(device.name) \(when) was refused for the full disk, but the save went from \(before?.prefix(12) ?? "nothing") to \(device.state?.prefix(12) ?? "nothing")"
        )
      }
    }
    switch command {
    case "restore":
      try restore(device, failpoint: atMerge ? "restore.registry-merging=sleep:300" : nil)
    case "sync":
      try sync(
        device, answer: SimulatedAnswer.random(&random),
        failpoint: atMerge ? "restore.registry-merging=sleep:300" : nil)
    default:
      var atGameStart: SimulationFailure?
      try wrap(
        device, answer: SimulatedAnswer.random(&random),
        failpoint: atMerge ? "restore.registry-merging=sleep:300" : nil,
        atGameStart: {
          do { try check("as the game started") } catch let failure as SimulationFailure {
            atGameStart = failure
          } catch {}
          makeRoom()
        })
      if let atGameStart { throw atGameStart }
    }
    if isDiskFull { try check("as it ended") }
    makeRoom()
    if isFilledAtMerge { counts.diskFullAtMerge += 1 }
    // (Not a wrap's: its game writes keys too.)
    if command != "wrap", counts.diskFullRefusals == refusalsBefore,
      SimulatedRegistry.contentHash(ofFile: device.userReg) != keysBefore
    {
      counts.diskFullMerged += 1
    }
    if device.hasRestoreJournal {
      // A restore stopped before (a kill) and not finished for the full disk: the next command
      // finishes it; until then the save is as it was left.
      device.wasKilled = true
    }
  }
}
