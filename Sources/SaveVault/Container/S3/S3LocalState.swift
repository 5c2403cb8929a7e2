import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What an S3 container keeps on this device (under SaveVault's state folder), so that a
/// request is never made to learn again what is known:
/// - whether the server honours a conditional PUT (`If-None-Match: *`), checked once per
///   server and bucket;
/// - the multipart uploads under way, so that a later upload looks for abandoned ones only
///   when one of this device's was interrupted.
/// Losing either costs a check or leaves parts in the bucket, never a save.
struct S3LocalState: Sendable {
  /// `<state>/s3`.
  let directory: String
  /// The server and bucket (`endpoint bucket`): what the server facts are about.
  let server: String
  /// The server, bucket and prefix: what the upload journal's entries are about.
  let container: String

  /// The state of the container `bucket`/`prefix` at `endpoint` (nil: AWS in `region`), kept
  /// under `stateDirectory` (SaveVault's).
  init(stateDirectory: String, endpoint: String?, region: String, bucket: String, prefix: String) {
    directory = stateDirectory + "/s3"
    server = (endpoint ?? "aws \(region)") + " " + bucket
    container = server + "/" + prefix
  }

  /// What this device learned about a server.
  struct ServerFacts: Codable, Equatable {
    var server: String
    /// Whether a PUT with `If-None-Match: *` over an existing object is refused (412).
    var honoursConditionalPut: Bool
    var checkedAtMs: Int64
    /// The server's `Server` header when it answered (nil when it sent none).
    var serverSoftware: String?
  }

  /// One multipart upload under way: its entry stays when the upload is interrupted.
  struct JournalEntry: Codable, Equatable {
    var container: String
    var game: String
    var key: String
    var startedMs: Int64
  }

  private var serverFile: String {
    directory + "/servers/" + SHA256.hex(of: server).prefix(24) + ".json"
  }
  private var journalFolder: String { directory + "/uploads" }

  /// What was learned about the server, nil when nothing was (or the file is unreadable).
  func facts() -> ServerFacts? {
    guard let data = FileManager.default.contents(atPath: serverFile),
      let facts = try? JSONDecoder().decode(ServerFacts.self, from: data), facts.server == server
    else { return nil }
    return facts
  }

  /// Remembers `facts`; a failure is only logged by the caller's next check (best effort).
  func remember(_ facts: ServerFacts) {
    guard let data = try? JSONEncoder().encode(facts) else { return }
    try? AtomicFile.write(data, to: serverFile)
  }

  /// Notes that an upload of `key` is starting; returns the entry's path, to be given to
  /// `end` once the upload is complete or aborted. Nil when it could not be noted.
  func begin(game: String, key: String, nowMs: Int64) -> String? {
    let entry = JournalEntry(container: container, game: game, key: key, startedMs: nowMs)
    let path = journalFolder + "/" + UUID().uuidString.lowercased() + ".json"
    guard let data = try? JSONEncoder().encode(entry), (try? AtomicFile.write(data, to: path)) != nil
    else { return nil }
    return path
  }

  /// Removes the entry `begin` made.
  func end(_ path: String?) {
    if let path { unlink(path) }
  }

  /// The entries this device left for `game` in this container: uploads that were cut short
  /// (the game's uploads run under its lock, so none of them is under way). Paths with entries.
  func interrupted(game: String) -> [(path: String, entry: JournalEntry)] {
    guard let names = try? Platform.directoryNames(journalFolder) else { return [] }
    return names.compactMap { name in
      let path = journalFolder + "/" + name
      guard name.hasSuffix(".json"), let data = FileManager.default.contents(atPath: path),
        let entry = try? JSONDecoder().decode(JournalEntry.self, from: data),
        entry.container == container, entry.game == game
      else { return nil }
      return (path, entry)
    }
  }
}
