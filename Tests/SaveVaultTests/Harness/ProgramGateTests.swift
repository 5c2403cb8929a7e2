import Foundation
import Testing

/// The gate of the awaited runs (`ProgramGate`, Harness/Spawner.swift), on bodies that only sleep.
@Suite(
  "ProgramGate: at most its slots at once, in the order asked, given back on every way out", .tags(.small))
struct ProgramGateTests {
  /// How many bodies are inside at once, and the most there ever were.
  actor Inside {
    var now = 0
    var most = 0
    var order: [Int] = []
    func enter(_ index: Int) {
      now += 1
      most = max(most, now)
      order.append(index)
    }
    func leave() { now -= 1 }
  }

  struct Failure: Error {}

  @Test("never more bodies inside than slots, and every one runs")
  func slotsBound() async throws {
    let gate = ProgramGate(slots: 2)
    let inside = Inside()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<12 {
        group.addTask {
          try await gate.run {
            await inside.enter(index)
            try await Task.sleep(for: .milliseconds(5))
            await inside.leave()
          }
        }
      }
      try await group.waitForAll()
    }
    #expect(await inside.most == 2)
    #expect(await inside.order.count == 12)
    #expect(await gate.running == 0)
  }

  @Test("a waiting body gets the slot in the order it asked")
  func inOrder() async throws {
    let gate = ProgramGate(slots: 1)
    let inside = Inside()
    await gate.enter()  // the slot is taken: the bodies below queue
    var tasks: [Task<Void, Never>] = []
    for index in 0..<5 {
      tasks.append(Task { await gate.run { await inside.enter(index) } })
      // Each asks before the next.
      while await gate.queued < index + 1 { try await Task.sleep(for: .milliseconds(1)) }
    }
    await gate.leave()
    for task in tasks { await task.value }
    #expect(await inside.order == [0, 1, 2, 3, 4])
    #expect(await gate.running == 0)
  }

  @Test("a body that throws gives its slot back; an ungated body takes none")
  func givenBack() async throws {
    let gate = ProgramGate(slots: 1)
    await #expect(throws: Failure.self) {
      try await gate.run { () async throws -> Int in throw Failure() }
    }
    #expect(await gate.running == 0)
    await gate.enter()
    // The only slot is taken; this one runs anyway.
    let ungated = await gate.run(gated: false) { 7 }
    #expect(ungated == 7)
    #expect(await gate.running == 1)
    await gate.leave()
    #expect(await gate.running == 0)
  }
}
