import CLibArchive
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Verified, secure extraction of an archive into a fresh staging directory.
///
/// Every entry is checked in Swift before libarchive sees it (clean relative path; file,
/// folder, inside symlink or hardlink to a file already extracted; nothing under a symlink or
/// a file; a path twice by its last entry, as tar does, never a folder and a file; no malformed
/// header; setuid/setgid/sticky cleared; caps on entries, depth and bytes, and on the tar
/// stream itself, so a decompression bomb is refused), then written by libarchive with its
/// secure flags, hashing file data on the way (`FileDigest`: a sparse file's holes are written
/// as holes and hashed without being read, so the work is bounded by the data). The tar stream
/// is read through what its content is compressed with (`ArchiveEncoding`). A SaveVault
/// archive must end with a manifest that matches every extracted byte, and be a save of the
/// game it is read for (`game`). Any failure throws
/// `ArchiveError.refused` (`.noSpace` when the content does
/// not fit `freeSpace`); the caller then removes the staging directory.
///
/// Without a staging directory the same checks run and nothing is written: that is `verify`,
/// and what the fuzz target drives.
struct Extractor {
  var limits = ExtractionLimits()
  /// The free space of the staging directory's disk, when extracting: each file must fit.
  var freeSpace: FreeSpace?
  /// Told of the archive bytes read (compressed or not) after every block of file data.
  var meter: ProgressMeter?
  /// The game the archive must be a save of: one whose header names another game
  /// (`ArchiveHeader.isOf`) is refused as soon as its header is read. Nil: any game (an
  /// archive read for itself, such as the fuzz target's).
  var game: String?

  /// What an extraction produced.
  struct Extraction {
    var header: ArchiveHeader?
    var manifest: Manifest?
    /// What was extracted, with content hashes.
    var entries: [ManifestEntry]
    /// True when a manifest vouched for every byte; false for a plain tar from another tool.
    var isVerified: Bool { manifest != nil }
  }

  static let diskFlags: Int32 =
    ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT
    | ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS | ARCHIVE_EXTRACT_NO_OVERWRITE

  /// Checks the archive at `fd` and, when `staging` is given, extracts it there.
  func extract(fd: Int32, archiveName: String, into staging: String?) throws -> Extraction {
    func refuse(_ reason: String) -> ArchiveError { .refused(archive: archiveName, reason: reason) }
    // 1 MiB reads: large blocks, each hashed on the second thread while it is written.
    let reader = try ArchiveEncoding.openReader(fd: fd, archiveName: archiveName, blockSize: 1 << 20)
    guard let staging else { return try run(reader: reader, disk: nil, refuse: refuse) }
    guard let disk = LibArchiveHandle(archive_write_disk_new, free: archive_write_free) else {
      throw ArchiveError.writeFailed(path: staging, reason: "libarchive: out of memory")
    }
    archive_write_disk_set_options(disk.pointer, Self.diskFlags)
    // libarchive resolves relative entry paths against the working directory.
    do {
      return try Platform.withWorkingDirectory(staging) {
        try run(reader: reader, disk: disk, refuse: refuse)
      }
    } catch let error as SystemError where error.path == staging {
      throw ArchiveError.writeFailed(path: staging, reason: Platform.describe(errno: error.code))
    }
  }

