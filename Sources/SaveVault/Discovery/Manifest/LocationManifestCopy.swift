import Foundation

/// A manifest kept in the cache from a URL, with Ludusavi's update rules: checked at most once
/// a day, `If-None-Match` sent only with an ETag and the file present, 304 only marks it
/// checked, a 200 body parsed whole before it atomically replaces the copy, and any failure
/// keeps the copy. Its state (`<file>.state.json`) says which URL it came from and when.
struct LocationManifestCopy {
  /// What the state file records.
  struct State: Codable, Equatable {
    var url: String
    var etag: String?
    /// When the server was last asked and answered (200 or 304).
    var checkedMs: Int64
    /// When the copy was last replaced.
    var updatedMs: Int64
    /// When a download last failed: a launch does not try again for an hour.
    var failedMs: Int64?
  }

  /// What a refresh did.
  enum Outcome: Equatable {
    /// Not asked for, or checked less than a day ago.
    case skipped
    /// 304: the copy is current.
    case unchanged
    /// 200: the copy was replaced; the games it holds, already parsed.
    case updated(gameCount: Int)
    /// The download failed; the copy (if any) is kept.
    case failed(String)
  }

  static let dayMs: Int64 = 24 * 3600 * 1000
  static let retryAfterFailureMs: Int64 = 3600 * 1000

  var url: String
  var file: String
  /// What an HTTPS server is checked against.
  var certificates: CertificateBundle
  var stateFile: String { file + ".state.json" }

  /// The state of this copy: nil when none is recorded or it is of another URL.
  var state: State? {
    guard let data = FileManager.default.contents(atPath: stateFile),
      let state = try? JSONDecoder().decode(State.self, from: data), state.url == url
    else { return nil }
    return state
  }

  var exists: Bool { FileManager.default.fileExists(atPath: file) }

  /// Downloads the manifest again as `refresh` says; `now` in ms since the epoch. Never
  /// throws: a failure is an outcome, and the copy stays.
  func refresh(_ refresh: LocationManifestRefresh, now: Int64) -> (Outcome, [LocationManifestGame]?) {
    let state = self.state
    let exists = self.exists
    guard let deadline = deadline(refresh, state: state, exists: exists, now: now) else {
      return (.skipped, nil)
    }
    var next = state ?? State(url: url, etag: nil, checkedMs: 0, updatedMs: 0)
    do {
      switch try LocationManifestDownload.get(
        url: url, etag: exists ? state?.etag : nil, deadline: deadline, certificates: certificates)
      {
      case .notModified:
        guard exists else { throw DownloadFailure(reason: "HTTP 304 with no copy to keep") }
        next.checkedMs = now
        next.failedMs = nil
        save(next)
        return (.unchanged, nil)
      case .body(let body, let etag):
        let games: [LocationManifestGame]
        do {
          games = try LocationManifestReader.games(from: body)
        } catch {
          throw DownloadFailure(reason: "the download is not a manifest: \(error)")
        }
        guard !games.isEmpty else { throw DownloadFailure(reason: "the download holds no games") }
        do {
          try AtomicFile.write(body, to: file)
        } catch {
          throw DownloadFailure(reason: "cannot keep it: \(error)")
        }
        save(State(url: url, etag: etag, checkedMs: now, updatedMs: now))
        return (.updated(gameCount: games.count), games)
      }
    } catch let error as DownloadFailure {
      next.failedMs = now
      save(next)
      return (.failed(error.reason), nil)
    } catch {
      return (.failed(String(describing: error)), nil)
    }
  }

  /// Whether `refresh` would download now (`now` in ms since the epoch).
  func isDue(_ refresh: LocationManifestRefresh, now: Int64) -> Bool {
    deadline(refresh, state: state, exists: exists, now: now) != nil
  }

  /// How long a download as `refresh` says would wait now; nil when it would not download.
  private func deadline(_ refresh: LocationManifestRefresh, state: State?, exists: Bool, now: Int64)
    -> TimeInterval?
  {
    switch refresh {
    case .never: return nil
    case .force: return LocationManifestRefresh.forcedDeadline
    case .ifStale(let limit), .ifMissing(let limit):
      if case .ifMissing = refresh, exists { return nil }
      if let state, exists, now - state.checkedMs < Self.dayMs { return nil }
      if let failed = state?.failedMs, now - failed < Self.retryAfterFailureMs { return nil }
      return limit
    }
  }

  private func save(_ state: State) {
    guard let data = try? JSONEncoder().encode(state) else { return }
    try? AtomicFile.write(data, to: stateFile)
  }
}

/// When the manifest is downloaded again.
public enum LocationManifestRefresh: Sendable, Equatable {
  /// Use the copy there is.
  case never
  /// Download again when the copy was checked over a day ago (not within an hour of a failed
  /// try), waiting at most `deadline` seconds: what `scan` and the refresh in the background
  /// use.
  case ifStale(deadline: TimeInterval)
  /// Download only when there is no copy at all (not within an hour of a failed try), waiting
  /// at most `deadline` seconds: a stale copy is used as it is.
  case ifMissing(deadline: TimeInterval)
  /// Download again now (`manifest update`), waiting up to `forcedDeadline`.
  case force

  /// What a command that may launch a game does: it never waits for a stale copy's download
  /// (`wrap` has it refreshed in a process of its own once the game runs), and waits at most
  /// 2 s for a first copy.
  public static let launch = LocationManifestRefresh.ifMissing(deadline: 2)
  /// What the refresh in the background does.
  public static let background = LocationManifestRefresh.ifStale(deadline: forcedDeadline)
  /// How long `force` waits.
  public static let forcedDeadline: TimeInterval = 120
}
