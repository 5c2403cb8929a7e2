// libFuzzer target: the manifest reader, YAMLValue.parse and the manifest index on any bytes.
// None may crash, hang or grow without bound; what the reader accepts indexes and reads back
// as itself, the two YAML readers agree on a mapping's keys, and the manifest's block style read
// directly gives what libyaml gives.
import Foundation

public func fuzzYAML(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  let games = try? LocationManifestReader.games(from: bytes)
  if let direct = try? LocationManifestReader.gamesInBlockStyle(from: bytes) {
    guard direct == (try? LocationManifestReader.gamesWithLibYAML(from: bytes)) else {
      fatalError("the block style read directly differs from libyaml's reading")
    }
  }
  if let games {
    guard let index = LocationManifestIndex(bytes: LocationManifestIndex.encode(games, stamp: "fuzz")) else {
      fatalError("the index of accepted games does not read back")
    }
    guard index.allGames == games else { fatalError("the index changes the games") }
    for game in games.prefix(50) {
      guard index.game(title: game.title) != nil else { fatalError("title not found: \(game.title)") }
      if let id = game.steamID, index.game(steamAppID: id) == nil { fatalError("steam id not found: \(id)") }
      if let id = game.gogID, index.game(gogID: id) == nil { fatalError("gog id not found: \(id)") }
      for folder in game.installDirs where !LocationManifestTitle.normalized(folder).isEmpty {
        guard !index.games(installDir: folder).isEmpty else { fatalError("install folder not found: \(folder)") }
      }
    }
  }
  if case .mapping(let pairs)? = try? YAMLValue.parse(bytes) {
    guard let games, games.map(\.title) == pairs.map(\.key) else {
      fatalError("the manifest reader and YAMLValue.parse disagree on the titles")
    }
  }
  // The bytes as an index: refused, or safe to use.
  if let index = LocationManifestIndex(bytes: Array(bytes)) {
    _ = index.allGames
    _ = index.game(steamAppID: 1)
    _ = index.game(title: "a")
    _ = index.games(installDir: "a")
  }
  return 0
}
