import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// libarchive writes entries relative to the working directory; a restore must not move the
/// working directory of the rest of the process (a launcher embedding the library, other
/// threads starting programs or using relative paths).
@Suite("Working directory during a restore", .tags(.small))
struct WorkingDirectoryTests {
  /// What the working directory was, seen from the extracting thread and from another one.
  final class Sightings: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(extracting: String, other: String)] = []

    func record(_ extracting: String, _ other: String) {
      lock.lock()
      defer { lock.unlock() }
      items.append((extracting, other))
    }

    var all: [(extracting: String, other: String)] {
      lock.lock()
      defer { lock.unlock() }
      return items
    }
  }

  /// A thread started before the restore, which reports its working directory on request.
  final class Observer: @unchecked Sendable {
    private let request = DispatchSemaphore(value: 0)
    private let reply = DispatchSemaphore(value: 0)
    private var seen = ""
    private var isDone = false

    init() {
      Thread { [self] in
        while true {
          request.wait()
          if isDone {
            reply.signal()
            return
          }
          seen = WorkingDirectoryTests.workingDirectory()
          reply.signal()
        }
      }.start()
    }

    func look() -> String {
      request.signal()
      reply.wait()
      return seen
    }

    func stop() {
      isDone = true
      request.signal()
      reply.wait()
    }
  }

  static func workingDirectory() -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return "" }
    return String(cString: buffer)
  }

  @Test("other threads keep their working directory while a restore extracts")
  func otherThreadsKeepTheirDirectory() throws {
    let dir = TemporaryDirectory("workdir")
    try makeDirectory(dir.sub("cloud"))
    try writeFile(dir.sub("save/game/slot.sav"), "v1")
    let sightings = Sightings()
    let observer = Observer()
    defer { observer.stop() }
    var context = testContext(home: dir.sub("home"))
    context.progress = { event in
      guard event.phase == .extracting else { return }
      sightings.record(Self.workingDirectory(), observer.look())
    }
    let vault = try Vault(context: context)
    let target = try vault.resolve(
      TargetRequest(saveDirectory: dir.sub("save/game"), containerURL: dir.sub("cloud")))
    _ = try vault.backup(target, force: false)
    try writeFile(dir.sub("save/game/slot.sav"), "v2")

    let before = Self.workingDirectory()
    _ = try vault.restore(target, selection: .latest)
    #expect(Self.workingDirectory() == before)
    #expect(!sightings.all.isEmpty, "the restore reported no extraction progress")
    for seen in sightings.all {
      #expect(seen.extracting.contains("/.savevault-staging-"), "libarchive writes inside the staging folder")
      #expect(seen.other == before, "another thread saw the working directory move")
    }
    #expect(try String(contentsOfFile: dir.sub("save/game/slot.sav"), encoding: .utf8) == "v1")
  }
}
