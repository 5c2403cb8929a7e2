// libFuzzer target: reading Valve's binary KeyValues (Steam's shortcuts.vdf, read from disks we
// do not control). The parser must never trap; what it accepts, written back by
// BinaryKeyValues.written, must read again as the same tree.
import Foundation

public func fuzzBinaryKeyValues(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  fuzzRoundTrip(
    UnsafeBufferPointer(start: data, count: size), parse: { try BinaryKeyValues.parse($0) }, write: \.written,
    parseWritten: { try BinaryKeyValues.parse($0) })
}
