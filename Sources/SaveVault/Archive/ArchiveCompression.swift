import CLibArchive

/// How SaveVault writes an archive's tar stream: `packsave-….tar` is a plain tar (the
/// default), `packsave-….tar.zst` the same tar compressed with zstd. What it reads is wider
/// (`ArchiveEncoding`).
public enum ArchiveCompression: String, Sendable, Equatable, CaseIterable {
  case none
  case zstd

  /// The zstd level backups are written with: zstd's own default, fast and already close to
  /// the ratio of much slower levels on save files.
  static let zstdLevel = 3

  /// The end of an archive name with this compression.
  public var suffix: String {
    switch self {
    case .none: ".tar"
    case .zstd: ".tar.zst"
    }
  }

  /// Every spelling `init(rawValue:)` accepts (as `--compress` and the config file's
  /// `compress` take them), for messages.
  public static var settings: String { allCases.map(\.rawValue).joined(separator: ", ") }

  /// Adds this compression to a libarchive writer. zstd must be libarchive's own (linked with
  /// libzstd): its fallback to an outside `zstd` program is refused, as is a level it rejects.
  func configure(writer: LibArchiveHandle) -> String? {
    let a = writer.pointer
    switch self {
    case .none:
      return archive_write_add_filter_none(a) == ARCHIVE_OK ? nil : writer.errorText
    case .zstd:
      guard archive_write_add_filter_zstd(a) == ARCHIVE_OK else {
        return "this libarchive cannot write zstd by itself (it needs libzstd)"
      }
      guard
        archive_write_set_filter_option(a, "zstd", "compression-level", String(Self.zstdLevel)) == ARCHIVE_OK
      else { return writer.errorText }
      return nil
    }
  }
}

/// How a stored archive's tar stream is compressed, as a reader finds it: the two kinds
/// SaveVault writes, and the compressed tars other tools make (`tar -czf`, `-cjf`, `-cJf`).
/// A container lists a `packsave-` file with any of these endings as an archive. The content
/// decides how it is read: a `.tar` holding a gzip, bzip2, xz or zstd stream is read through
/// it; a name that says a compression must hold it (a `.tar.gz` that is not gzip is refused).
public enum ArchiveEncoding: String, Sendable, CaseIterable {
  case plain, gzip, bzip2, xz, zstd

  /// The name endings that say this encoding.
  public var endings: [String] {
    switch self {
    case .plain: [".tar"]
    case .gzip: [".tar.gz", ".tgz"]
    case .bzip2: [".tar.bz2"]
    case .xz: [".tar.xz"]
    case .zstd: [ArchiveCompression.zstd.suffix]
    }
  }

  /// The ending of `fileName` that names an encoding (the longest: `.tar.zst` before `.tar`),
  /// and the encoding; nil when it has none.
  public static func ending(of fileName: String) -> (ending: String, encoding: ArchiveEncoding)? {
    var found: (ending: String, encoding: ArchiveEncoding)?
    for encoding in allCases {
      for ending in encoding.endings
      where fileName.hasSuffix(ending) && ending.count > (found?.ending.count ?? 0) {
        found = (ending, encoding)
      }
    }
    return found
  }

  /// libarchive's code for the filter of this encoding.
  private var filterCode: Int32 {
    switch self {
    case .plain: ARCHIVE_FILTER_NONE
    case .gzip: ARCHIVE_FILTER_GZIP
    case .bzip2: ARCHIVE_FILTER_BZIP2
    case .xz: ARCHIVE_FILTER_XZ
    case .zstd: ARCHIVE_FILTER_ZSTD
    }
  }

  /// Opens a tar reader on the archive `archiveName` at `fd`, with libarchive's own
  /// decompressors for every encoding and no other (never an outside program), reading
  /// `blockSize` bytes at a time. Throws `.writeFailed` when this libarchive lacks a
  /// decompressor (this machine's gap, not a bad archive: exit 1), and `.refused` when the
  /// content is not a tar in one of the encodings, or not in the one its name says.
  static func openReader(fd: Int32, archiveName: String, blockSize: Int) throws -> LibArchiveHandle {
    _ = LibArchiveLocale.ensureUTF8
    guard let reader = LibArchiveHandle(archive_read_new, free: archive_read_free) else {
      throw ArchiveError.refused(archive: archiveName, reason: "libarchive: out of memory")
    }
    let a = reader.pointer
    archive_read_support_format_tar(a)
    let filters: [(ArchiveEncoding, (OpaquePointer?) -> Int32)] = [
      (.gzip, archive_read_support_filter_gzip), (.bzip2, archive_read_support_filter_bzip2),
      (.xz, archive_read_support_filter_xz), (.zstd, archive_read_support_filter_zstd),
    ]
    for (encoding, support) in filters where support(a) != ARCHIVE_OK {
      throw ArchiveError.writeFailed(
        path: archiveName,
        reason:
          "this libarchive cannot read \(encoding.rawValue) by itself; install a libarchive built with it")
    }
    guard archive_read_open_fd(a, fd, blockSize) == ARCHIVE_OK else {
      throw ArchiveError.refused(
        archive: archiveName, reason: "not a readable tar archive (\(reader.errorText))")
    }
    let found = allCases.first { $0.filterCode == archive_filter_code(a, 0) } ?? .plain
    if let named = ending(of: archiveName), named.encoding != .plain, named.encoding != found {
      throw ArchiveError.refused(
        archive: archiveName,
        reason: "its name ends in \(named.ending) but it is not \(named.encoding.rawValue)-compressed")
    }
    return reader
  }
}
