// libFuzzer target: archive reading and entry validation (the extractor in check-only mode,
// exactly what `verify` and every restore run before writing). Built by fuzz/build.sh together
// with the library's sources; not part of the SwiftPM package.
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One scratch file reused for every input (the extractor reads from a file descriptor).
nonisolated(unsafe) private var scratch: Int32 = -1

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArchive(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  if scratch < 0 {
    let made = try? Platform.makeTemporaryFile(prefix: "/tmp/savevault-fuzz-")
    guard let made else { fatalError("cannot create a scratch file") }
    unlink(made.path)
    scratch = made.fd
  }
  ftruncate(scratch, 0)
  _ = Platform.writeAll(scratch, UnsafeRawBufferPointer(start: data, count: size))
  lseek(scratch, 0, SEEK_SET)
  let extractor = Extractor(limits: ExtractionLimits(maxEntries: 2_000, maxDepth: 64, maxTotalBytes: 1 << 26))
  if let extraction = try? extractor.extract(fd: scratch, archiveName: "fuzz-input", into: nil) {
    // What passed the checks must obey the rules the checks promise.
    var seen = Set<String>()
    for entry in extraction.entries {
      guard case .accepted(let clean) = EntryPolicy.check(path: entry.path), clean == entry.path else {
        fatalError("an accepted entry has an unclean path: \(entry.path)")
      }
      guard seen.insert(entry.path).inserted else { fatalError("a duplicate path was accepted: \(entry.path)") }
      if entry.kind == .symlink {
        guard let target = entry.target, SymlinkPolicy.staysInside(linkPath: entry.path, target: target) else {
          fatalError("an escaping symlink was accepted: \(entry.path) -> \(entry.target ?? "")")
        }
      }
      if let mode = entry.mode, entry.kind != .symlink, mode & 0o7000 != 0, extraction.manifest != nil {
        // Special bits may be listed (they are cleared on disk), nothing to check here.
        _ = mode
      }
    }
  }
  return 0
}
