/// What an event is, without its data.
enum YAMLEventKind: Equatable {
  case streamStart, streamEnd, documentStart, documentEnd
  case mappingStart, mappingEnd, sequenceStart, sequenceEnd, scalar
}

/// A stream of YAML events, read one at a time: libyaml's (`YAMLEventReader`, any YAML) or the
/// manifest's own block style read directly (`YAMLBlockScanner`).
protocol YAMLEventSource: AnyObject {
  /// The next event. Throws `YAMLError` for text the source does not take.
  func next() throws(YAMLError) -> YAMLEventKind
  /// The current scalar's text (empty for any other event).
  var text: String { get }
  /// Whether the current scalar's text is `literal` (no string made).
  func isText(_ literal: StaticString) -> Bool
  /// How many collections the current event is inside of (after it, for a start).
  var depth: Int { get }
  /// A thrown error for `what` at the current event.
  func unexpected(_ what: String) -> YAMLError
}

extension YAMLEventSource {
  /// Skips the value that starts with the current event (`kind`): a scalar is done already, a
  /// collection is read to its end.
  func skip(_ kind: YAMLEventKind) throws(YAMLError) {
    guard kind == .mappingStart || kind == .sequenceStart else { return }
    let target = depth - 1
    while depth > target {
      if try next() == .streamEnd { throw unexpected("the end of the stream inside a collection") }
    }
  }
}
