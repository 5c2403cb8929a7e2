extension AgreementStore {
  /// This device's agreement about `target`'s game with its container.
  func load(_ target: Target) -> Agreement? {
    let folder: String? = if case .folder(let path) = target.container { path } else { nil }
    return load(game: target.game, container: target.agreementKey, folder: folder)
  }

  /// The index of the files of that agreement.
  func loadIndex(_ target: Target) -> [String: AgreedFile]? {
    loadIndex(game: target.game, container: target.agreementKey)
  }
}

extension Agreement {
  /// Where the game of this agreement keeps its save and archives, for the placement checks.
  var place: AgreedPlace { AgreedPlace(game: game, saveDir: saveDir, container: container) }
}
