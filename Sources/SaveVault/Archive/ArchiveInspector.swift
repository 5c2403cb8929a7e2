import CLibArchive
import Foundation

/// Reads an archive without extracting it, to learn its content digest: from its manifest for
/// a SaveVault archive whose bytes match it, or by hashing every entry of a plain tar.
enum ArchiveInspector {
  /// The content digest of the archive at `fd`. Throws `ArchiveError.refused` for anything
  /// unreadable or hostile.
  static func contentDigest(fd: Int32, archiveName: String) throws -> String {
    _ = LibArchiveLocale.ensureUTF8
    guard let reader = LibArchiveHandle(archive_read_new, free: archive_read_free) else {
      throw ArchiveError.refused(archive: archiveName, reason: "libarchive: out of memory")
    }
    func refuse(_ reason: String) -> ArchiveError { .refused(archive: archiveName, reason: reason) }
    archive_read_support_format_tar(reader.pointer)
    guard archive_read_open_fd(reader.pointer, fd, 1 << 16) == ARCHIVE_OK else {
      throw refuse("not a readable tar archive (\(reader.errorText))")
    }
    var entries: [ManifestEntry] = []
    var manifest: Manifest?
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      var entryPointer: OpaquePointer?
      let status = archive_read_next_header(reader.pointer, &entryPointer)
      if status == ARCHIVE_EOF { break }
      guard status >= ARCHIVE_WARN, let e = entryPointer else {
        throw refuse("the archive is corrupt or truncated (\(reader.errorText))")
      }
      let raw = archive_entry_pathname_utf8(e).map { String(cString: $0) } ?? ""
      guard case .accepted(let path) = EntryPolicy.check(path: raw) else { continue }
      let isMetadata = path == reservedFolder || path.hasPrefix(reservedFolder + "/")
      let hash = SHA256()
      var data = Data()
      var size: Int64 = 0
      while true {
        let count = archive_read_data(reader.pointer, &buffer, buffer.count)
        if count == 0 { break }
        guard count > 0 else { throw refuse("the archive is corrupt or truncated (\(reader.errorText))") }
        if path == Manifest.path {
          data.append(contentsOf: buffer[0..<count])
        } else {
          hash.update(buffer, count: count)
        }
        size += Int64(count)
      }
      if path == Manifest.path { manifest = try? JSONDecoder().decode(Manifest.self, from: data) }
      if isMetadata { continue }
      if let link = archive_entry_hardlink_utf8(e).map({ String(cString: $0) }),
        case .accepted(let target) = EntryPolicy.check(path: link),
        let original = entries.first(where: { $0.path == target })
      {
        entries.append(
          ManifestEntry(path: path, kind: .file, size: original.size, sha256: original.sha256).stamped(
            from: e))
        continue
      }
      switch UInt32(archive_entry_filetype(e)) {
      case SV_AE_IFDIR: entries.append(ManifestEntry(path: path, kind: .directory).stamped(from: e))
      case SV_AE_IFLNK:
        let target = archive_entry_symlink_utf8(e).map { String(cString: $0) } ?? ""
        entries.append(ManifestEntry(path: path, kind: .symlink, target: target).stamped(from: e))
      default:
        entries.append(
          ManifestEntry(path: path, kind: .file, size: size, sha256: hash.finalize()).stamped(from: e))
      }
    }
    if let manifest, Extractor.firstMismatch(extracted: entries, manifest: manifest.entries) != nil {
      throw refuse("its content does not match its manifest (the archive is corrupt)")
    }
    return ContentDigest.of(entries)
  }
}
