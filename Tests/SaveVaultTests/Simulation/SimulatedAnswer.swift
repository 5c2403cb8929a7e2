import Foundation

@testable import SaveVault

/// How a conflict is settled in one command: a policy, or the prompt with a scripted answer
/// (nil: nobody to ask).
enum SimulatedAnswer: CustomStringConvertible {
  case policy(ConflictPolicy)
  case prompt(ConflictChoice?)

  static func random(_ random: inout SplitMix64) -> SimulatedAnswer {
    switch random.int(0..<9) {
    case 0: .policy(.upload)
    case 1: .policy(.restore)
    case 2: .policy(.newer)
    case 3: .policy(.skip)
    case 4: .policy(.fail)
    case 5: .prompt(nil)
    default: .prompt(random.pick(ConflictChoice.allCases))
    }
  }

  var policy: ConflictPolicy {
    if case .policy(let policy) = self { return policy }
    return .prompt
  }

  var resolver: any ConflictResolver {
    if case .prompt(let answer?) = self { return ScriptedResolver(answer) }
    return NobodyToAsk()
  }

  /// Nobody chose: `fail`, `skip`, or a prompt with nobody to ask.
  var isUnattended: Bool {
    switch self {
    case .policy(let policy): policy == .fail || policy == .skip
    case .prompt(let answer): answer == nil
    }
  }

  var description: String {
    switch self {
    case .policy(let policy): "--on-conflict \(policy.rawValue)"
    case .prompt(let answer): "prompt answered \(answer?.rawValue ?? "by nobody")"
    }
  }
}