  /// Reads every entry, checks it, and writes it through `disk` (relative to the working
  /// directory) when there is one.
  private func run(reader: LibArchiveHandle, disk: LibArchiveHandle?, refuse: (String) -> ArchiveError) throws
    -> Extraction
  {
    let r = reader.pointer

    var state = State(limits: limits, freeSpace: freeSpace)
    var entryIndex = 0
    while true {
      if entryIndex > 0 { try drain(reader, entries: entryIndex, refuse: refuse) }
      var entryPointer: OpaquePointer?
      let status = archive_read_next_header(r, &entryPointer)
      if status == ARCHIVE_EOF { break }
      guard status >= ARCHIVE_WARN, let e = entryPointer else {
        throw refuse("the archive is corrupt or truncated (\(reader.errorText))")
      }
      defer { entryIndex += 1 }
      // libarchive only warns about a malformed pax header, and reads on without it; GNU tar
      // and Python's tarfile refuse such an archive, and so does SaveVault. A name libarchive
      // cannot convert is no such warning: names are read as their bytes (`Extractor.name`).
      if status == ARCHIVE_WARN && !reader.errorText.contains("can't be converted") {
        throw refuse("a header is malformed (libarchive: \(reader.errorText))")
      }
      try checkStream(reader, entries: entryIndex + 1, refuse: refuse)
      if state.manifest != nil { throw refuse("entries follow the manifest") }
      let raw = Self.name(archive_entry_pathname(e), archive_entry_pathname_utf8(e)) ?? ""
      let path: String
      switch EntryPolicy.check(path: raw) {
      case .refused(let reason): throw refuse(reason)
      case .root: continue
      case .accepted(let clean): path = clean
      }
      if path == reservedFolder || path.hasPrefix(reservedFolder + "/") {
        try readMetadata(path: path, isFirst: entryIndex == 0, reader: reader, state: &state, refuse: refuse)
        continue
      }
      let (kind, replaces) = try state.admit(path: path, entry: e, refuse: refuse)
      // A later entry of a path replaces the earlier one, as tar extracts an archive appended to.
      if replaces, disk != nil, RawName.withCString(path, { unlink($0) }) != 0 {
        throw ArchiveError.writeFailed(path: path, reason: Platform.describe(errno: errno))
      }
      let stamp = ManifestEntry(path: path, kind: .file).stamped(from: e)
      func record(_ entry: ManifestEntry) {
        var entry = entry
        entry.mode = stamp.mode
        entry.modifiedNs = stamp.modifiedNs
        state.extracted.append(entry)
      }
      RawName.withCString(path) { archive_entry_copy_pathname(e, $0) }
      archive_entry_set_perm(e, Self.usableMode(UInt32(archive_entry_perm(e)), kind: kind.entryKind))
      archive_entry_set_uid(e, 0)
      archive_entry_set_gid(e, 0)
      if case .hardlink(let target) = kind {
        RawName.withCString(target) { archive_entry_copy_hardlink(e, $0) }
      }
      // A file that is not sparse is as long as its data. libarchive takes a GNU header's
      // `realsize` field for the size whatever the entry's type (Go's nil-uid.tar has other
      // digits there: 2,176 bytes for a file of 14), and the disk writer would extend the file
      // to it; GNU tar, tarfile and Go read the size field, which is what the data is.
      let declaredSize = archive_entry_size(e)
      let isSparse = archive_entry_sparse_count(e) > 0
      if case .file = kind, !isSparse { archive_entry_unset_size(e) }
      if let disk, archive_write_header(disk.pointer, e) < ARCHIVE_WARN { throw diskError(disk, refuse) }
      switch kind {
      case .file(let dataBytes):
        let (size, digest, bytesDigest) = try copyData(
          reader: reader, disk: disk, path: path, declaredSize: declaredSize, dataBytes: dataBytes,
          isSparse: isSparse, hashesBytes: state.hashesBytes, refuse: refuse)
        record(ManifestEntry(path: path, kind: .file, size: size, sha256: digest))
        state.fileHashes[path] = (size, digest)
        state.bytesHashes[path] = bytesDigest
      case .hardlink(let target):
        let (size, digest) = state.fileHashes[target] ?? (0, "")
        record(ManifestEntry(path: path, kind: .file, size: size, sha256: digest))
        state.fileHashes[path] = (size, digest)
        state.bytesHashes[path] = state.bytesHashes[target]
      case .directory:
        record(ManifestEntry(path: path, kind: .directory))
      case .symlink(let target):
        record(ManifestEntry(path: path, kind: .symlink, target: target))
      }
      if let disk {
        let finished = archive_write_finish_entry(disk.pointer)
        if finished < ARCHIVE_WARN || (finished != ARCHIVE_OK && Self.isOutOfSpace(disk.errorNumber)) {
          throw diskError(disk, refuse)
        }
      }
    }
    if let disk {
      guard archive_write_close(disk.pointer) >= ARCHIVE_WARN else { throw diskError(disk, refuse) }
      // Without ARCHIVE_EXTRACT_PERM libarchive applies the umask; put back the archive's
      // permission bits (setuid, setgid and sticky stay cleared), with what the owner needs.
      // Nothing here is a symlink's target outside: entries under symlinks were refused.
      for entry in state.extracted where entry.kind != .symlink {
        if let mode = entry.mode,
          RawName.withCString(entry.path, { chmod($0, mode_t(Self.usableMode(mode, kind: entry.kind))) }) != 0
        {
          throw ArchiveError.writeFailed(path: entry.path, reason: Platform.describe(errno: errno))
        }
      }
    }
    if state.header == nil && state.extracted.isEmpty {
      throw refuse("it holds nothing to restore")
    }
    if let header = state.header {
      guard let manifest = state.manifest else {
        throw refuse("its manifest is missing: the archive is truncated")
      }
      guard manifest.game == header.game, manifest.device == header.device,
        manifest.createdMs == header.createdMs
      else { throw refuse("its manifest does not belong to its header") }
      // A manifest of an earlier format lists a large file by its bytes' SHA-256.
      let checked = state.extracted.map { entry in
        var entry = entry
        entry.sha256 = state.bytesHashes[entry.path] ?? entry.sha256
        return entry
      }
      if let mismatch = Self.firstMismatch(extracted: checked, manifest: manifest.entries) {
        throw refuse(mismatch)
      }
      guard manifest == Manifest(header: header, entries: manifest.entries) else {
        throw refuse("its manifest's totals do not match its entries (the archive is corrupt)")
      }
      if disk != nil { state.extracted = try NameSpelling.restore(state.extracted, as: manifest.entries) }
    }
    return Extraction(header: state.header, manifest: state.manifest, entries: state.extracted)
  }

