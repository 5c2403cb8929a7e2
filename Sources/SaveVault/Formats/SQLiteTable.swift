import CSQLite
import Foundation

/// Rows of a table in an SQLite database another program owns (Lutris's `pga.db`), read
/// without ever writing to it: the file is opened read-only and immutable (no lock, no journal,
/// no `-wal` or `-shm` file made beside it), so a launcher running meanwhile is never
/// disturbed. Every value is read as text (NULL as nil); a file that is not a database, or
/// lacks the table or a column, throws `SQLiteError`.
public enum SQLiteTable {
  /// The `columns` of every row of `table` in the database at `path`, in row order.
  public static func rows(path: String, table: String, columns: [String]) throws(SQLiteError) -> [[String?]] {
    var escaped = ""
    for character in path.unicodeScalars {
      // The URI form's special characters, percent-encoded.
      if "%?#".unicodeScalars.contains(character) || character.value < 0x21 || character.value == 0x7f {
        escaped += String(format: "%%%02X", character.value)
      } else {
        escaped.unicodeScalars.append(character)
      }
    }
    var handle: OpaquePointer?
    let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
    let opened = sqlite3_open_v2("file:" + escaped + "?mode=ro&immutable=1", &handle, flags, nil)
    defer { sqlite3_close_v2(handle) }
    guard opened == SQLITE_OK, let handle else {
      throw .unreadable(path: path, reason: message(handle, opened))
    }
    let quoted = ([table] + columns).map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
    let query = "SELECT " + quoted.dropFirst().joined(separator: ", ") + " FROM " + quoted[0]
    var statement: OpaquePointer?
    let prepared = sqlite3_prepare_v2(handle, query, -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    guard prepared == SQLITE_OK, let statement else {
      throw .unreadable(path: path, reason: message(handle, prepared))
    }
    var rows: [[String?]] = []
    while true {
      let step = sqlite3_step(statement)
      if step == SQLITE_DONE { return rows }
      guard step == SQLITE_ROW else { throw .unreadable(path: path, reason: message(handle, step)) }
      rows.append(
        (0..<Int32(columns.count)).map { column in
          sqlite3_column_text(statement, column).map { String(cString: $0) }
        })
    }
  }

  private static func message(_ handle: OpaquePointer?, _ code: Int32) -> String {
    if let handle, let text = sqlite3_errmsg(handle) { return String(cString: text) }
    return sqlite3_errstr(code).map { String(cString: $0) } ?? "SQLite error \(code)"
  }
}

/// Why an SQLite database was not read.
public enum SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Not a database SQLite reads, or not with that table and those columns.
  case unreadable(path: String, reason: String)

  public var description: String {
    switch self {
    case .unreadable(let path, let reason): "\(path): \(reason)"
    }
  }
}
