/// A YAML text SaveVault refuses: libyaml's own complaint, or one of the limits put on what a
/// manifest or a small YAML file may be. Lines and columns count from 1.
public enum YAMLError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Not YAML: libyaml's problem and where it found it.
  case malformed(problem: String, line: Int, column: Int)
  /// An alias (`*name`): refused rather than expanded, so that a small file cannot grow into a
  /// huge one (the manifest never uses them).
  case alias(line: Int, column: Int)
  /// Collections nested deeper than the limit.
  case tooDeep(limit: Int, line: Int, column: Int)
  /// A shape the reader does not take: a manifest whose top level is not a mapping, a mapping
  /// key that is not a scalar.
  case unexpected(String, line: Int, column: Int)

  public var description: String {
    switch self {
    case .malformed(let problem, let line, let column):
      "not valid YAML at line \(line), column \(column): \(problem)"
    case .alias(let line, let column):
      "a YAML alias at line \(line), column \(column): aliases are refused, not expanded"
    case .tooDeep(let limit, let line, let column):
      "YAML nested deeper than \(limit) levels at line \(line), column \(column)"
    case .unexpected(let what, let line, let column):
      "\(what) at line \(line), column \(column)"
    }
  }
}
