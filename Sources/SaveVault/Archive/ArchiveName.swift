/// The name of a backup in a container:
/// `packsave-<UTC yyyyMMdd'T'HHmmss.SSS'Z'>-<device>.tar`, or `….tar.zst` when compressed
/// (or, made by another tool with the same stamp, another ending `ArchiveEncoding` reads).
///
/// Names sort in time order; the device part says where a backup came from, the ending how it
/// is compressed. Parsing and formatting are pure and exact to the millisecond.
public struct ArchiveName: Hashable, Sendable, CustomStringConvertible {
  /// Every archive name starts with this.
  public static let prefix = "packsave-"
  /// Every plain archive name ends with this (a compressed one with its compression's
  /// `suffix`, such as `.tar.zst`).
  public static let suffix = ArchiveCompression.none.suffix

  /// When the backup was made, in milliseconds since the Unix epoch (UTC).
  public let createdMs: Int64
  /// The device that made it, as it appears in the name.
  public let device: String
  /// The name's ending (`.tar`, `.tar.zst`, or another of `ArchiveEncoding`'s endings), which
  /// says how the archive is compressed.
  public let ending: String

  /// A name for a backup made at `createdMs` on `device` (sanitised for use in a file name).
  public init(createdMs: Int64, device: String, compression: ArchiveCompression = .none) {
    self.init(createdMs: createdMs, device: device, ending: compression.suffix)
  }

  /// A name for a backup made at `createdMs` on `device`, ending in `ending`.
  init(createdMs: Int64, device: String, ending: String) {
    self.createdMs = createdMs
    self.device = ArchiveName.sanitize(device: device)
    self.ending = ending
  }

  /// Parses a name SaveVault made, or another tool with SaveVault's stamp and one of
  /// `ArchiveEncoding`'s endings; nil for anything else.
  public init?(parsing name: String) {
    guard let ending = ArchiveEncoding.ending(of: name)?.ending else { return nil }
    let bytes = Array(name.utf8)
    let prefix = Array(Self.prefix.utf8)
    let suffix = Array(ending.utf8)
    let stampLength = 20  // yyyyMMddTHHmmss.SSSZ
    guard bytes.count > prefix.count + stampLength + 1 + suffix.count,
      bytes.starts(with: prefix), bytes.suffix(suffix.count).elementsEqual(suffix)
    else { return nil }
    let stamp = Array(bytes[prefix.count..<prefix.count + stampLength])
    guard bytes[prefix.count + stampLength] == UInt8(ascii: "-"),
      let createdMs = Self.parse(stamp: stamp)
    else { return nil }
    let deviceBytes = bytes[(prefix.count + stampLength + 1)..<(bytes.count - suffix.count)]
    let device = String(decoding: deviceBytes, as: UTF8.self)
    guard device == Self.sanitize(device: device) else { return nil }
    self.createdMs = createdMs
    self.device = device
    self.ending = ending
  }

  /// The file name.
  public var description: String {
    "\(Self.prefix)\(Self.stamp(createdMs))-\(device)\(ending)"
  }

  /// Whether `name` looks like a backup (`packsave-*` with one of `ArchiveEncoding`'s endings:
  /// `.tar`, `.tar.zst`, `.tar.gz`, `.tgz`, `.tar.bz2`, `.tar.xz`), whether or not SaveVault
  /// made it.
  public static func isBackupName(_ name: String) -> Bool {
    guard let ending = ArchiveEncoding.ending(of: name)?.ending else { return false }
    return name.hasPrefix(prefix) && name.count > prefix.count + ending.count
      && !name.contains("/")
  }

  /// A device name reduced to letters, digits, `.`, `_` and `-`; never empty, never hidden,
  /// at most 64 characters. A name that had to change carries a short digest of itself
  /// (`My_Deck-5f0c2a` for `My Deck`), so that two names that reduce alike (`デッキ` and `パソコ`
  /// both to `___`) stay two devices: prune keeps the newest archive of each.
  public static func sanitize(device: String) -> String {
    var out = ""
    for scalar in device.unicodeScalars {
      let isSafe =
        (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z")
        || (scalar >= "0" && scalar <= "9") || scalar == "." || scalar == "_" || scalar == "-"
      out.unicodeScalars.append(isSafe ? scalar : "_")
    }
    while out.hasPrefix(".") { out.removeFirst() }
    if device.isEmpty { return "device" }
    if out == device && out.count <= 64 { return out }
    let tag = "-" + String(SHA256.hex(of: device).prefix(6))
    return String(out.prefix(64 - tag.count)) + tag
  }

  /// `yyyyMMdd'T'HHmmss.SSS'Z'` for epoch milliseconds.
  static func stamp(_ ms: Int64) -> String {
    let time = CivilTime(epochMs: ms)
    func pad(_ value: Int64, _ width: Int) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return pad(time.year, 4) + pad(time.month, 2) + pad(time.day, 2) + "T" + pad(time.hour, 2)
      + pad(time.minute, 2) + pad(time.second, 2) + "." + pad(time.millisecond, 3) + "Z"
  }

  /// Epoch milliseconds for `yyyyMMdd'T'HHmmss.SSS'Z'`, or nil if malformed.
  static func parse(stamp: [UInt8]) -> Int64? {
    guard stamp.count == 20, stamp[8] == UInt8(ascii: "T"), stamp[15] == UInt8(ascii: "."),
      stamp[19] == UInt8(ascii: "Z")
    else { return nil }
    func number(_ range: Range<Int>) -> Int64? {
      var value: Int64 = 0
      for byte in stamp[range] {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int64(byte - UInt8(ascii: "0"))
      }
      return value
    }
    guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
      let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
      let milli = number(16..<19), (1...12).contains(month),
      (1...CivilTime.daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
      second < 60
    else { return nil }
    let days = CivilTime.days(year: year, month: month, day: day)
    return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + milli
  }
}

/// A UTC calendar time, computed without Foundation's calendars (Howard Hinnant's algorithms).
struct CivilTime: Equatable {
  var year, month, day, hour, minute, second, millisecond: Int64

  init(epochMs: Int64) {
    let msPerDay: Int64 = 86_400_000
    var days = epochMs / msPerDay
    var rest = epochMs % msPerDay
    if rest < 0 {
      rest += msPerDay
      days -= 1
    }
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    day = doy - (153 * mp + 2) / 5 + 1
    month = mp < 10 ? mp + 3 : mp - 9
    year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    hour = rest / 3_600_000
    minute = rest / 60_000 % 60
    second = rest / 1000 % 60
    millisecond = rest % 1000
  }

  /// Days since 1970-01-01 for a proleptic Gregorian date.
  static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  static func daysIn(month: Int64, year: Int64) -> Int64 {
    switch month {
    case 2: (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }
}