  /// The first difference between what was extracted and what the manifest lists, or nil.
  static func firstMismatch(extracted: [ManifestEntry], manifest: [ManifestEntry]) -> String? {
    var expected: [String: ManifestEntry] = [:]
    for entry in manifest where expected.updateValue(entry, forKey: entry.path) != nil {
      return "'\(entry.path)' is listed twice in its manifest"
    }
    for entry in extracted {
      guard let listed = expected.removeValue(forKey: entry.path) else {
        return "'\(entry.path)' is not in its manifest"
      }
      if listed.kind != entry.kind {
        return "'\(entry.path)' is a \(entry.kind.rawValue), its manifest says \(listed.kind.rawValue)"
      }
      if listed.size != entry.size {
        return "'\(entry.path)' has \(entry.size ?? 0) bytes, its manifest says \(listed.size ?? 0)"
      }
      if listed.sha256 != entry.sha256 {
        return "'\(entry.path)' does not match its checksum (the archive is corrupt)"
      }
      if listed.target != entry.target { return "symlink '\(entry.path)' does not match its manifest" }
      // Manifests of the first format version lack modes and times; compare what they list.
      if listed.mode.map({ $0 != entry.mode }) == true
        || listed.modifiedNs.map({ $0 != entry.modifiedNs }) == true
      {
        return "the mode or time of '\(entry.path)' does not match its manifest (the archive is corrupt)"
      }
    }
    if let missing = expected.keys.sorted().first {
      return "'\(missing)' is in its manifest but not in the archive (truncated?)"
    }
    return nil
  }

