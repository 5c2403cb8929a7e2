#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension LocationManifestIndex {
  /// The bytes of an index, owned: a read-only private mapping of the file (unmapped when it
  /// goes), or a copy in memory. Never written after it is made.
  final class Storage: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer
    private let release: () -> Void
    /// The file mapped, if it is one.
    private let path: String?

    init(copying source: [UInt8]) {
      let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, source.count), alignment: 8)
      source.withUnsafeBytes { copy.copyMemory(from: $0) }
      bytes = UnsafeRawBufferPointer(rebasing: copy[0..<source.count])
      release = { copy.deallocate() }
      path = nil
    }

    /// The file at `path` mapped; nil when it cannot be opened, is empty or is not a regular
    /// file.
    init?(mapping path: String) {
      let fd = openForReading(path)
      guard fd >= 0 else { return nil }
      defer { close(fd) }
      var info = stat()
      guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0,
        info.st_size <= Int64(Int32.max)
      else { return nil }
      let length = Int(info.st_size)
      guard let base = mmap(nil, length, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
        return nil
      }
      bytes = UnsafeRawBufferPointer(start: base, count: length)
      release = { munmap(base, length) }
      self.path = path
    }

    deinit { release() }

    /// Removes the file mapped (found damaged), so that the next run makes it again. The
    /// mapping stays readable.
    func discard() {
      if let path { unlink(path) }
    }
  }
}

/// `open(2)` read-only (the index's own `open` hides the C function inside it).
private func openForReading(_ path: String) -> Int32 {
  open(path, O_RDONLY | O_CLOEXEC)
}
