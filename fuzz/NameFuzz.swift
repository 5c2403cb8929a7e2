// libFuzzer target: archive-name parsing and the pure path rules. Each accepted input must
// satisfy the property its parser promises.
import Foundation

public func fuzzNames(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)

  // A parsed name prints back as itself, and its parts round-trip.
  if let name = ArchiveName(parsing: text) {
    guard name.description == text else { fatalError("name does not round-trip: \(text)") }
    let again = ArchiveName(createdMs: name.createdMs, device: name.device, ending: name.ending)
    guard again == name else { fatalError("parts do not round-trip: \(text)") }
  }

  // An accepted entry path is relative and clean, and checking it again changes nothing.
  if case .accepted(let clean) = EntryPolicy.check(path: text) {
    let parts = clean.split(separator: "/", omittingEmptySubsequences: false)
    guard !clean.hasPrefix("/"), !parts.contains(".."), !parts.contains("."), !parts.contains("") else {
      fatalError("unclean accepted path: \(clean)")
    }
    guard EntryPolicy.check(path: clean) == .accepted(clean) else { fatalError("not idempotent: \(clean)") }
  }

  // A symlink said to stay inside really resolves inside, lexically, from its folder.
  let halves = text.split(separator: "\u{1}", maxSplits: 1).map(String.init)
  if halves.count == 2, case .accepted(let link) = EntryPolicy.check(path: halves[0]),
    SymlinkPolicy.staysInside(linkPath: link, target: halves[1])
  {
    var stack = link.split(separator: "/").dropLast().map(String.init)
    for part in halves[1].split(separator: "/") {
      if part == ".." {
        guard !stack.isEmpty else { fatalError("symlink escapes: \(link) -> \(halves[1])") }
        stack.removeLast()
      } else {
        stack.append(String(part))
      }
    }
  }
  return 0
}
