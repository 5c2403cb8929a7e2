// libFuzzer target: reading Valve KeyValues text (Steam's files, read from disks we do not
// control). The parser must never trap; what it accepts, written back by KeyValues.written,
// must read again as the same tree.
import Foundation

public func fuzzKeyValues(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let input = UnsafeBufferPointer(start: data, count: size)
  guard let parsed = try? KeyValues.parse(input) else { return 0 }
  let written = parsed.written
  guard let again = try? KeyValues.parse(written) else {
    fatalError("written text does not parse: \(written)")
  }
  guard again == parsed else { fatalError("does not round-trip: \(written)") }
  return 0
}
