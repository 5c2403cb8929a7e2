import CLibArchive
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Packs a save directory into a POSIX pax tar through libarchive, streaming: one fixed
/// buffer, never a whole file or archive in memory; compressed with zstd when asked.
///
/// Layout: `.savevault/header.json` first, then every entry of the scan in its stable
/// order (relative paths, modes, nanosecond mtimes, empty folders, inside symlinks; hard links
/// after the first name of their file; files with holes in GNU's pax sparse format; names
/// that are not UTF-8 with their bytes under `hdrcharset=BINARY`), then
/// `.savevault/manifest.json` with each file's size and SHA-256. `tar -xf` restores the save
/// as it is (plus the `.savevault` folder, which SaveVault ignores).
struct Packer {
  var header: ArchiveHeader
  /// How the tar stream is compressed on its way to the file descriptor.
  var compression = ArchiveCompression.none
  var bufferSize = 1 << 20
  /// Told of every chunk of file data packed.
  var meter: ProgressMeter?
  /// Whether to start the disk writing the output every few MiB while packing (for an archive
  /// that is flushed when done: the flush then has little left to wait for).
  var startsWriteback = false

  /// What a pack produced.
  struct Result {
    var byteCount: Int64
    var manifest: Manifest
  }

  /// Writes the archive to `fd`. Throws `ArchiveError` (`.unreadable` naming the file that
  /// could not be read or changed while read; `.writeFailed`/`.noSpace` for output failures).
  func pack(_ scan: SaveScan, to fd: Int32, outputName: String) throws -> Result {
    _ = LibArchiveLocale.ensureUTF8
    guard let writer = LibArchiveHandle(archive_write_new, free: archive_write_free) else {
      throw ArchiveError.writeFailed(path: outputName, reason: "libarchive: out of memory")
    }
    let a = writer.pointer
    func check(_ code: Int32) throws {
      guard code >= ARCHIVE_WARN else { throw outputError(writer, outputName) }
    }
    try check(archive_write_set_format_pax(a))
    if let reason = compression.configure(writer: writer) {
      throw ArchiveError.writeFailed(path: outputName, reason: reason)
    }
    // 1 MiB writes instead of tar's 10 KiB records (52,000 `write` calls for 512 MiB); the
    // bytes are the same, and no padding goes past the end marker.
    try check(archive_write_set_bytes_per_block(a, 1 << 20))
    try check(archive_write_set_bytes_in_last_block(a, 1))
    try check(archive_write_open_fd(a, fd))

    let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 16)
    defer { buffer.deallocate() }
    let writeback = startsWriteback ? Writeback(fd: fd) : nil

