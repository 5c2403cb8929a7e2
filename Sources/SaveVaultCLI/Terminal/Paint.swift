#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Colour for a word of output: only on a terminal, never with `NO_COLOR` (set and not
/// empty, as no-color.org says) or `TERM=dumb`.
struct Paint {
  enum Color: String {
    case red = "31"
    case green = "32"
    case yellow = "33"
  }

  var isEnabled: Bool

  /// Whether output to `fd` may be coloured.
  static func isWanted(environment: [String: String], fd: Int32) -> Bool {
    isatty(fd) == 1 && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
  }

  func callAsFunction(_ text: String, _ color: Color) -> String {
    isEnabled ? "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m" : text
  }
}
