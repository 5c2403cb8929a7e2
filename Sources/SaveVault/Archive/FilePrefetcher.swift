import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a scan's small files ahead of the packer, in its order, on a second thread: on a
/// save of many small files the opens, reads and `fstat`s (as much system time as `tar -cf`
/// spends) then run beside the packer's hashing and header building instead of before them.
///
/// Files are handed over in batches (one hand-over per batch, not per file) and at most
/// `maxBatches` batches wait, so memory stays under `maxBatches × batchSize × smallFileLimit`
/// (4 MiB by default, usually far less). A file over `smallFileLimit` is left to the packer,
/// which streams it. Each small file is checked as the packer checks the files it streams: a
/// regular file, read to the size it had when opened, unchanged (size and time) after.
final class FilePrefetcher: @unchecked Sendable {
  /// What the packer gets for each file, in the scan's order.
  enum Item {
    /// The whole file, and its modification time when it was opened.
    case content([UInt8], modifiedNs: Int64)
    /// Too large to hold: the packer streams it.
    case large
    case failed(ArchiveError)
  }

  static let smallFileLimit: Int64 = 64 << 10
  static let batchSize = 32
  static let maxBatches = 2

  private let condition = NSCondition()
  private var ready: [[Item]] = []
  private var isStopped = false
  private var current: [Item] = []
  private var position = 0

  /// Starts reading `paths` (a scan's, found through `source`), whose sizes at the scan were
  /// `sizes`.
  init(source: SaveSource, paths: [String], sizes: [Int64]) {
    let thread = Thread { [self] in
      var batch: [Item] = []
      batch.reserveCapacity(Self.batchSize)
      let folders = FolderDescriptors(source: source)
      for (path, size) in zip(paths, sizes) {
        batch.append(size > Self.smallFileLimit ? .large : Self.readWhole(path, in: folders))
        if batch.count == Self.batchSize {
          guard hand(batch) else { return }
          batch.removeAll(keepingCapacity: true)
        }
      }
      if !batch.isEmpty { _ = hand(batch) }
    }
    thread.start()
  }

  deinit { stop() }

  /// The next file's item; waits for the reading thread when it is behind.
  func next() -> Item {
    if position == current.count {
      condition.lock()
      while ready.isEmpty { condition.wait() }
      current = ready.removeFirst()
      condition.broadcast()
      condition.unlock()
      position = 0
    }
    defer { position += 1 }
    return current[position]
  }

  /// Stops the reading thread (the packer failed or finished early).
  func stop() {
    condition.lock()
    isStopped = true
    condition.broadcast()
    condition.unlock()
  }

  /// Queues a batch, waiting while `maxBatches` are waiting; false once stopped.
  private func hand(_ batch: [Item]) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while ready.count >= Self.maxBatches && !isStopped { condition.wait() }
    guard !isStopped else { return false }
    ready.append(batch)
    condition.broadcast()
    return true
  }

  /// Reads one small file whole, with the packer's checks.
  private static func readWhole(_ path: String, in folders: FolderDescriptors) -> Item {
    do throws(ArchiveError) {
      let file = try folders.openFile(path)
      guard file.size <= smallFileLimit else { return .large }
      var bytes = [UInt8](repeating: 0, count: Int(file.size))
      let failure = bytes.withUnsafeMutableBytes { buffer -> ArchiveError? in
        guard let base = buffer.baseAddress else { return nil }
        var done = 0
        while done < buffer.count {
          do throws(ArchiveError) {
            done += try file.readChunk(into: base + done, count: buffer.count - done)
          } catch {
            return error
          }
        }
        return nil
      }
      if let failure { throw failure }
      try file.checkUnchanged()
      if file.isRacy {
        let hash = FileDigest(size: file.size)
        bytes.withUnsafeBytes { buffer in
          if let base = buffer.baseAddress { hash.update(base, count: buffer.count) }
        }
        try file.checkSameAgain(digest: hash.finalize())
      }
      return .content(bytes, modifiedNs: file.modifiedNs)
    } catch {
      return .failed(error)
    }
  }
}

/// A save file opened for packing: a regular file, read to the size it had when opened, and
/// unchanged (size and modification time) once read; anything else fails the pack rather than
/// storing a torn copy. The packer's streamed files and the read-ahead ones share it.
final class SaveFileReading {
  let path: String
  let size: Int64
  /// What the file takes on disk when opened (less than its size: it may have holes).
  let allocatedBytes: Int64
  let modifiedNs: Int64
  /// When it was opened, by the real-time clock.
  private let openedNs: Int64
  private let fd: Int32

  /// A filesystem's clock moves in ticks (up to 10 ms on Linux before 6.13, which updates it
  /// on every write that follows a `stat`), so a write in the tick of the read can leave size
  /// and time as they were. A file modified this close to its opening is read twice.
  static let racyWindowNs: Int64 = 50_000_000

