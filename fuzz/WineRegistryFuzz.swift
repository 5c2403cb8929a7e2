// libFuzzer target: reading Wine's text registry (a prefix's user.reg and system.reg, read from
// disks we do not control). The parser must never trap; what it accepts writes back byte for
// byte, and replacing a key's sections by themselves gives a file that reads with the same
// content under that key.
import Foundation

public func fuzzWineRegistry(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let input = UnsafeBufferPointer(start: data, count: size)
  let status = fuzzRoundTrip(
    input, parse: { try WineRegistry.parse($0) }, write: \.bytes, parseWritten: { try WineRegistry.parse($0) })
  guard let registry = try? WineRegistry.parse(input) else { return status }
  guard registry.bytes.elementsEqual(input) else { fatalError("not written back byte for byte") }
  guard let key = registry.sections.first?.path else { return status }
  let sections = registry.sections(under: key)
  let merged = registry.replacing(keys: [key], with: sections)
  guard let again = try? WineRegistry.parse(merged.bytes) else { fatalError("a merged file does not parse") }
  guard again.sections(under: key).map(\.content) == sections.map(\.content) else {
    fatalError("a merged key's content changed")
  }
  return status
}
