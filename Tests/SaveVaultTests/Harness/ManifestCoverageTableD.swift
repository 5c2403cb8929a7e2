@testable import SaveVault

extension CoverageGame {
  /// Games of the fixture added on 2026-12-03: paths that glue a placeholder to text, as real
  /// entries write them (`<winLocalAppData>Low/…`, `STEAMUSER<storeUserId>`).
  static let tableD: [CoverageGame] = [
    CoverageGame(
      "Shift At Midnight", 3_722_330, "Shift At Midnight", .proton,
      [P("<winLocalAppData>Low/Kwalee/ShiftAtMidnight", ["Low/Kwalee/ShiftAtMidnight/SaveData.dat"])]),
    CoverageGame(
      "Silt", 1_325_890, "Silt", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Spiral Circus/Silt/STEAMUSER<storeUserId>/Saved Games",
          ["AppData/LocalLow/Spiral Circus/Silt/STEAMUSER<storeUserId>/Saved Games/slot0.sav"])
      ]),
  ]
}
