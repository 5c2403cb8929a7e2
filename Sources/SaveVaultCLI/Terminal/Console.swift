import Foundation
import SaveVault

/// Where the CLI writes: results to stdout, everything else to stderr.
struct Console: Sendable {
  var isQuiet: Bool
  var isVerbose: Bool
  /// Warnings as JSON lines on stderr (`{"warning": "…"}`), where stderr carries JSON (`wrap --json`).
  var warnsInJSON = false
  /// Runs before anything is written: clears a progress bar's line, so that no result or
  /// message is printed after a half-drawn bar.
  var beforeWriting: @Sendable () -> Void = {}
  /// Where every message written to stderr is also kept (`wrap`'s log), or nil.
  var logFile: LogFile?

  func out(_ text: String) {
    guard !isQuiet else { return }
    beforeWriting()
    Self.write(text)
  }

  /// Writes a line to stdout, unbuffered.
  static func write(_ text: String) {
    writeOutput(Data((text + "\n").utf8), to: 1)
  }

  /// Machine output: printed even when quiet, laid out as docs/json.md shows it.
  func json<Value: Encodable>(_ value: Value) {
    beforeWriting()
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
    writeOutput(Data(Self.laidOut(Array(data)) + Array("\n".utf8)), to: 1)
  }

  /// Compact JSON laid out with two-space indents, `"key": value`, one member or element per
  /// line, and `[]` and `{}` for empty lists and objects (the toolchain's pretty printing
  /// differs between platforms: `"key" : value`, and empty lists across lines on Linux).
  static func laidOut(_ compact: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(compact.count * 2)
    var depth = 0
    var isInString = false
    var isEscaped = false
    var index = 0
    func newline() { out += [UInt8(ascii: "\n")] + Array(repeating: UInt8(ascii: " "), count: 2 * depth) }
    while index < compact.count {
      let byte = compact[index]
      index += 1
      if isInString {
        out.append(byte)
        if isEscaped {
          isEscaped = false
        } else if byte == UInt8(ascii: "\\") {
          isEscaped = true
        } else if byte == UInt8(ascii: "\"") {
          isInString = false
        }
        continue
      }
      switch byte {
      case UInt8(ascii: "\""):
        isInString = true
        out.append(byte)
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        out.append(byte)
        let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
        if index < compact.count && compact[index] == close {
          out.append(close)
          index += 1
        } else {
          depth += 1
          newline()
        }
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        depth -= 1
        newline()
        out.append(byte)
      case UInt8(ascii: ","):
        out.append(byte)
        newline()
      case UInt8(ascii: ":"):
        out += Array(": ".utf8)
      default:
        out.append(byte)
      }
    }
    return out
  }

  /// One line of JSON on stderr (wrap's messages: the game owns stdout).
  func jsonLine(_ fields: [String: String]) {
    beforeWriting()
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = (try? encoder.encode(fields)) ?? Data("{}".utf8)
    writeOutput(data + Data("\n".utf8), to: 2)
    logFile?.append(String(decoding: data, as: UTF8.self))
  }

  /// An informational line on stderr.
  func note(_ text: String) {
    guard !isQuiet else { return }
    message(text)
  }

  func error(_ text: String) {
    message("error: \(text)")
  }

  /// A line for the log alone, not for stderr (how the game ended, under `wrap`).
  func logOnly(_ text: String) {
    logFile?.append(text)
  }

  /// A message on stderr, `savevault: ` before it, kept in the log too.
  private func message(_ text: String) {
    beforeWriting()
    writeOutput(Data("savevault: \(text)\n".utf8), to: 2)
    logFile?.append(text)
  }

  /// An error as text on stderr: the one way every command reports one. With `game`, the
  /// error of that game while the others ran on, named by it.
  func error(_ error: any Error, game: String? = nil) {
    let message = Advice.text(for: error)
    guard let game, !message.hasPrefix(game + ":") else { return self.error(message) }
    self.error("\(game): \(message)")
  }

  var log: Log {
    let quiet = isQuiet
    let verbose = isVerbose
    let console = self
    return Log(
      warning: { message in
        if console.warnsInJSON {
          console.jsonLine(["warning": message])
        } else if !quiet {
          console.message("warning: \(message)")
        }
      },
      verbose: { message in
        guard verbose else { return }
        console.message(message)
      })
  }
}

/// Writes `data` whole to `fd` (1 or 2), unbuffered. A failed write is dropped: a reader that
/// has gone away (a closed pipe, `| head`) must not turn a finished command into a crash.
func writeOutput(_ data: Data, to fd: Int32) {
  data.withUnsafeBytes { buffer in
    guard let base = buffer.baseAddress else { return }
    var done = 0
    while done < buffer.count {
      let wrote = write(fd, base + done, buffer.count - done)
      if wrote < 0 && errno == EINTR { continue }
      guard wrote > 0 else { return }
      done += wrote
    }
  }
}
