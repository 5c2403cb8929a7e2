import CLibArchive

extension ExtractionLimits {
  /// The most bytes of tar stream (after decompression) an archive with `entries` entries
  /// read so far may hold: the content cap, 1 MiB, and 64 KiB of headers and manifest per
  /// entry. A stream past it declares data nobody extracts (a decompression bomb hides there:
  /// a few KiB of zstd that unpack to terabytes of padding), and is refused at once.
  func maxStreamBytes(entries: Int) -> Int64 {
    let overhead = Int64(1 << 20) + Int64(entries) * (64 << 10)
    return maxTotalBytes > Int64.max - overhead ? Int64.max : maxTotalBytes + overhead
  }
}

/// The free space of the disk an extraction writes to, measured before it starts. What every
/// file takes on the disk (its declared size, or for a sparse file on a disk that keeps holes,
/// its declared data) is checked against it before the file is written, so an archive whose
/// content does not fit (a compressed one says its size only entry by entry) is refused
/// before the disk fills.
struct FreeSpace: Equatable {
  /// The folder whose disk it is, for the message.
  var path: String
  var bytes: Int64
  /// Whether the disk keeps a file's holes as holes (`Platform.keepsHoles`): then a sparse
  /// file takes only its data, else its whole size.
  var keepsHoles = false
  /// Room kept free for folders, inodes and everything else on the disk: an eighth of what
  /// is free, at most 16 MiB (a small SD card or tmpfs can still take a small save).
  var margin: Int64 { min(16 << 20, bytes / 8) }

  /// Throws `.tooLittleSpace` unless `total` bytes of content fit with the margin to spare.
  func check(total: Int64) throws {
    guard total <= bytes - margin else {
      throw ArchiveError.tooLittleSpace(path: path, needed: total, free: bytes, kept: margin)
    }
  }
}

extension Extractor {
  /// Refuses the archive once its tar stream is past what `entries` entries may hold.
  func checkStream(_ reader: LibArchiveHandle, entries: Int, refuse: (String) -> ArchiveError) throws {
    let limit = limits.maxStreamBytes(entries: entries)
    guard archive_filter_bytes(reader.pointer, 0) <= limit else {
      throw refuse(
        "it unpacks to more than \(limit) bytes, more than its entries may hold under the limits (a decompression bomb?)"
      )
    }
  }

  /// Reads and drops what is left of the current entry's data (a folder or link that declares
  /// data, the archive's root, an unknown SaveVault file), checking the stream on the way,
  /// so that libarchive never skips (and so decompresses) an unbounded amount by itself.
  func drain(_ reader: LibArchiveHandle, entries: Int, refuse: (String) -> ArchiveError) throws {
    while try nextBlock(reader, refuse: refuse) != nil {
      try checkStream(reader, entries: entries, refuse: refuse)
    }
  }

  /// The current entry's next data block (its bytes, their count and their offset in the
  /// file), or nil at the entry's end. A read error refuses the archive.
  func nextBlock(_ reader: LibArchiveHandle, refuse: (String) -> ArchiveError) throws
    -> (block: UnsafeRawPointer?, size: Int, offset: Int64)?
  {
    var block: UnsafeRawPointer?
    var size = 0
    var offset: la_int64_t = 0
    let status = archive_read_data_block(reader.pointer, &block, &size, &offset)
    if status == ARCHIVE_EOF { return nil }
    guard status >= ARCHIVE_WARN else {
      throw refuse("the archive is corrupt or truncated (\(reader.errorText))")
    }
    return (block, size, Int64(offset))
  }
}
