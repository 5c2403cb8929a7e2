import Foundation

/// Columns padded to their widest cell, two spaces apart.
enum Table {
  static func render(_ header: [String], _ rows: [[String]]) -> String {
    let all = [header] + rows
    let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
    return all.map { row in
      row.indices.map { column in
        column == row.count - 1
          ? row[column] : row[column].padding(toLength: widths[column], withPad: " ", startingAt: 0)
      }.joined(separator: "  ")
    }.joined(separator: "\n")
  }
}
