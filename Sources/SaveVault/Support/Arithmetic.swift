/// Integer arithmetic the standard library spells otherwise or not at all.

/// Division rounding toward negative infinity (for times before 1970).
func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a / b - (a % b < 0 ? 1 : 0) }
/// The remainder that goes with `floorDiv`, always in `0..<b`.
func floorMod(_ a: Int64, _ b: Int64) -> Int64 {
  let remainder = a % b
  return remainder < 0 ? remainder + b : remainder
}

/// Appends `value` in decimal, as `"\(value)"` would spell it.
func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
  if value < 0 { bytes.append(UInt8(ascii: "-")) }
  var magnitude = value.magnitude
  var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 20 digits at most, filled backwards
  var count = 0
  withUnsafeMutableBytes(of: &digits) { buffer in
    guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
    repeat {
      count += 1
      base[24 - count] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
      magnitude /= 10
    } while magnitude > 0
    bytes.append(contentsOf: UnsafeBufferPointer(start: base + 24 - count, count: count))
  }
}