  private func readMetadata(
    path: String, isFirst: Bool, reader: LibArchiveHandle, state: inout State,
    refuse: (String) -> ArchiveError
  ) throws {
    if path == ArchiveHeader.path && isFirst {
      let data = try readSmall(reader: reader, cap: 1 << 16, refuse: refuse)
      guard let header = try? JSONDecoder().decode(ArchiveHeader.self, from: data) else {
        throw refuse("its header is not valid")
      }
      if let newer = header.newerFormatRefusal { throw refuse(newer) }
      if let game, let reason = header.refusal(asSaveOf: game) { throw refuse(reason) }
      state.header = header
    } else if path == Manifest.path && state.header != nil {
      let data = try readSmall(reader: reader, cap: 256 << 20, refuse: refuse)
      guard let manifest = try? ManifestJSON.decode(data) else {
        throw refuse("its manifest is not valid")
      }
      state.manifest = manifest
    }
  }

  private func readSmall(reader: LibArchiveHandle, cap: Int, refuse: (String) -> ArchiveError) throws -> Data
  {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = archive_read_data(reader.pointer, &buffer, buffer.count)
      if count == 0 { return data }
      guard count > 0 else { throw refuse("the archive is corrupt or truncated (\(reader.errorText))") }
      data.append(contentsOf: buffer[0..<count])
      if data.count > cap { throw refuse("its SaveVault metadata is implausibly large") }
    }
  }

  /// Copies one file's data blocks to disk at their offsets, so that a sparse file's holes stay
  /// holes, hashing them (`FileDigest`: holes count as zeros and are never read; a sparse file
  /// ends at its declared size, another file with its data); returns the size, the file's hash
  /// and, with `hashesBytes` for a file hashed by chunks, its bytes' SHA-256 too (what a
  /// manifest of an earlier format lists). At most `dataBytes` of data are taken (what the
  /// entry declared, and the limits counted). Large blocks are hashed on a second thread while
  /// they are written. A file of some size (`path`,
  /// relative to the working directory, `declaredSize` bytes) has its writeback started on the
  /// way and once complete (`Writeback`): the disk writes while the next files are extracted,
  /// so that the flush before the swap has little left to wait for.
  private func copyData(
    reader: LibArchiveHandle, disk: LibArchiveHandle?, path: String, declaredSize: Int64, dataBytes: Int64,
    isSparse: Bool, hashesBytes: Bool, refuse: (String) -> ArchiveError
  ) throws -> (Int64, String, String?) {
    let digest = FileDigest(size: isSparse ? declaredSize : dataBytes)
    let bytesDigest =
      hashesBytes && digest.scheme != .bytes
      ? FileDigest(size: isSparse ? declaredSize : dataBytes, scheme: .bytes) : nil
    let hash = OverlappedDigest([digest] + (bytesDigest.map { [$0] } ?? []))
    defer { hash.wait() }  // never leave a block in flight when libarchive reuses its buffer
    let written =
      disk != nil && dataBytes >= Writeback.smallest
      ? RawName.withCString(path) { open($0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) } : -1
    defer { if written >= 0 { close(written) } }
    let writeback = written >= 0 ? Writeback(fd: written) : nil
    var position: Int64 = 0
    var taken: Int64 = 0
    while true {
      hash.wait()  // the block handed over last lives in libarchive's buffer
      guard let (block, size, offset) = try nextBlock(reader, refuse: refuse) else { break }
      // A sparse map whose regions go back or past the end would make the hash describe other
      // bytes than those on disk.
      guard offset >= position, offset <= declaredSize - Int64(size) else {
        throw refuse("the data of '\(path)' is out of order or past its size (the archive is corrupt)")
      }
      hash.addZeros(offset - position)
      position = offset
      if let block, size > 0 {
        taken += Int64(size)
        guard taken <= dataBytes else {
          throw refuse("'\(path)' holds more data than its header declares (the archive is corrupt)")
        }
        hash.update(block, count: size)
        // A failed write (ENOSPC, EIO) is only ARCHIVE_WARN here: anything but OK is a failure.
        if let disk, archive_write_data_block(disk.pointer, block, size, offset) != ARCHIVE_OK {
          throw diskError(disk, refuse)
        }
        position = offset + Int64(size)
        writeback?.add(size)
        try meter?.reach(archive_filter_bytes(reader.pointer, -1))  // archive bytes, compressed or not
      }
    }
    if isSparse { hash.addZeros(declaredSize - position) }  // a sparse file may end in a hole
    writeback?.finish()
    let values = hash.finalize()
    return (isSparse ? declaredSize : position, values[0], values.count > 1 ? values[1] : nil)
  }

  /// The permission bits an entry of `mode` is restored with: the archive's (setuid, setgid
  /// and sticky cleared), plus read, write and search on a folder and read on a file for the
  /// owner. A save its owner cannot read could be neither backed up nor checked nor set aside
  /// again (an archive from another tool may hold a folder of mode 000); a file the archive
  /// makes read-only stays read-only.
  static func usableMode(_ mode: UInt32, kind: EntryKind) -> UInt32 {
    switch kind {
    case .directory: mode & 0o777 | 0o700
    case .file: mode & 0o777 | 0o400
    case .symlink: mode & 0o777
    }
  }

  /// A name from an entry (path, symlink or hardlink target) in `RawName`'s mapping: its bytes
  /// as the system would write them (`raw`, libarchive's multibyte form, which is the pax
  /// header's bytes under `hdrcharset=BINARY` and UTF-8 otherwise), else its UTF-8 form.
  static func name(_ raw: UnsafePointer<CChar>?, _ utf8: @autoclosure () -> UnsafePointer<CChar>?) -> String?
  {
    (raw ?? utf8()).map(RawName.string(cString:))
  }

  private static func isOutOfSpace(_ code: Int32) -> Bool { code == ENOSPC || code == EDQUOT }

  private func diskError(_ disk: LibArchiveHandle, _ refuse: (String) -> ArchiveError) -> ArchiveError {
    let code = disk.errorNumber
    if Self.isOutOfSpace(code) { return .noSpace(path: "the save directory's disk") }
    return refuse("it cannot be extracted safely (\(disk.errorText))")
  }
}

