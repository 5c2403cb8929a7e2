import Foundation
import Testing

@testable import SaveVault

@Suite("Retry policy: bounded tries and time, so a launch script waits a known time", .tags(.small))
struct RetryPolicyTests {
  @Test("the default policy stops after 5 tries and never starts a try past 30 s")
  func bounds() {
    let policy = RetryPolicy()
    #expect(policy.allowsAnother(after: 1, elapsed: 0))
    #expect(!policy.allowsAnother(after: 5, elapsed: 0), "a sixth try")
    #expect(!policy.allowsAnother(after: 1, elapsed: 29.9), "a try after the 30 s budget")
    // Even with the longest pauses, the tries the policy allows fit the budget.
    var elapsed: TimeInterval = 0
    var attempt = 1
    while policy.allowsAnother(after: attempt, elapsed: elapsed) {
      elapsed += policy.delay(after: attempt, jitter: 1)
      attempt += 1
    }
    #expect(attempt == 5)
    #expect(elapsed < 30, "the pauses alone took \(elapsed) s")
  }

  @Test("pauses grow exponentially, are capped, and jitter only shortens them by half at most")
  func delays() {
    let policy = RetryPolicy()
    #expect(policy.delay(after: 1, jitter: 1) == 0.25)
    #expect(policy.delay(after: 3, jitter: 1) == 1)
    #expect(policy.delay(after: 10, jitter: 1) == 4)
    #expect(policy.delay(after: 10, jitter: 0) == 2)
  }
}