  /// Opens `path`, or, with `folder`, `name` in that open folder (`path` then only names it).
  /// Names are in `RawName`'s mapping.
  init(_ path: String, folder: Int32 = AT_FDCWD, name: String? = nil) throws(ArchiveError) {
    fd = RawName.withCString(name ?? path) { openat(folder, $0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
    // Gone, or no file any more, since the scan: the game wrote its save meanwhile (a temporary
    // file renamed over a slot), so the save is scanned and packed again.
    guard fd >= 0 else {
      if errno == ENOENT || errno == ELOOP { throw .changedWhileReading(path: path) }
      throw .unreadable(path: path, reason: Platform.describe(errno: errno))
    }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      close(fd)
      throw .changedWhileReading(path: path)
    }
    self.path = path
    size = Int64(info.st_size)
    allocatedBytes = Int64(info.st_blocks) * 512
    modifiedNs = FileTimes.modifiedNs(info)
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    openedNs = FileTimes.nanoseconds(seconds: Int64(now.tv_sec), nanoseconds: Int64(now.tv_nsec))
  }

  /// Whether the file was modified so shortly before it was opened (or after, by its clock)
  /// that `checkUnchanged` cannot rule out a write during the read: git's "racily clean" files.
  var isRacy: Bool { modifiedNs > openedNs &- Self.racyWindowNs }

  /// For a racy file, reads it once more and throws when its bytes are not the ones packed
  /// (`digest`, their `FileDigest`); does nothing for any other file.
  func checkSameAgain(digest: String) throws(ArchiveError) {
    guard isRacy else { return }
    let again: (size: Int64, digest: String)
    do {
      again = try FileDigest.of(fd: fd, path: path)
    } catch let error as SystemError {
      throw .unreadable(path: path, reason: Platform.describe(errno: error.code))
    } catch {
      throw .unreadable(path: path, reason: "\(error)")
    }
    try checkUnchanged()
    guard again.size == size, again.digest == digest else { throw .changedWhileReading(path: path) }
  }

  deinit { close(fd) }

  /// The file's data regions when it has holes, nil otherwise (`Platform.dataRegions`). Asks
  /// the filesystem only when the file takes less room on disk than its size.
  func dataRegions() throws(ArchiveError) -> [Range<Int64>]? {
    guard allocatedBytes < size else { return nil }
    let regions = Platform.dataRegions(of: fd, size: size)
    try seek(to: 0)
    return regions
  }

  /// Moves to `offset`, from where `readChunk` reads.
  func seek(to offset: Int64) throws(ArchiveError) {
    guard lseek(fd, off_t(offset), SEEK_SET) == offset else {
      throw .unreadable(path: path, reason: Platform.describe(errno: errno))
    }
  }

  /// Reads at most `count` bytes (at least one) into `buffer`; a file that ends before its
  /// size throws.
  func readChunk(into buffer: UnsafeMutableRawPointer, count: Int) throws(ArchiveError) -> Int {
    while true {
      let got = read(fd, buffer, count)
      if got > 0 { return got }
      if got == 0 { throw .changedWhileReading(path: path) }
      if errno != EINTR { throw .unreadable(path: path, reason: Platform.describe(errno: errno)) }
    }
  }

  /// Throws when the file's size or modification time changed since it was opened.
  func checkUnchanged() throws(ArchiveError) {
    var after = stat()
    guard fstat(fd, &after) == 0, Int64(after.st_size) == size, FileTimes.modifiedNs(after) == modifiedNs
    else { throw .changedWhileReading(path: path) }
  }
}

/// Opens a scan's files relative to their open folder, keeping the last folder open: files
/// come in the scan's order, folder by folder, so the kernel resolves one name per file
/// instead of the whole path.
final class FolderDescriptors {
  let source: SaveSource
  private var root = ""
  private var folder = ""
  private var fd: Int32 = -1

  init(source: SaveSource) { self.source = source }

  convenience init(root: String) { self.init(source: SaveSource(root: root)) }

  deinit { if fd >= 0 { close(fd) } }

  /// Opens `path` (a scan's path, in `RawName`'s mapping) for packing.
  func openFile(_ scanPath: String) throws(ArchiveError) -> SaveFileReading {
    let (root, path) = source.split(scanPath)
    if root != self.root {
      if fd >= 0 { close(fd) }
      fd = -1
      self.root = root
    }
    let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
    let parent = slash.map { String(path[..<$0]) } ?? ""
    // By bytes: two names may be canonically equivalent strings (é and e + ◌́) and still be
    // two folders.
    if fd < 0 || !parent.utf8.elementsEqual(folder.utf8) {
      if fd >= 0 { close(fd) }
      folder = parent
      fd =
        parent.isEmpty
        ? open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        : RawName.withCString(parent, under: root) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
      guard fd >= 0 else {
        if errno == ENOENT || errno == ENOTDIR { throw .changedWhileReading(path: root + "/" + path) }
        throw .unreadable(path: root + "/" + path, reason: Platform.describe(errno: errno))
      }
    }
    let name = slash.map { String(path[path.utf8.index(after: $0)...]) } ?? path
    return try SaveFileReading(root + "/" + path, folder: fd, name: name)
  }
}
