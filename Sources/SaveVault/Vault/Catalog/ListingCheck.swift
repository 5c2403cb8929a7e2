extension Vault {
  /// The game's archives, newest first, refusing a listing that cannot be complete: one that
  /// lacks the archive this device last agreed on and everything newer than it. Archives are
  /// only ever added, and prune never removes the newest archive of any device, so such a
  /// listing is cut short, stale, or of the wrong place (a misspelled path that lists as
  /// empty), and reading it as "the cloud has less" would upload or restore in the wrong
  /// direction. Throws `ContainerError.unavailable` then.
  func listArchives(_ target: Target, container: any Container, record: Agreement?) throws
    -> [StoredArchive]
  {
    let archives = try container.archivesNewestFirst(game: target.game)
    guard let record, let agreedMs = ArchiveName(parsing: record.archive)?.createdMs,
      !archives.contains(where: { $0.name == record.archive }),
      (archives.first?.modifiedMs ?? Int64.min) < agreedMs
    else { return archives }
    throw ContainerError.unavailable(
      container: target.containerURL,
      reason:
        "its listing lacks '\(record.archive)', which this device last agreed on, and anything newer, so it looks incomplete; nothing was changed. Check the container ('savevault list' shows what it lists); if its archives were removed on purpose, 'savevault backup --force' uploads the local save anew"
    )
  }
}
