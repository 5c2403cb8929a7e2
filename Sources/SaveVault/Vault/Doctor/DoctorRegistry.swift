import Foundation

extension Vault {
  /// The checks of a game's registry keys: each prefix's file that holds some reads as a
  /// backup reads it (`RegistryExport.read`). One that cannot be read is a problem, since every
  /// backup of the game then fails; one Wine has not written yet is a warning (no keys to back
  /// up, and a restore of them is refused).
  func checkRegistryFiles(_ target: Target) -> [DoctorCheck] {
    var seen = Set<String>()
    return target.locations.compactMap { location in
      guard let registry = location.registrySource, seen.insert(registry.file).inserted else { return nil }
      let game = target.game
      do {
        guard try RegistryExport.read(registry) != nil else {
          return DoctorCheck(
            "registry", game, .warning,
            "'\(registry.file)' does not exist yet: Wine has not started in the prefix, so there are no keys to back up, and a restore of them is refused",
            fix: "start the game once", area: .local)
        }
        return DoctorCheck(
          "registry", game, .ok, "'\(registry.file)' reads as a Wine registry file", area: .local)
      } catch {
        return DoctorCheck(
          "registry", game, .problem, "\(error), so every backup of the game fails",
          fix:
            "with the game closed, correct or delete that line of the file (Wine skips a line it cannot read), or take 'registry:\(registry.manifestKey)' out of the game's locations",
          area: .local)
      }
    }
  }
}
