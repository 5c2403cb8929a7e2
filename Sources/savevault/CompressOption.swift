import SaveVault

extension Commands {
  /// `--compress zstd|none` (backup, sync, wrap), or nil when not given.
  func compression() throws(UsageError) -> ArchiveCompression? {
    guard let text = arguments.options["compress"] else { return nil }
    guard let compression = ArchiveCompression(rawValue: text) else {
      throw UsageError(
        message: "--compress must be one of \(ArchiveCompression.settings), not '\(text)'",
        command: arguments.command)
    }
    return compression
  }
}

extension Help {
  /// The `--compress` lines of backup's, sync's and wrap's help.
  static let compress = """
      --compress KIND
                 none (a plain .tar, the default) or zstd (a smaller .tar.zst); default:
                 the game's or the config file's "compress"
    """
}
