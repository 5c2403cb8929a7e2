import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Human formatting of sizes and times.
enum Format {
  static func bytes(_ count: Int64) -> String {
    if count < 1024 { return "\(count) B" }
    let units = ["KiB", "MiB", "GiB", "TiB"]
    var value = Double(count) / 1024
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
      value /= 1024
      unit += 1
    }
    let tenths = Int((value * 10).rounded(.toNearestOrEven))  // as "%.1f" rounds
    return "\(tenths / 10).\(tenths % 10) \(units[unit])"
  }

  /// "1 file", "2 files".
  static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }

  /// Local date and time with milliseconds, and the epoch ms: `2026-11-29 15:38:47.123 CET (1764427127123 ms)`.
  static func time(_ ms: Int64) -> String {
    guard let (stamp, zone) = local(ms) else { return "\(ms) ms" }
    let milliseconds = String(ms - Int64(floorDiv(ms, 1000)) * 1000)
    let padded = String(repeating: "0", count: 3 - milliseconds.count) + milliseconds
    return "\(stamp).\(padded) \(zone) (\(ms) ms)"
  }

  /// Local date and time to the second: `2026-11-29 16:03:47`.
  static func shortTime(_ ms: Int64) -> String { local(ms)?.stamp ?? "\(ms) ms" }

  /// The local time to the second and the zone's abbreviation. (The C library's
  /// `localtime_r`: a `DateFormatter` costs a short command about a millisecond.)
  private static func local(_ ms: Int64) -> (stamp: String, zone: String)? {
    var seconds = time_t(floorDiv(ms, 1000))
    var parts = tm()
    guard localtime_r(&seconds, &parts) != nil else { return nil }
    var buffer = [CChar](repeating: 0, count: 64)
    let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S", &parts)
    let zone = parts.tm_zone.map { String(cString: $0) } ?? ""
    return (String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self), zone)
  }

  private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a / b - (a % b < 0 ? 1 : 0) }
}
