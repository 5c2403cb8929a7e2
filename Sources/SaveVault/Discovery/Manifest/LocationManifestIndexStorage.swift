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

    init(copying source: [UInt8]) {
      let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, source.count), alignment: 8)
      source.withUnsafeBytes { copy.copyMemory(from: $0) }
      bytes = UnsafeRawBufferPointer(rebasing: copy[0..<source.count])
      release = { copy.deallocate() }
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
    }

    deinit { release() }

    /// Private and read-only; on Linux populated at once, as the checksum reads every page
    /// anyway (one call instead of a fault per few pages).
    #if canImport(Glibc)
      private static let mapFlags = MAP_PRIVATE | MAP_POPULATE
    #else
      private static let mapFlags = MAP_PRIVATE
    #endif
  }
}

/// `open(2)` read-only (the index's own `open` hides the C function inside it).
private func openForReading(_ path: String) -> Int32 {
  open(path, O_RDONLY | O_CLOEXEC)
}