/// What the extractor has seen so far, and the checks that need it.
private struct State {
  var limits: ExtractionLimits
  var header: ArchiveHeader?
  var manifest: Manifest?
  var extracted: [ManifestEntry] = []
  /// What each path extracted so far is.
  var seen: [String: EntryKind] = [:]
  var symlinks: Set<String> = []
  var files: Set<String> = []
  var fileHashes: [String: (Int64, String)] = [:]
  /// The bytes' SHA-256 of files hashed by chunks, in an archive of an earlier format.
  var bytesHashes: [String: String] = [:]
  /// What the limits count: the bytes hashed (a file's size, or its data when its holes are
  /// hashed without being read).
  var totalBytes: Int64 = 0
  /// What the files take on the disk written to.
  var diskBytes: Int64 = 0
  var freeSpace: FreeSpace?

  /// Whether large files are checked against their bytes' SHA-256: an archive of a format
  /// before `ArchiveHeader.chunkedFormat`, whose manifest lists them so.
  var hashesBytes: Bool { header.map { $0.format < ArchiveHeader.chunkedFormat } ?? false }

  enum Kind {
    /// A file that declares `dataBytes` of data (less than its size when it is sparse).
    case file(dataBytes: Int64)
    case directory
    case symlink(String)
    case hardlink(String)

    /// What the entry is once extracted (a hardlink is a file).
    var entryKind: EntryKind {
      switch self {
      case .file, .hardlink: .file
      case .directory: .directory
      case .symlink: .symlink
      }
    }
  }

  init(limits: ExtractionLimits, freeSpace: FreeSpace?) {
    self.limits = limits
    self.freeSpace = freeSpace
  }

