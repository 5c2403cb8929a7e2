/// Lays out help text: paragraphs filled to a width, and two-column tables of labels and
/// descriptions.
enum TextLayout {
  /// The widest a help line grows.
  static let width = 88
  /// Where descriptions start in an option table.
  static let column = 23

  /// `text`'s words filled into lines of at most `width` characters, the first after
  /// `lead`, the others indented to `indent`.
  static func fill(_ text: String, lead: String, indent: Int, width: Int = width) -> [String] {
    var lines: [String] = []
    var line = lead
    var isLineEmpty = true
    for word in text.split(separator: " ") {
      if !isLineEmpty && line.count + 1 + word.count > width {
        lines.append(line)
        line = String(repeating: " ", count: indent)
        isLineEmpty = true
      }
      line += (isLineEmpty ? "" : " ") + word
      isLineEmpty = false
    }
    lines.append(line)
    return lines
  }

  /// Rows of a label at `indent` and its description at `column`; a label too long for that
  /// has its description two spaces after it.
  static func table(_ rows: [(label: String, text: String)], indent: Int = 2, column: Int = column)
    -> [String]
  {
    rows.flatMap { row in
      let label = String(repeating: " ", count: indent) + row.label
      let lead =
        label.count + 2 <= column
        ? label + String(repeating: " ", count: column - label.count) : label + "  "
      return fill(row.text, lead: lead, indent: column)
    }
  }
}
