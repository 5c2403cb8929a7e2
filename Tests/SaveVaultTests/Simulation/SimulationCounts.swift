import Foundation

/// An invariant that did not hold, or a command that failed in a way no step explains.
struct SimulationFailure: Error, CustomStringConvertible {
  var invariant: String
  var detail: String
  var description: String { "\(invariant): \(detail)" }
}

/// What the scenarios did, added up.
struct SimulationCounts {
  var scenarios = 0
  /// Scenarios whose game keeps its save in two locations.
  var locationScenarios = 0
  /// Those of them whose game also keeps files of its install folder, and binaries killed
  /// while a restore set such files aside or renamed them in.
  var filesScenarios = 0
  var fileKills = 0
  /// Those of them whose game also keeps registry keys, and binaries killed as a restore was
  /// merging keys into the prefix's file.
  var registryScenarios = 0
  var registryKills = 0
  var steps = 0
  var commands = 0
  /// Commands started in-process with a failpoint set to `error`, and those it did stop.
  var interruptionAttempts = 0
  var interruptions = 0
  /// Real binaries started with a `kill` failpoint, and those that did die by SIGKILL.
  var killAttempts = 0
  var kills = 0
  var offlinePeriods = 0
  var conflicts = 0
  var statesOwed = 0
  /// States the game overwrote while they existed only in its save directory (the player's
  /// own doing, not SaveVault's).
  var statesOverwrittenByGame = 0
  var convergenceSyncs = 0
  /// Games uninstalled and installed again (their save's folders made anew).
  var reinstalls = 0
  /// Two devices' backups run at the same moment, after both agreed on the latest.
  var concurrentUploads = 0
  /// Scenarios where a device lacks the second location at first, and where one adopts the game.
  var lackingScenarios = 0
  var adoptionScenarios = 0
  /// Archives uploaded by a device lacking the second location, and those of them that carried
  /// content of it forward.
  var lackingUploads = 0
  var carriedUploads = 0
  /// Second locations a restore placed on a device that lacked them, and those the player
  /// added to the config.
  var locationsPlaced = 0
  var locationsGained = 0
  /// Games adopted by `wrap` under Steam, and launches that adopted nothing (no container chosen).
  var adoptions = 0
  var adoptionsWithoutContainer = 0

  private static var fields: [WritableKeyPath<SimulationCounts, Int>] {
    [
      \.scenarios, \.locationScenarios, \.filesScenarios, \.fileKills, \.registryScenarios, \.registryKills,
      \.steps, \.commands,
      \.interruptionAttempts, \.interruptions,
      \.killAttempts, \.kills,
      \.offlinePeriods, \.conflicts, \.statesOwed, \.statesOverwrittenByGame, \.convergenceSyncs,
      \.reinstalls, \.concurrentUploads, \.lackingScenarios, \.adoptionScenarios, \.lackingUploads,
      \.carriedUploads, \.locationsPlaced, \.locationsGained, \.adoptions, \.adoptionsWithoutContainer,
    ]
  }

  mutating func add(_ other: SimulationCounts) {
    for field in Self.fields { self[keyPath: field] += other[keyPath: field] }
  }
}
