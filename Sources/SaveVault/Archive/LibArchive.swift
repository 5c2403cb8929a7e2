import CLibArchive
import Foundation

/// Owns one libarchive handle (reader, writer or disk writer) and frees it in `deinit`.
final class LibArchiveHandle {
  let pointer: OpaquePointer
  private let free: (OpaquePointer) -> Int32

  init?(_ make: () -> OpaquePointer?, free: @escaping (OpaquePointer) -> Int32) {
    guard let pointer = make() else { return nil }
    self.pointer = pointer
    self.free = free
  }

  deinit { _ = free(pointer) }

  /// libarchive's last error text for this handle.
  var errorText: String {
    archive_error_string(pointer).map { String(cString: $0) } ?? "unknown libarchive error"
  }

  /// The last error's `errno`, 0 if none.
  var errorNumber: Int32 { archive_errno(pointer) }
}

/// Owns one `archive_entry`.
final class LibArchiveEntry {
  let pointer: OpaquePointer

  init() {
    guard let pointer = archive_entry_new() else { fatalError("archive_entry_new: out of memory") }
    self.pointer = pointer
  }

  deinit { archive_entry_free(pointer) }
}

/// libarchive needs a UTF-8 locale to turn UTF-8 names into file names; "C" would refuse
/// every non-ASCII name. Set once, before the first archive is read or written.
enum LibArchiveLocale {
  static let ensureUTF8: Void = {
    if let current = setlocale(LC_CTYPE, nil).map({ String(cString: $0) }),
      current.uppercased().contains("UTF-8") || current.uppercased().contains("UTF8")
    {
      return
    }
    if setlocale(LC_CTYPE, "C.UTF-8") == nil { _ = setlocale(LC_CTYPE, "en_US.UTF-8") }
  }()
}

extension ManifestEntry {
  /// This entry with the mode and modification time of the libarchive header `e`, so that a
  /// manifest also vouches for the metadata a restore applies.
  func stamped(from e: OpaquePointer) -> ManifestEntry {
    var copy = self
    copy.mode = UInt32(archive_entry_perm(e)) & 0o7777
    copy.modifiedNs = FileTimes.nanoseconds(
      seconds: Int64(archive_entry_mtime(e)), nanoseconds: Int64(archive_entry_mtime_nsec(e)))
    return copy
  }
}
