import CYaml

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// libyaml's event parser over a copy of some bytes: one owner for the parser, the input and
/// the current event, all freed in `deinit`. Scalars are read only when asked for (`text`), so
/// skipping what the reader does not need costs no strings.
final class YAMLEventReader: YAMLEventSource {
  typealias Kind = YAMLEventKind

  private let parser: UnsafeMutablePointer<yaml_parser_t>
  private let event: UnsafeMutablePointer<yaml_event_t>
  private let input: UnsafeMutableBufferPointer<UInt8>
  private var hasEvent = false
  private var isParserReady = false
  /// How many collections the current event is inside of (after it, for a start).
  private(set) var depth = 0
  /// The deepest nesting accepted: libyaml's own stacks grow with it.
  let depthLimit: Int

  init(bytes: some Collection<UInt8>, depthLimit: Int) throws(YAMLError) {
    self.depthLimit = depthLimit
    parser = .allocate(capacity: 1)
    event = .allocate(capacity: 1)
    input = .allocate(capacity: max(1, bytes.count))
    _ = input.initialize(from: bytes)
    guard yaml_parser_initialize(parser) != 0 else {
      throw .malformed(problem: "libyaml could not start (out of memory)", line: 0, column: 0)
    }
    isParserReady = true
    yaml_parser_set_input_string(parser, input.baseAddress, bytes.count)
  }

  deinit {
    if hasEvent { yaml_event_delete(event) }
    if isParserReady { yaml_parser_delete(parser) }
    event.deallocate()
    parser.deallocate()
    input.deallocate()
  }

  /// The next event: the previous one is freed first. Throws for malformed YAML, an alias
  /// and nesting over `depthLimit`.
  func next() throws(YAMLError) -> Kind {
    if hasEvent {
      yaml_event_delete(event)
      hasEvent = false
    }
    guard yaml_parser_parse(parser, event) != 0 else {
      let mark = parser.pointee.problem_mark
      let problem = parser.pointee.problem.map { String(cString: $0) } ?? "unknown problem"
      throw .malformed(problem: problem, line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }
    hasEvent = true
    switch event.pointee.type {
    case YAML_STREAM_START_EVENT: return .streamStart
    case YAML_STREAM_END_EVENT: return .streamEnd
    case YAML_DOCUMENT_START_EVENT: return .documentStart
    case YAML_DOCUMENT_END_EVENT: return .documentEnd
    case YAML_SCALAR_EVENT: return .scalar
    case YAML_MAPPING_START_EVENT, YAML_SEQUENCE_START_EVENT:
      depth += 1
      guard depth <= depthLimit else { throw .tooDeep(limit: depthLimit, line: line, column: column) }
      return event.pointee.type == YAML_MAPPING_START_EVENT ? .mappingStart : .sequenceStart
    case YAML_MAPPING_END_EVENT:
      depth -= 1
      return .mappingEnd
    case YAML_SEQUENCE_END_EVENT:
      depth -= 1
      return .sequenceEnd
    case YAML_ALIAS_EVENT: throw .alias(line: line, column: column)
    default: throw .unexpected("an unknown YAML event", line: line, column: column)
    }
  }

  /// The current scalar's text (empty for any other event). Invalid UTF-8 cannot reach here:
  /// libyaml refuses it.
  var text: String {
    guard hasEvent, event.pointee.type == YAML_SCALAR_EVENT, let value = event.pointee.data.scalar.value
    else {
      return ""
    }
    return String(
      decoding: UnsafeBufferPointer(start: value, count: event.pointee.data.scalar.length), as: UTF8.self)
  }

  /// Whether the current scalar's bytes are `literal` (no string made).
  func isText(_ literal: StaticString) -> Bool {
    guard hasEvent, event.pointee.type == YAML_SCALAR_EVENT, let value = event.pointee.data.scalar.value
    else {
      return false
    }
    let length = event.pointee.data.scalar.length
    guard length == literal.utf8CodeUnitCount else { return false }
    return memcmp(value, literal.utf8Start, length) == 0
  }

  /// The current event's line, from 1.
  var line: Int { hasEvent ? Int(event.pointee.start_mark.line) + 1 : 0 }
  /// The current event's column, from 1.
  var column: Int { hasEvent ? Int(event.pointee.start_mark.column) + 1 : 0 }

  /// A thrown error for `what` at the current event.
  func unexpected(_ what: String) -> YAMLError { .unexpected(what, line: line, column: column) }
}
