extension YAMLValue {
  /// The deepest nesting `parse` takes: small files such as Lutris's need a handful.
  public static let depthLimit = 64

  /// The first document of `bytes` as values: every scalar as text, mappings in order. An
  /// empty stream or document is the empty scalar. Throws `YAMLError` (with line and column)
  /// for text that is not YAML, an alias (refused, never expanded), a mapping key that is not a
  /// scalar, or nesting deeper than `depthLimit`.
  public static func parse(_ bytes: some Collection<UInt8>) throws(YAMLError) -> YAMLValue {
    let reader = try YAMLEventReader(bytes: bytes, depthLimit: depthLimit)
    guard try reader.next() == .streamStart else { throw reader.unexpected("no YAML stream") }
    guard try reader.next() == .documentStart else { return .scalar("") }
    let value = try value(reader, kind: try reader.next())
    while try reader.next() != .streamEnd {}
    return value
  }

  /// The value starting with the current event, `kind`. Recursion is bounded by the reader's
  /// depth limit.
  private static func value(_ reader: YAMLEventReader, kind: YAMLEventReader.Kind) throws(YAMLError)
    -> YAMLValue
  {
    switch kind {
    case .scalar:
      return .scalar(reader.text)
    case .sequenceStart:
      var items: [YAMLValue] = []
      while true {
        let item = try reader.next()
        if item == .sequenceEnd { return .sequence(items) }
        items.append(try value(reader, kind: item))
      }
    case .mappingStart:
      var pairs: [(key: String, value: YAMLValue)] = []
      while true {
        let keyKind = try reader.next()
        if keyKind == .mappingEnd { return .mapping(pairs) }
        guard keyKind == .scalar else { throw reader.unexpected("a mapping key that is not a scalar") }
        let key = reader.text
        pairs.append((key, try value(reader, kind: try reader.next())))
      }
    default:
      throw reader.unexpected("a YAML event where a value was expected")
    }
  }
}