  /// Decides whether an entry may be extracted, and as what; `replaces` when it takes the
  /// place of an earlier entry of its path, which the caller removes from the disk.
  mutating func admit(path: String, entry e: OpaquePointer, refuse: (String) -> ArchiveError) throws
    -> (kind: Kind, replaces: Bool)
  {
    guard seen.count < limits.maxEntries else {
      throw refuse("it has more than \(limits.maxEntries) entries")
    }
    let depth = path.split(separator: "/").count
    guard depth <= limits.maxDepth else {
      throw refuse("'\(path.prefix(80))…' is nested deeper than \(limits.maxDepth) levels")
    }
    for ancestor in EntryPolicy.ancestors(of: path) {
      if symlinks.contains(ancestor) {
        throw refuse("'\(path)' would be written through the symlink '\(ancestor)'")
      }
      if files.contains(ancestor) { throw refuse("'\(path)' would be written under the file '\(ancestor)'") }
    }
    let kind = try kind(of: e, path: path, refuse: refuse)
    let replaces = try replaceEarlier(path, with: kind.entryKind, refuse: refuse)
    switch kind {
    case .file, .hardlink: files.insert(path)
    case .symlink: symlinks.insert(path)
    case .directory: break
    }
    return (kind, replaces)
  }

  /// A path seen before takes its later entry, as tar extracts an archive appended to
  /// (`tar -r`, `tar -u`): a file, symlink or hardlink replaces another of these (the earlier
  /// one forgotten here; true: the caller removes it from the disk), a folder takes a later
  /// folder entry's mode and time. A folder and anything else under one path are refused.
  private mutating func replaceEarlier(_ path: String, with kind: EntryKind, refuse: (String) -> ArchiveError)
    throws -> Bool
  {
    guard let earlier = seen.updateValue(kind, forKey: path) else { return false }
    guard (earlier == .directory) == (kind == .directory) else {
      throw refuse("'\(path)' is a \(earlier.rawValue) and then a \(kind.rawValue)")
    }
    files.remove(path)
    symlinks.remove(path)
    fileHashes[path] = nil
    extracted.removeAll { $0.path == path }
    return kind != .directory
  }

  /// What the entry `e` at `path` is, checked against the limits and the entries before it.
  private mutating func kind(of e: OpaquePointer, path: String, refuse: (String) -> ArchiveError) throws
    -> Kind
  {
    if let link = Extractor.name(archive_entry_hardlink(e), archive_entry_hardlink_utf8(e)) {
      guard case .accepted(let target) = EntryPolicy.check(path: link), target != path, files.contains(target)
      else {
        throw refuse("hardlink '\(path)' points to '\(link)', which is not a file extracted before it")
      }
      return .hardlink(target)
    }
    let type = UInt32(archive_entry_filetype(e))
    switch type {
    case SV_AE_IFREG:
      let size = archive_entry_size(e)
      guard size >= 0 else { throw refuse("'\(path)' declares a negative size") }
      let data = Self.dataBytes(e, size: size)
      let hashed = FileDigest.scheme(size: size) == .chunks && !hashesBytes ? data : size
      guard hashed <= limits.maxTotalBytes - totalBytes else {
        throw refuse("it declares more than \(limits.maxTotalBytes) bytes of content")
      }
      totalBytes += hashed
      diskBytes += freeSpace?.keepsHoles == true ? data : size
      try freeSpace?.check(total: diskBytes)
      return .file(dataBytes: data)
    case SV_AE_IFDIR:
      return .directory
    case SV_AE_IFLNK:
      let target = Extractor.name(archive_entry_symlink(e), archive_entry_symlink_utf8(e)) ?? ""
      guard SymlinkPolicy.staysInside(linkPath: path, target: target) else {
        throw refuse("symlink '\(path)' points to '\(target)', outside the save directory")
      }
      return .symlink(target)
    default:
      throw refuse("'\(path)' is a device, FIFO or socket")
    }
  }

  /// The data a file entry of `size` bytes declares: the sum of its sparse map's regions
  /// (at most its size), or its size when it has none.
  static func dataBytes(_ e: OpaquePointer, size: Int64) -> Int64 {
    guard archive_entry_sparse_reset(e) > 0 else { return size }
    var total: Int64 = 0
    var offset: la_int64_t = 0
    var length: la_int64_t = 0
    while archive_entry_sparse_next(e, &offset, &length) == ARCHIVE_OK {
      guard length >= 0, Int64(length) <= size - total else { return size }
      total += Int64(length)
    }
    return total
  }
}
