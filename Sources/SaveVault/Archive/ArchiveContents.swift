import CLibArchive
import Foundation

/// Quick looks into an archive that read its headers only, never its file data.
enum ArchiveContents {
  /// Whether the archive at `fd` holds a save: a file, symlink or hardlink outside SaveVault's
  /// own `.savevault` folder (a tree of empty folders, like an empty save directory, holds
  /// none). False for what cannot be read as an archive: nothing there proves a save.
  static func holdsSave(fd: Int32, archiveName: String) -> Bool {
    _ = LibArchiveLocale.ensureUTF8
    guard let reader = LibArchiveHandle(archive_read_new, free: archive_read_free) else { return false }
    archive_read_support_format_tar(reader.pointer)
    let compression = ArchiveCompression(fileName: archiveName) ?? .none
    guard compression.configure(reader: reader) == nil,
      archive_read_open_fd(reader.pointer, fd, 1 << 16) == ARCHIVE_OK
    else { return false }
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
}
