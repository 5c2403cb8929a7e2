import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Real tar archives that other projects made for their own tests (`Tests/Fixtures/tar-corpus`,
/// whose README names each source), each put in a container as a game's latest archive and
/// run through the built binary's `verify` and `restore --latest`, then `status` and
/// `restore --undo` after a restore. Whatever an archive holds, the binary exits with a
/// documented code, writes nothing outside the save folder, leaves the save as it was when it
/// refuses, and leaves a save it can read and undo when it restores. Where GNU tar and Python's
/// tarfile agree, it agrees with them: an archive both refuse is refused (exit 5), and a file
/// it restores has the size both read (a `.tar.zst` is shown to them decompressed: GNU tar's
/// guess by content misses a zstd stream that starts with a skippable frame, and tarfile reads
/// zstd only from Python 3.14).
///
/// `SAVEVAULT_CORPUS_REPORT=FILE` writes the table of outcomes (archive, exits, note) to FILE
/// as Markdown.
@Suite("The tar corpus: other projects' archives through verify and restore", .tags(.large))
struct TarCorpusTests {
  static let root = fixture("tar-corpus")

  /// Every archive of the corpus, as a path relative to `root`, sorted.
  static let archives: [String] = {
    guard let items = FileManager.default.enumerator(atPath: root) else { return [] }
    return items.compactMap { $0 as? String }.filter { item in
      var info = stat()
      return lstat(root + "/" + item, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        && !item.hasSuffix(".md")
    }.sorted()
  }()

  /// How long one run may take.
  static let timeLimit: TimeInterval = 30

  /// The endings a container lists as archives; any other file goes in as `.tar`, to be read by
  /// its content.
  static let listedEndings = [".tar.zst", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz"]

  /// Archives GNU tar and tarfile both refuse that SaveVault reads, and why.
  static let readDespiteBoth: [String: String] = [
    // Comment lines before a GNU sparse 1.0 map, which libarchive skips on purpose (its test
    // says GNU tar should write them); the map itself is sound.
    "libarchive/libarchive/test_read_format_gtar_sparse_1_17_posix10_modified.tar":
      "comments before its sparse map, which libarchive reads"
  ]

  /// Absolute paths the traversal archives aim at.
  static let outsideTargets = ["/tmp/moo"]

  struct Outcome: Sendable {
    var archive: String
    var verify: String
    var restore: String
    var note: String
  }

  @Test(
    "every corpus archive: a documented exit, nothing outside the save, and as GNU tar and tarfile read it")
  func corpus() async throws {
    #expect(Self.archives.count >= 150, "the corpus has \(Self.archives.count) archives")
    let outsideBefore = Self.outsideTargets.map(Self.describe)
    let outcomes = try await withThrowingTaskGroup(of: Outcome.self) { group in
      for archive in Self.archives { group.addTask { try await Self.check(archive) } }
      var all: [Outcome] = []
      for try await outcome in group { all.append(outcome) }
      return all.sorted { $0.archive < $1.archive }
    }
    #expect(
      Self.outsideTargets.map(Self.describe) == outsideBefore, "an archive wrote to \(Self.outsideTargets)")
    if let report = ProcessInfo.processInfo.environment["SAVEVAULT_CORPUS_REPORT"], !report.isEmpty {
      try Data(Self.table(outcomes).utf8).write(to: URL(fileURLWithPath: report))
    }
  }

  /// What `lstat` says of `path`, for a before-and-after comparison.
  static func describe(_ path: String) -> String {
    var info = stat()
    guard lstat(path, &info) == 0 else { return "absent" }
    return "mode \(info.st_mode) size \(info.st_size) mtime \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
  }

  /// The name `archive` gets in the container.
  static func containerName(_ archive: String) -> String {
    let ending = listedEndings.first { archive.hasSuffix($0) } ?? ".tar"
    return "packsave-20261201T000000.000Z-corpus" + ending
  }

  /// Runs one archive through the binary and checks what it did.
  static func check(_ archive: String) async throws -> Outcome {
    let label = "corpus-" + archive.replacingOccurrences(of: "/", with: "_").prefix(60)
    let box = try Sandbox(String(label), device: "testbox")
    let save = box.save
    try writeFile(save + "/slot.sav", "precious, kept by every refusal")
    let folder = box.cloud + "/game"
    try makeDirectory(folder)
    try FileManager.default.copyItem(
      atPath: root + "/" + archive, toPath: folder + "/" + containerName(archive))
    try makeDirectory(box.path("outside"))
    try writeFile(box.path("outside/file"), "outside, must stay as it is\n")
    let before = tree(save)
    let outsideBefore = tree(box.path("outside"))
    let cloudBefore = tree(box.cloud)

    let reference = try await Reference.read(root + "/" + archive, scratch: box.path("reference.tar"))
    let verify = try await box.runAwaiting(["verify", "--latest"] + box.target(), timeLimit: timeLimit)
    let restore = try await box.runAwaiting(["restore", "--latest"] + box.target(), timeLimit: timeLimit)
    var notes: [String] = []
    func exit(_ run: RunResult) -> String { run.timedOut ? "timed out" : String(run.code) }
    func lastLine(_ text: String) -> String {
      let line = (text.split(separator: "\n").last.map(String.init) ?? "")
        .replacingOccurrences(of: box.dir.path, with: "<sandbox>")
      return line.count > 140 ? line.prefix(140) + "…" : line
    }

    for (command, run) in [("verify", verify), ("restore", restore)] {
      if run.timedOut {
        Issue.record("\(archive): \(command) ran past \(timeLimit) s")
        continue
      }
      #expect(
        !run.wasSignaled && (0...6).contains(run.code),
        "\(archive): \(command) exited \(run.code) (signaled: \(run.wasSignaled)): \(run.stderr)")
      #expect(
        !run.stderr.contains("has no backups"), "\(archive): \(command) does not list it: \(run.stderr)")
      if reference.isRefusedByBoth && readDespiteBoth[archive] == nil {
        #expect(
          run.code == 5,
          "\(archive): GNU tar and tarfile refuse it, \(command) exited \(run.code): \(run.stderr)")
      }
    }
    if !verify.timedOut && !restore.timedOut {
      #expect(
        (verify.code == 0) == (restore.code == 0),
        "\(archive): verify exited \(verify.code), restore \(restore.code): \(verify.stderr) \(restore.stderr)"
      )
    }
    #expect(tree(box.path("outside")) == outsideBefore, "\(archive): something outside the save changed")
    #expect(tree(box.cloud) == cloudBefore, "\(archive): the container changed")
    let saves = (try? FileManager.default.contentsOfDirectory(atPath: box.path("saves"))) ?? []
    #expect(saves == ["game"], "\(archive): the folder holding the save has \(saves)")

    if restore.code == 0 && !restore.timedOut {
      try await checkRestored(archive, box: box, reference: reference, notes: &notes)
    } else if !restore.timedOut {
      #expect(tree(save) == before, "\(archive): restore exited \(restore.code) and the save changed")
    }
    if restore.code != 0 || restore.timedOut {
      notes.append(restore.timedOut ? "restore timed out" : lastLine(restore.stderr))
    } else if verify.code != 0 || verify.timedOut {
      notes.append(verify.timedOut ? "verify timed out" : lastLine(verify.stderr))
    }
    if let reason = readDespiteBoth[archive] {
      notes.append("read, though GNU tar and tarfile refuse it: " + reason)
    }
    return Outcome(
      archive: archive, verify: exit(verify), restore: exit(restore), note: notes.joined(separator: "; "))
  }

  /// After a restore: the save holds what tarfile reads, its owner can read it (a folder of
  /// mode 000 in an archive would otherwise leave a save no command can read), `status` reads
  /// it, and `restore --undo` puts the save from before back.
  static func checkRestored(_ archive: String, box: Sandbox, reference: Reference, notes: inout [String])
    async throws
  {
    let restored = tree(box.save, includeTimes: false)
    for (name, entry) in restored {
      let needed: UInt32 = entry.kind == "dir" ? 0o700 : entry.kind == "file" ? 0o400 : 0
      #expect(
        entry.mode & needed == needed,
        "\(archive): '\(name)' is restored with mode \(String(entry.mode, radix: 8)), which its owner cannot use"
      )
      if entry.kind == "file", let size = reference.files?[name], reference.tarSizes[name] == size {
        var info = stat()
        let restoredSize = lstat(box.save + "/" + name, &info) == 0 ? Int64(info.st_size) : -1
        #expect(
          restoredSize == size,
          "\(archive): '\(name)' is restored with \(restoredSize) bytes, GNU tar and tarfile read \(size)")
      }
    }
    let status = try await box.runAwaiting(["status"] + box.target(), timeLimit: timeLimit)
    #expect(
      status.code == 0 || status.timedOut,
      "\(archive): status after the restore exited \(status.code): \(status.stderr)")
    if status.timedOut { notes.append("status timed out") }
    let undo = try await box.runAwaiting(["restore", "--undo"] + box.target(), timeLimit: timeLimit)
    #expect(undo.code == 0 || undo.timedOut, "\(archive): restore --undo exited \(undo.code): \(undo.stderr)")
    #expect(
      undo.timedOut || text(box.save + "/slot.sav") == "precious, kept by every refusal",
      "\(archive): restore --undo did not bring the save back")
    if undo.code != 0 { notes.append("undo exited \(undo.timedOut ? "timed out" : String(undo.code))") }
  }

  /// How GNU tar and Python's tarfile read an archive.
  struct Reference {
    /// Whether `tar -tvf` lists it without an error.
    var isReadByTar: Bool
    /// The size of each regular file as `tar -tvf` lists it (names as it prints them).
    var tarSizes: [String: Int64]
    /// The size of each regular file as tarfile reads it, nil when tarfile refuses it.
    var files: [String: Int64]?

    var isRefusedByBoth: Bool { !isReadByTar && files == nil }

    /// Reads the archive at `path` with both; a `.tar.zst` is decompressed first into `scratch`.
    static func read(_ path: String, scratch: String) async throws -> Reference {
      let environment = [
        "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "LC_ALL": "C.UTF-8",
      ]
      var path = path
      if path.hasSuffix(".zst") {
        let zstd = try await runProgramAwaiting(
          try requiredProgram("zstd"), ["-q", "-d", "-f", "-o", scratch, path], environment: environment)
        if zstd.code == 0 { path = scratch }
      }
      let tar = try await runProgramAwaiting(
        try requiredProgram("tar"), ["-tvf", path], environment: environment)
      var tarSizes: [String: Int64] = [:]
      for line in tar.stdout.split(separator: "\n") where line.hasPrefix("-") {
        let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
        if fields.count == 6, let size = Int64(fields[2]) { tarSizes[String(fields[5])] = size }
      }
      let python = try await runProgramAwaiting(
        try requiredProgram("python3"), [fixture("tarfile-list.py"), path], environment: environment)
      try #require(python.code == 0, "tarfile-list.py failed on \(path): \(python.stderr)")
      let answer = try jsonObject(python.stdout)
      let files = (answer["files"] as? [String: Any])?.compactMapValues { ($0 as? NSNumber)?.int64Value }
      return Reference(
        isReadByTar: tar.code == 0, tarSizes: tarSizes,
        files: answer["ok"] as? Bool == true ? files ?? [:] : nil)
    }
  }

  /// The outcomes as a Markdown table, with counts by outcome.
  static func table(_ outcomes: [Outcome]) -> String {
    var counts: [String: Int] = [:]
    for outcome in outcomes {
      counts["verify \(outcome.verify), restore \(outcome.restore)", default: 0] += 1
    }
    var text = "| outcome | archives |\n| --- | --- |\n"
    for (outcome, count) in counts.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
    ) {
      text += "| \(outcome) | \(count) |\n"
    }
    text += "\n| archive | verify | restore | note |\n| --- | --- | --- | --- |\n"
    for outcome in outcomes {
      let note = outcome.note.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(
        of: "\n", with: " ")
      text += "| \(outcome.archive) | \(outcome.verify) | \(outcome.restore) | \(note) |\n"
    }
    return text
  }
}
