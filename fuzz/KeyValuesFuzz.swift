// libFuzzer target: reading Valve KeyValues text (Steam's files, read from disks we do not
// control). The parser must never trap; what it accepts, written back by KeyValues.written,
// must read again as the same tree.
import Foundation

public func fuzzKeyValues(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  fuzzRoundTrip(
    UnsafeBufferPointer(start: data, count: size), parse: { try KeyValues.parse($0) }, write: \.written,
    parseWritten: { try KeyValues.parse($0) })
}

/// What a reader accepts writes back as what reads as the same tree; nothing traps.
func fuzzRoundTrip<Tree: Equatable, Written>(
  _ input: UnsafeBufferPointer<UInt8>, parse: (UnsafeBufferPointer<UInt8>) throws -> Tree,
  write: (Tree) -> Written, parseWritten: (Written) throws -> Tree
) -> CInt {
  guard let parsed = try? parse(input) else { return 0 }
  let written = write(parsed)
  guard let again = try? parseWritten(written) else { fatalError("written form does not parse: \(written)") }
  guard again == parsed else { fatalError("does not round-trip: \(written)") }
  return 0
}
