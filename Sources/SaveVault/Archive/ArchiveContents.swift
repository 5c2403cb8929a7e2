import CLibArchive
import Foundation

/// Quick looks into an archive that read its headers only, never its file data.
enum ArchiveContents {
  /// A reader of the tar (compressed as its content says) at `fd`, nil when it cannot be opened.
  private static func reader(fd: Int32, archiveName: String) -> LibArchiveHandle? {
    try? ArchiveEncoding.openReader(fd: fd, archiveName: archiveName, blockSize: 1 << 16)
  }

  /// Whether the archive at `fd` holds a save: a file, symlink or hardlink outside SaveVault's
  /// own `.savevault` folder (a tree of empty folders, like an empty save directory, holds
  /// none). False for what cannot be read as an archive: nothing there proves a save.
  static func holdsSave(fd: Int32, archiveName: String) -> Bool {
    guard let reader = reader(fd: fd, archiveName: archiveName) else { return false }
    while true {
      var entry: OpaquePointer?
      guard archive_read_next_header(reader.pointer, &entry) >= ARCHIVE_WARN, let e = entry else {
        return false
      }
      guard
        case .accepted(let path) = EntryPolicy.check(
          path: archive_entry_pathname(e).map { RawName.string(cString: $0) } ?? "")
      else { continue }
      if path == reservedFolder || path.hasPrefix(reservedFolder + "/") { continue }
      if UInt32(archive_entry_filetype(e)) != SV_AE_IFDIR { return true }
    }
  }

  /// The header SaveVault wrote as the archive's first entry, read from the start of the
  /// archive at `fd` (the rest may be missing); nil when there is none or it cannot be read.
  static func header(fd: Int32, archiveName: String) -> ArchiveHeader? {
    var entry: OpaquePointer?
    guard let reader = reader(fd: fd, archiveName: archiveName),
      archive_read_next_header(reader.pointer, &entry) >= ARCHIVE_WARN, let e = entry,
      archive_entry_pathname(e).map({ String(cString: $0) }) == ArchiveHeader.path,
      case let size = archive_entry_size(e), size > 0, size <= headerLimit
    else { return nil }
    var data = Data(count: Int(size))
    let read = data.withUnsafeMutableBytes { archive_read_data(reader.pointer, $0.baseAddress, Int(size)) }
    guard read == Int(size) else { return nil }
    return try? JSONDecoder().decode(ArchiveHeader.self, from: data)
  }

  /// The largest header read (a real one is a few KiB).
  static let headerLimit: Int64 = 1 << 20

  /// How much of an archive's start holds its header, compressed or not.
  static let headerBytes = 256 << 10
}
