import Testing

/// Each suite's size, by what it needs (`scripts/test.sh --quick` runs the small ones).
extension Tag {
  /// In-process: the library's types on temporary folders; no binary, no server.
  @Tag static var small: Self
  /// Runs the built binary (and tools such as tar or python3) in a sandbox.
  @Tag static var medium: Self
  /// Servers (S3, rclone, a manifest server), the simulation, dialogs under Xvfb, kills and
  /// signals, mounted disks: slow, or needing more of the machine.
  @Tag static var large: Self
}
