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
    let deadline: TimeInterval
    switch refresh {
    case .never: return (.skipped, nil)
    case .force: deadline = LocationManifestRefresh.forcedDeadline
    case .ifStale(let limit):
      if let state, exists, now - state.checkedMs < Self.dayMs { return (.skipped, nil) }
      if let failed = state?.failedMs, now - failed < Self.retryAfterFailureMs { return (.skipped, nil) }
      deadline = limit
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
  /// try), waiting at most `deadline` seconds: what a game-launching command uses.
  case ifStale(deadline: TimeInterval)
  /// Download again now (`manifest update`), waiting up to `forcedDeadline`.
  case force

  /// What a command that launches a game waits at most.
  public static let launch = LocationManifestRefresh.ifStale(deadline: 2)
  /// How long `force` waits.
  public static let forcedDeadline: TimeInterval = 120
}
