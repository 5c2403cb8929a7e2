import Foundation

/// A manifest's JSON, written and read without Foundation's coders, which cost ≈ 32,000
/// (encoding) and ≈ 45,000 (decoding) instructions per entry; this costs a few hundred.
///
/// Writing gives the same bytes as `JSONEncoder.stable` (sorted keys, absent optionals left
/// out, `/` unescaped, control characters as `\b \t \n \f \r` or `\u00xx`, everything else as
/// UTF-8), so archives stay identical to those written before.
///
/// Reading takes strict JSON (RFC 8259) and refuses the whole manifest on anything else. A
/// manifest comes from an archive that may have been crafted, so this accepts less than
/// `JSONDecoder`, never more, and never reads a value differently: a known key given twice (which
/// `JSONDecoder` resolves to the first, Python's `json` to the last) is refused, and so are
/// integers written as `1.0` or `1e2`, trailing commas, a byte-order mark and malformed values
/// under unknown keys (which `JSONDecoder` lets through). No SaveVault ever wrote any of these.
enum ManifestJSON {
  /// The manifest as `JSONEncoder.stable` writes it.
  static func encode(_ manifest: Manifest) -> Data {
    var out = JSONWriter()
    out.bytes.reserveCapacity(256 + manifest.entries.count * 224)
    out.raw("{\"bytes\":")
    out.integer(manifest.bytes)
    out.raw(",\"contentDigest\":")
    out.string(manifest.contentDigest)
    out.raw(",\"createdMs\":")
    out.integer(manifest.createdMs)
    out.raw(",\"device\":")
    out.string(manifest.device)
    out.raw(",\"entries\":[")
    var first = true
    for entry in manifest.entries {
      out.raw(first ? "{\"kind\":" : ",{\"kind\":")
      first = false
      out.string(entry.kind.rawValue)
      if let mode = entry.mode {
        out.raw(",\"mode\":")
        out.integer(Int64(mode))
      }
      if let modifiedNs = entry.modifiedNs {
        out.raw(",\"modifiedNs\":")
        out.integer(modifiedNs)
      }
      out.raw(",\"path\":")
      out.string(entry.path)
      if let sha256 = entry.sha256 {
        out.raw(",\"sha256\":")
        out.string(sha256)
      }
      if let size = entry.size {
        out.raw(",\"size\":")
        out.integer(size)
      }
      if let target = entry.target {
        out.raw(",\"target\":")
        out.string(target)
      }
      out.raw("}")
    }
    out.raw("],\"files\":")
    out.integer(Int64(manifest.files))
    out.raw(",\"format\":")
    out.integer(Int64(manifest.format))
    out.raw(",\"game\":")
    out.string(manifest.game)
    out.raw("}")
    return Data(out.bytes)
  }

  /// The manifest in `data`; throws `ManifestJSONError` on anything but a well-formed manifest.
  static func decode(_ data: Data) throws -> Manifest {
    try data.withUnsafeBytes { raw in
      var reader = JSONReader(raw.bindMemory(to: UInt8.self))
      do {
        let manifest = try reader.manifest()
        reader.skipSpace()
        guard reader.atEnd else { throw reader.error("text after the manifest") }
        return manifest
      } catch let refused as JSONTextError {
        throw ManifestJSONError(offset: refused.offset, problem: refused.problem)
      }
    }
  }
}

/// Why a manifest's JSON was refused, and where.
struct ManifestJSONError: Error, CustomStringConvertible {
  var offset: Int
  var problem: String
  var description: String { "invalid manifest JSON at byte \(offset): \(problem)" }
}

extension Manifest {
  fileprivate init(
    format: Int, game: String, device: String, createdMs: Int64, contentDigest: String, files: Int,
    bytes: Int64, entries: [ManifestEntry]
  ) {
    self.format = format
    self.game = game
    self.device = device
    self.createdMs = createdMs
    self.contentDigest = contentDigest
    self.files = files
    self.bytes = bytes
    self.entries = entries
  }
}

/// The manifest's shape, read with the strict reader.
extension JSONReader {
  /// Records that the key numbered `bit` was read, refusing it a second time.
  func once(_ seen: inout UInt32, _ bit: UInt32) throws {
    guard seen & (1 << bit) == 0 else { throw error("a key given twice") }
    seen |= 1 << bit
  }

  mutating func manifest() throws -> Manifest {
    var seen: UInt32 = 0
    var format: Int?
    var game: String?
    var device: String?
    var createdMs: Int64?
    var contentDigest: String?
    var files: Int?
    var bytes: Int64?
    var entries: [ManifestEntry]?
    try object { reader, key in
      if key.is("format") {
        try reader.once(&seen, 0)
        format = try reader.integer(as: Int.self)
      } else if key.is("game") {
        try reader.once(&seen, 1)
        game = try reader.string()
      } else if key.is("device") {
        try reader.once(&seen, 2)
        device = try reader.string()
      } else if key.is("createdMs") {
        try reader.once(&seen, 3)
        createdMs = try reader.integer()
      } else if key.is("contentDigest") {
        try reader.once(&seen, 4)
        contentDigest = try reader.string()
      } else if key.is("files") {
        try reader.once(&seen, 5)
        files = try reader.integer(as: Int.self)
      } else if key.is("bytes") {
        try reader.once(&seen, 6)
        bytes = try reader.integer()
      } else if key.is("entries") {
        try reader.once(&seen, 7)
        var list: [ManifestEntry] = []
        try reader.array { reader in list.append(try reader.entry()) }
        entries = list
      } else {
        try reader.skipValue()
      }
    }
    guard let format, let game, let device, let createdMs, let contentDigest, let files, let bytes,
      let entries
    else { throw error("a manifest key is missing") }
    return Manifest(
      format: format, game: game, device: device, createdMs: createdMs, contentDigest: contentDigest,
      files: files, bytes: bytes, entries: entries)
  }

  mutating func entry() throws -> ManifestEntry {
    var seen: UInt32 = 0
    var path: String?
    var kind: EntryKind?
    var size: Int64?
    var sha256: String?
    var target: String?
    var mode: UInt32?
    var modifiedNs: Int64?
    try object { reader, key in
      if key.is("path") {
        try reader.once(&seen, 0)
        path = try reader.string()
      } else if key.is("kind") {
        try reader.once(&seen, 1)
        guard let value = EntryKind(rawValue: try reader.string()) else {
          throw reader.error("an unknown kind")
        }
        kind = value
      } else if key.is("size") {
        try reader.once(&seen, 2)
        size = try reader.null() ? nil : reader.integer()
      } else if key.is("sha256") {
        try reader.once(&seen, 3)
        sha256 = try reader.null() ? nil : reader.string()
      } else if key.is("target") {
        try reader.once(&seen, 4)
        target = try reader.null() ? nil : reader.string()
      } else if key.is("mode") {
        try reader.once(&seen, 5)
        mode = try reader.null() ? nil : reader.integer(as: UInt32.self)
      } else if key.is("modifiedNs") {
        try reader.once(&seen, 6)
        modifiedNs = try reader.null() ? nil : reader.integer()
      } else {
        try reader.skipValue()
      }
    }
    guard let path, let kind else { throw error("an entry without path or kind") }
    var entry = ManifestEntry(path: path, kind: kind, size: size, sha256: sha256, target: target)
    entry.mode = mode
    entry.modifiedNs = modifiedNs
    return entry
  }
}
