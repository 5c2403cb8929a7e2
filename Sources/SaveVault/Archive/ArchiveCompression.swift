import CLibArchive

/// How an archive's tar stream is compressed. The name says which: `packsave-….tar` is a
/// plain tar (the default), `packsave-….tar.zst` the same tar compressed with zstd. Readers
/// decide by the name alone and never guess from the content.
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

  /// The compression a file name ends with (`.tar.zst` before `.tar`), or nil for neither.
  public init?(fileName: String) {
    if fileName.hasSuffix(Self.zstd.suffix) {
      self = .zstd
    } else if fileName.hasSuffix(Self.none.suffix) {
      self = .none
    } else {
      return nil
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

  /// Lets a libarchive reader decompress this compression and nothing else; a plain tar
  /// reader gets no decompressor at all. Returns why it cannot, or nil.
  func configure(reader: LibArchiveHandle) -> String? {
    switch self {
    case .none:
      return nil
    case .zstd:
      guard archive_read_support_filter_zstd(reader.pointer) == ARCHIVE_OK else {
        return "this libarchive cannot read zstd by itself (it needs libzstd)"
      }
      return nil
    }
  }

  /// Whether an opened reader really found this compression (a `.tar.zst` must be zstd).
  func matches(reader: LibArchiveHandle) -> Bool {
    switch self {
    case .none: true
    case .zstd: archive_filter_code(reader.pointer, 0) == ARCHIVE_FILTER_ZSTD
    }
  }
}
