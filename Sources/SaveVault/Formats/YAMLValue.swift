/// A YAML document as plain values, as libyaml reads it: every scalar is a string (no type is
/// guessed: `y`, `0000` and `2014-12-31` stay text), mappings keep their order. The manifest
/// itself is read as a stream of events instead (it is large); this serves small files such as
/// Lutris's `games/*.yml`.
public indirect enum YAMLValue: Sendable, Equatable {
  case scalar(String)
  case sequence([YAMLValue])
  case mapping([(key: String, value: YAMLValue)])

  /// The value under `key` of a mapping (the first, when a key repeats); nil otherwise.
  public subscript(key: String) -> YAMLValue? {
    guard case .mapping(let pairs) = self else { return nil }
    return pairs.first { $0.key == key }?.value
  }

  /// The text of a scalar; nil otherwise.
  public var string: String? {
    guard case .scalar(let text) = self else { return nil }
    return text
  }

  public static func == (lhs: YAMLValue, rhs: YAMLValue) -> Bool {
    switch (lhs, rhs) {
    case (.scalar(let a), .scalar(let b)): a == b
    case (.sequence(let a), .sequence(let b)): a == b
    case (.mapping(let a), .mapping(let b)):
      a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    default: false
    }
  }
}
