// libFuzzer target: archive reading and entry validation (the extractor in check-only mode,
// exactly what `verify` and every restore run before writing). Built by fuzz/build.sh together
// with the library's sources; not part of the SwiftPM package.
//
// libarchive itself is not instrumented, so random bytes rarely get past its tar checksums.
// Inputs therefore come in two kinds (by the first byte's lowest bit):
// - raw: the bytes are the archive (robustness of reading);
// - built: the bytes describe entries (type, name, link target, data), which are written as a
//   valid pax tar with libarchive and then checked (depth on the entry rules: paths, symlinks,
//   hardlinks, duplicates, devices, sizes).
// The first byte's second bit makes it a `.tar.zst`: a built archive is written through zstd,
// and raw bytes are read through the zstd decompressor and the tar stream's cap.
import CLibArchive
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One scratch file reused for every input (the extractor reads from a file descriptor).
nonisolated(unsafe) private var scratch: Int32 = -1

public func fuzzArchive(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  if scratch < 0 {
    guard let made = try? Platform.makeTemporaryFile(prefix: "/tmp/savevault-fuzz-") else {
      fatalError("cannot create a scratch file")
    }
    unlink(made.path)
    scratch = made.fd
  }
  guard size > 0 else { return 0 }
  ftruncate(scratch, 0)
  lseek(scratch, 0, SEEK_SET)
  let bytes = UnsafeBufferPointer(start: data, count: size)
  let compression: ArchiveCompression = bytes[0] & 2 == 0 ? .none : .zstd
  if bytes[0] & 1 == 0 {
    _ = Platform.writeAll(scratch, UnsafeRawBufferPointer(start: data + 1, count: size - 1))
  } else {
    writeBuiltArchive(Array(bytes.dropFirst()), compression: compression, to: scratch)
  }
  lseek(scratch, 0, SEEK_SET)
  let extractor = Extractor(limits: ExtractionLimits(maxEntries: 2_000, maxDepth: 64, maxTotalBytes: 1 << 26))
  guard
    let extraction = try? extractor.extract(
      fd: scratch, archiveName: "fuzz-input" + compression.suffix, into: nil)
  else { return 0 }
  // What passed the checks must obey the rules the checks promise.
  var seen = Set<String>()
  var symlinks = Set<String>()
  for entry in extraction.entries {
    guard case .accepted(let clean) = EntryPolicy.check(path: entry.path), clean == entry.path else {
      fatalError("an accepted entry has an unclean path: \(entry.path)")
    }
    guard seen.insert(entry.path).inserted else { fatalError("a duplicate path was accepted: \(entry.path)") }
    for ancestor in EntryPolicy.ancestors(of: entry.path) where symlinks.contains(ancestor) {
      fatalError("an entry under a symlink was accepted: \(entry.path)")
    }
    if entry.kind == .symlink {
      guard let target = entry.target, SymlinkPolicy.staysInside(linkPath: entry.path, target: target) else {
        fatalError("an escaping symlink was accepted: \(entry.path) -> \(entry.target ?? "")")
      }
      symlinks.insert(entry.path)
    }
  }
  return 0
}

/// Writes the entries `spec` describes as a pax tar. Each entry: a type byte, then a name, a
/// link target and data, each as a length byte followed by that many bytes.
private func writeBuiltArchive(_ spec: [UInt8], compression: ArchiveCompression, to fd: Int32) {
  guard let writer = LibArchiveHandle(archive_write_new, free: archive_write_free) else { return }
  let a = writer.pointer
  archive_write_set_format_pax(a)
  guard compression.configure(writer: writer) == nil else { return }
  archive_write_open_fd(a, fd)
  var index = 0
  func field() -> [UInt8] {
    guard index < spec.count else { return [] }
    let length = Int(spec[index])
    index += 1
    let end = min(spec.count, index + length)
    defer { index = end }
    return Array(spec[index..<end])
  }
  let types: [UInt32] = [SV_AE_IFREG, SV_AE_IFDIR, SV_AE_IFLNK, SV_AE_IFREG, 0o020000, 0o010000]
  while index < spec.count {
    let kind = spec[index]
    index += 1
    let name = String(decoding: field(), as: UTF8.self)
    let link = String(decoding: field(), as: UTF8.self)
    let content = field()
    let entry = LibArchiveEntry()
    let e = entry.pointer
    archive_entry_set_pathname_utf8(e, name)
    archive_entry_set_perm(e, mode_t(0o644 | (UInt32(kind & 0xC0) << 5)))  // sometimes setuid/setgid
    let type = types[Int(kind) % types.count]
    archive_entry_set_filetype(e, type)
    if kind % 6 == 3 {
      archive_entry_set_hardlink_utf8(e, link)  // a hardlink (type 3 is a file with a link)
    } else if type == SV_AE_IFLNK {
      archive_entry_set_symlink_utf8(e, link)
    }
    let isData = type == SV_AE_IFREG && kind % 6 != 3
    archive_entry_set_size(e, isData ? Int64(content.count) : 0)
    guard archive_write_header(a, e) >= ARCHIVE_WARN else { continue }
    if isData && !content.isEmpty {
      _ = content.withUnsafeBytes { archive_write_data(a, $0.baseAddress, $0.count) }
    }
  }
  archive_write_close(a)
}