    try writeMetadataFile(ArchiveHeader.path, JSONEncoder.stable.encode(header), writer, outputName)
    var entries: [ManifestEntry] = []
    entries.reserveCapacity(scan.entries.count)
    let entry = LibArchiveEntry()  // one, cleared for each item
    let e = entry.pointer
    let hardlinks = scan.hardlinks()
    let files = scan.entries.indices.filter { scan.entries[$0].kind == .file && hardlinks[$0] == nil }
      .map { scan.entries[$0] }
    let prefetcher = FilePrefetcher(source: scan.source, paths: files.map(\.path), sizes: files.map(\.size))
    defer { prefetcher.stop() }
    let folders = FolderDescriptors(source: scan.source)  // the packer's own, for large files
    for (index, item) in scan.entries.enumerated() {
      archive_entry_clear(e)
      // The name's bytes as they are: libarchive writes them as UTF-8 when they are, and with
      // `hdrcharset=BINARY` when they are not (pax allows any bytes).
      RawName.withCString(item.path) { archive_entry_copy_pathname(e, $0) }
      Self.setModified(e, item.modifiedNs)
      archive_entry_set_perm(e, mode_t(item.mode & 0o777))
      switch item.kind {
      case .directory:
        archive_entry_set_filetype(e, SV_AE_IFDIR)
        try check(archive_write_header(a, e))
        entries.append(ManifestEntry(path: item.path, kind: .directory).stamped(from: e))
      case .symlink:
        archive_entry_set_filetype(e, SV_AE_IFLNK)
        RawName.withCString(item.linkTarget ?? "") { archive_entry_copy_symlink(e, $0) }
        try check(archive_write_header(a, e))
        entries.append(
          ManifestEntry(path: item.path, kind: .symlink, target: item.linkTarget).stamped(from: e))
      case .file where hardlinks[index] != nil:
        // Manifest entries and scan entries go one for one: the first name's is known.
        let first = entries[hardlinks[index] ?? index]
        archive_entry_set_filetype(e, SV_AE_IFREG)
        Self.setModified(e, first.modifiedNs ?? item.modifiedNs)  // one file: the time it was packed with
        RawName.withCString(first.path) { archive_entry_copy_hardlink(e, $0) }
        try check(archive_write_header(a, e))
        entries.append(
          ManifestEntry(path: item.path, kind: .file, size: first.size, sha256: first.sha256).stamped(from: e)
        )
      case .file:
        let size: Int64
        let digest: String
        switch prefetcher.next() {
        case .content(let bytes, let modifiedNs):
          (size, digest) = try writeFile(
            bytes, modifiedNs: modifiedNs, entry: entry, writer: writer, outputName: outputName,
            writeback: writeback)
        case .large:
          (size, digest) = try copyFile(
            folders.openFile(item.path), entry: entry, writer: writer, outputName: outputName,
            buffer: buffer, writeback: writeback)
        case .failed(let error): throw error
        }
        entries.append(
          ManifestEntry(path: item.path, kind: .file, size: size, sha256: digest).stamped(from: e))
      }
    }
    let manifest = Manifest(header: header, entries: entries)
    try writeMetadataFile(Manifest.path, ManifestJSON.encode(manifest), writer, outputName)
    try check(archive_write_close(a))
    return Result(byteCount: archive_filter_bytes(a, -1), manifest: manifest)
  }

  /// Writes a small file read ahead by the prefetcher (whole, checked) into the archive.
  private func writeFile(
    _ bytes: [UInt8], modifiedNs: Int64, entry: LibArchiveEntry, writer: LibArchiveHandle, outputName: String,
    writeback: Writeback?
  ) throws -> (Int64, String) {
    try writeRegularHeader(
      entry.pointer, size: Int64(bytes.count), modifiedNs: modifiedNs, writer, outputName)
    let hash = FileDigest(size: Int64(bytes.count))
    try bytes.withUnsafeBytes { buffer in
      if let base = buffer.baseAddress { hash.update(base, count: buffer.count) }
      try writeWhole(buffer, writer, outputName)
    }
    try meter?.add(Int64(bytes.count))
    writeback?.add(bytes.count)
    return (Int64(bytes.count), hash.finalize())
  }

  /// Streams one file into the archive, hashing it on the way. The header's size is the size
  /// when opened; a file that shrinks, grows or is modified while read fails the pack rather
  /// than storing a torn copy. A file with holes is stored sparse (GNU's pax sparse format,
  /// which GNU tar, Python's tarfile and libarchive read): only its data regions are read and
  /// stored, and its holes are hashed as zeros without being read (`FileDigest`), so the work
  /// is bounded by its data.
  private func copyFile(
    _ file: SaveFileReading, entry: LibArchiveEntry, writer: LibArchiveHandle, outputName: String,
    buffer: UnsafeMutableRawPointer, writeback: Writeback?
  ) throws -> (Int64, String) {
    let size = file.size
    let regions = try file.dataRegions()
    try writeRegularHeader(
      entry.pointer, size: size, modifiedNs: file.modifiedNs, writer, outputName, dataRegions: regions)
    // Large blocks are hashed on a second thread while libarchive writes them.
    let hash = OverlappedDigest([FileDigest(size: size)])
    defer { hash.wait() }  // never leave a block in flight when the buffer is reused or freed
    var zeros: ZeroPages?  // made at the first hole only: most files have none
    for (span, isData) in Self.spans(regions ?? [0..<size], size: size) {
      if isData { try file.seek(to: span.lowerBound) }
      var remaining = span.upperBound - span.lowerBound
      while remaining > 0 {
        hash.wait()
        let count: Int
        if isData {
          count = try file.readChunk(into: buffer, count: Int(min(Int64(bufferSize), remaining)))
          hash.update(buffer, count: count)
          guard archive_write_data(writer.pointer, buffer, count) == count else {
            throw outputError(writer, outputName)
          }
          writeback?.add(count)
        } else {
          // libarchive's pax writer takes a sparse file's holes as data it drops unread: they
          // are handed over as pages of zeros that take no memory, a GiB at a time.
          let pages = zeros ?? ZeroPages()
          zeros = pages
          count = Int(min(Int64(pages.count), remaining))
          hash.addZeros(Int64(count))
          guard archive_write_data(writer.pointer, pages.bytes, count) == count else {
            throw outputError(writer, outputName)
          }
        }
        remaining -= Int64(count)
        try meter?.add(Int64(count))
      }
    }
    try file.checkUnchanged()
    let digest = hash.finalize()[0]
    try file.checkSameAgain(digest: digest)
    return (size, digest)
  }

  /// `0..<size` cut into the data regions and the holes between them, in order.
  static func spans(_ regions: [Range<Int64>], size: Int64) -> [(Range<Int64>, isData: Bool)] {
    var spans: [(Range<Int64>, isData: Bool)] = []
    var position: Int64 = 0
    for region in regions {
      if position < region.lowerBound { spans.append((position..<region.lowerBound, false)) }
      spans.append((region, true))
      position = region.upperBound
    }
    if position < size { spans.append((position..<size, false)) }
    return spans
  }

  private func writeMetadataFile(
    _ path: String, _ data: Data, _ writer: LibArchiveHandle, _ outputName: String
  ) throws {
    let entry = LibArchiveEntry()
    archive_entry_set_pathname_utf8(entry.pointer, path)
    archive_entry_set_perm(entry.pointer, 0o644)
    try writeRegularHeader(
      entry.pointer, size: Int64(data.count), modifiedNs: header.createdMs &* 1_000_000, writer, outputName)
    try data.withUnsafeBytes { try writeWhole($0, writer, outputName) }
  }

  /// Writes the header of a regular file of `size` bytes modified at `modifiedNs` (the
  /// entry's path and permissions already set), sparse when `dataRegions` are given.
  private func writeRegularHeader(
    _ e: OpaquePointer, size: Int64, modifiedNs: Int64, _ writer: LibArchiveHandle, _ outputName: String,
    dataRegions: [Range<Int64>]? = nil
  ) throws {
    archive_entry_set_filetype(e, SV_AE_IFREG)
    archive_entry_set_size(e, size)  // before the sparse map, which must fit in it
    for region in dataRegions ?? [] {
      archive_entry_sparse_add_entry(e, region.lowerBound, region.upperBound - region.lowerBound)
    }
    // A file that is one hole: an empty region at its end makes the entry sparse all the same.
    if dataRegions?.isEmpty == true { archive_entry_sparse_add_entry(e, size, 0) }
    Self.setModified(e, modifiedNs)
    guard archive_write_header(writer.pointer, e) >= ARCHIVE_WARN else {
      throw outputError(writer, outputName)
    }
  }

  private static func setModified(_ e: OpaquePointer, _ modifiedNs: Int64) {
    archive_entry_set_mtime(
      e, time_t(floorDiv(modifiedNs, 1_000_000_000)), Int(floorMod(modifiedNs, 1_000_000_000)))
  }

  /// Writes a whole file's bytes after its header.
  private func writeWhole(_ bytes: UnsafeRawBufferPointer, _ writer: LibArchiveHandle, _ outputName: String)
    throws
  {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
    guard archive_write_data(writer.pointer, base, bytes.count) == bytes.count else {
      throw outputError(writer, outputName)
    }
  }

  private func outputError(_ writer: LibArchiveHandle, _ outputName: String) -> ArchiveError {
    let code = writer.errorNumber
    if code == ENOSPC || code == EDQUOT { return .noSpace(path: outputName) }
    return .writeFailed(path: outputName, reason: writer.errorText)
  }
}

/// Starts the disk writing a file every `stride` bytes written to it, and the rest once it is
/// complete (`fd` may be any descriptor of the file).
final class Writeback {
  static let stride = 8 << 20
  /// The smallest file worth a call of its own: the disk writes smaller ones in the flush that
  /// follows, with the folders.
  static let smallest = 256 << 10
  let fd: Int32
  private var unflushed = 0

  init(fd: Int32) { self.fd = fd }

  func add(_ count: Int) {
    unflushed += count
    if unflushed >= Self.stride {
      Platform.startWriteback(fd)
      unflushed = 0
    }
  }

  /// Starts writing what `add` has not started yet: the file is complete.
  func finish() {
    if unflushed > 0 {
      Platform.startWriteback(fd)
      unflushed = 0
    }
  }
}
