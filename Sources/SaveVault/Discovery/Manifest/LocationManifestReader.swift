/// Reads Ludusavi's manifest (a mapping from title to entry, ~17 MB) with libyaml's event
/// parser straight into `LocationManifestGame`s, in file order, keeping only what SaveVault uses.
///
/// Every key and scalar is text, as the manifest's writer means it (`y`, `0000` and
/// `2014-12-31` are titles, not a Boolean, a number and a date). Unknown keys (`launch`,
/// `cloud`, `notes`, anything added later) are skipped whatever their shape, as the schema asks
/// of readers. A number field that is not a number drops that field only. An alias is refused,
/// never expanded.
public enum LocationManifestReader {
  /// The deepest nesting read; the manifest needs 6.
  static let depthLimit = 64

  /// The games of `bytes`, in file order. Throws `YAMLError` (with line and column) for text
  /// that is not YAML, uses an alias, or whose top level is not a mapping. An empty document
  /// has no games.
  ///
  /// The manifest's own block style is read directly (`YAMLBlockScanner`); text outside it, or
  /// that it refuses, is read again by libyaml, whose verdict and errors stand.
  public static func games(from bytes: some Collection<UInt8>) throws(YAMLError) -> [LocationManifestGame] {
    if let direct = try? gamesInBlockStyle(from: bytes) { return direct }
    return try gamesWithLibYAML(from: bytes)
  }

  /// `games(from:)` read by `YAMLBlockScanner` alone: throws for any text outside the
  /// manifest's block style.
  static func gamesInBlockStyle(from bytes: some Collection<UInt8>) throws(YAMLError)
    -> [LocationManifestGame]
  {
    let read = { (buffer: UnsafeBufferPointer<UInt8>) in
      Result { () throws(YAMLError) in try games(in: YAMLBlockScanner(buffer, depthLimit: depthLimit)) }
    }
    let result = bytes.withContiguousStorageIfAvailable(read) ?? Array(bytes).withUnsafeBufferPointer(read)
    return try result.get()
  }

  /// `games(from:)` read by libyaml alone.
  static func gamesWithLibYAML(from bytes: some Collection<UInt8>) throws(YAMLError) -> [LocationManifestGame]
  {
    try games(in: YAMLEventReader(bytes: bytes, depthLimit: depthLimit))
  }

  /// The games of the events `reader` reads.
  private static func games<Reader: YAMLEventSource>(in reader: Reader) throws(YAMLError)
    -> [LocationManifestGame]
  {
    guard try reader.next() == .streamStart else { throw reader.unexpected("no YAML stream") }
    var kind = try reader.next()
    guard kind == .documentStart else { return [] }
    kind = try reader.next()
    if kind == .scalar && reader.isText("") { return [] }
    guard kind == .mappingStart else { throw reader.unexpected("the manifest is not a mapping of titles") }
    var games: [LocationManifestGame] = []
    try eachKey(reader) { (reader) throws(YAMLError) in
      var game = LocationManifestGame(title: reader.text)
      let valueKind = try reader.next()
      if valueKind == .mappingStart {
        try readEntry(reader, into: &game)
      } else {
        try reader.skip(valueKind)
      }
      games.append(game)
    }
    // The rest of the stream must be well-formed too: a download cut short is refused.
    while try reader.next() != .streamEnd {}
    return games
  }

  /// Reads one entry's mapping (its start already read) up to its end.
  private static func readEntry<Reader: YAMLEventSource>(
    _ reader: Reader, into game: inout LocationManifestGame
  )
    throws(YAMLError)
  {
    try eachKey(reader) { (reader) throws(YAMLError) in
      if reader.isText("files") {
        game.files = try savePaths(reader)
      } else if reader.isText("registry") {
        game.registry = try keys(reader)
      } else if reader.isText("installDir") {
        game.installDirs = try keys(reader)
      } else if reader.isText("steam") {
        game.steamID = try storeID(reader).flatMap { UInt32($0) }
      } else if reader.isText("gog") {
        game.gogID = try storeID(reader).flatMap { UInt64($0) }
      } else if reader.isText("id") {
        try fields(reader) { (name, reader) throws(YAMLError) in
          switch name {
          case "steamExtra": game.steamExtra = try scalars(reader).compactMap { UInt32($0) }
          case "gogExtra": game.gogExtra = try scalars(reader).compactMap { UInt64($0) }
          case "lutris": game.lutrisID = try scalar(reader)
          case "flatpak": game.flatpakID = try scalar(reader)
          default: try skipValue(reader)
          }
        }
      } else if reader.isText("alias") {
        game.alias = try scalar(reader)
      } else {
        try skipValue(reader)
      }
    }
  }

  /// The `id` of a store's mapping (`steam: {id: 525480}`), as text; nil when there is none.
  private static func storeID<Reader: YAMLEventSource>(_ reader: Reader) throws(YAMLError) -> String? {
    var id: String?
    try fields(reader) { (name, reader) throws(YAMLError) in
      if name == "id" { id = try scalar(reader) } else { try skipValue(reader) }
    }
    return id
  }

  /// Reads and drops the next value.
  private static func skipValue<Reader: YAMLEventSource>(_ reader: Reader) throws(YAMLError) {
    try reader.skip(try reader.next())
  }

  /// The next value's text when it is a scalar; nil (the value skipped) otherwise.
  private static func scalar<Reader: YAMLEventSource>(_ reader: Reader) throws(YAMLError) -> String? {
    let kind = try reader.next()
    guard kind == .scalar else {
      try reader.skip(kind)
      return nil
    }
    return reader.text
  }

  /// The `files` keys, in order, but those only for a Mac (every item of their `when` names
  /// `os: mac`): a Mac's `Library` has no place here, natively or in a Proton prefix. (A DOS
  /// game's are kept: it runs in DOSBox, its saves in its install folder.)
  private static func savePaths<Reader: YAMLEventSource>(_ reader: Reader) throws(YAMLError) -> [String] {
    var paths: [String] = []
    try fields(reader) { (path, reader) throws(YAMLError) in
      // One per `when` item: the system it names, nil when it names none.
      var systems: [String?] = []
      try fields(reader) { (name, reader) throws(YAMLError) in
        guard name == "when" else { return try skipValue(reader) }
        let kind = try reader.next()
        guard kind == .sequenceStart else { return try reader.skip(kind) }
        while true {
          let item = try reader.next()
          if item == .sequenceEnd { return }
          guard item == .mappingStart else {
            try reader.skip(item)
            systems.append(nil)
            continue
          }
          var system: String?
          try eachKey(reader) { (reader) throws(YAMLError) in
            if reader.isText("os") { system = try scalar(reader) } else { try skipValue(reader) }
          }
          systems.append(system)
        }
      }
      let isElsewhere = !systems.isEmpty && systems.allSatisfy { $0 == "mac" }
      if !isElsewhere { paths.append(path) }
    }
    return paths
  }

  /// The scalar keys of the next value when it is a mapping, in order (their values skipped);
  /// empty for anything else.
  private static func keys<Reader: YAMLEventSource>(_ reader: Reader) throws(YAMLError) -> [String] {
    var keys: [String] = []
    try fields(reader) { (name, reader) throws(YAMLError) in
      keys.append(name)
      try skipValue(reader)
    }
    return keys
  }

  /// The scalar items of the next value when it is a sequence; empty for anything else.
  private static func scalars<Reader: YAMLEventSource>(_ reader: Reader) throws(YAMLError) -> [String] {
    let kind = try reader.next()
    guard kind == .sequenceStart else {
      try reader.skip(kind)
      return []
    }
    var items: [String] = []
    while true {
      let item = try reader.next()
      if item == .sequenceEnd { return items }
      if item == .scalar { items.append(reader.text) } else { try reader.skip(item) }
    }
  }

  /// Calls `body` with each scalar key of the next value when it is a mapping; `body` reads
  /// the key's value. Non-scalar keys are skipped with their values; anything else is skipped.
  private static func fields<Reader: YAMLEventSource>(
    _ reader: Reader, _ body: (String, Reader) throws(YAMLError) -> Void
  ) throws(YAMLError) {
    let kind = try reader.next()
    guard kind == .mappingStart else {
      try reader.skip(kind)
      return
    }
    try eachKey(reader) { (reader) throws(YAMLError) in try body(reader.text, reader) }
  }

  /// Calls `body` at each scalar key of a mapping whose start was just read, up to its end;
  /// `body` reads the key's value. Keys that are not scalars are skipped with their values.
  private static func eachKey<Reader: YAMLEventSource>(
    _ reader: Reader, _ body: (Reader) throws(YAMLError) -> Void
  ) throws(YAMLError) {
    while true {
      let keyKind = try reader.next()
      if keyKind == .mappingEnd { return }
      guard keyKind == .scalar else {
        try reader.skip(keyKind)
        try skipValue(reader)
        continue
      }
      try body(reader)
    }
  }
}
