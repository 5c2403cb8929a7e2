import Foundation
import SaveVault

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Picks how to ask the player: a terminal prompt when stdin and stderr are terminals, a
/// desktop dialog when there is a desktop session and zenity or kdialog, else nobody.
enum Prompts {
  /// How long a question waits for an answer by default: 2 minutes, so that a launch nobody
  /// watches still starts the game.
  static let defaultWait: Int = 120

  /// `interruption` is the run's: a signal while the terminal prompt waits ends the run there.
  static func resolver(environment: [String: String], interruption: Interruption) -> any ConflictResolver {
    let wait = Wait(environment: environment)
    if isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1 {
      return TerminalPrompt(interruption: interruption, wait: wait)
    }
    let hasDesktop =
      !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
    if hasDesktop {
      if let zenity = findProgram("zenity", environment: environment) {
        return DesktopDialog(tool: .zenity(zenity), wait: wait)
      }
      if let kdialog = findProgram("kdialog", environment: environment) {
        return DesktopDialog(tool: .kdialog(kdialog), wait: wait)
      }
    }
    return NobodyToAsk()
  }

  /// How long a question waits for an answer: `SAVEVAULT_ASK_TIMEOUT` seconds (2 minutes by
  /// default; 0 waits as long as it takes). With no answer in that time nothing changes and
  /// the question stays, as when there is nobody to ask.
  struct Wait {
    /// Whole seconds; nil: no limit.
    var seconds: Int?

    /// From `SAVEVAULT_ASK_TIMEOUT`; a value that is not a whole number of seconds is the default.
    init(environment: [String: String]) {
      let given = environment["SAVEVAULT_ASK_TIMEOUT"].flatMap {
        Int($0.trimmingCharacters(in: .whitespaces))
      }
      switch given {
      case .some(0): seconds = nil
      case .some(let value) where value > 0: seconds = value
      default: seconds = Prompts.defaultWait
      }
    }

    /// "2 minutes", "90 seconds".
    var words: String? {
      seconds.map { $0 % 60 == 0 ? Format.count($0 / 60, "minute") : Format.count($0, "second") }
    }

    /// The answer when the time ran out.
    var runOut: ConflictAnswer {
      .none(reason: "nobody answered within \(words ?? "the time allowed") (SAVEVAULT_ASK_TIMEOUT)")
    }

    /// The monotonic time at which a question asked now stops waiting (nil: never).
    func deadline() -> DispatchTime? { seconds.map { .now() + .seconds($0) } }
  }

  /// Both sides of a conflict, as the prompt and the dialog show them, and how long the
  /// question waits.
  static func describe(_ conflict: Conflict, wait: Wait) -> String {
    let local = conflict.localModifiedMs.map(Format.time) ?? "never (empty)"
    let device = conflict.cloudDevice ?? "another tool"
    let deletion =
      conflict.choices.contains(.upload)
      ? "" : "\nTo make the missing save the cloud's latest instead, run 'savevault backup --force'."
    let waiting =
      wait.words.map { "\nWith no answer within \($0), nothing changes and the question stays for later." }
      ?? ""
    return """
      \(conflict.game): \(conflict.kind.situation).

      Local save (this device): last changed \(local)
          \(Format.count(conflict.localFiles, "file")), \(Format.bytes(conflict.localBytes)) in \(conflict.saveDir)
      Cloud save (from \(device)): made \(Format.time(conflict.cloudModifiedMs))
          \(conflict.cloudArchive), \(Format.bytes(conflict.cloudBytes)) in \(conflict.container)

      Whichever you choose, the other is kept: an upload only adds an archive, and a restore
      first keeps the local save as a pre-restore copy.\(deletion)\(waiting)
      """
  }

  /// The terminal question for the choices offered, with skip as the default.
  static func question(_ choices: [ConflictChoice]) -> String {
    let offered = choices.map { choice in
      switch choice {
      case .upload: "upload local [u]"
      case .restore: "restore cloud [r]"
      case .skip: "skip [s]"
      }
    }
    let text =
      offered.count > 1
      ? offered.dropLast().joined(separator: ", ") + ", or " + offered[offered.count - 1] : offered.joined()
    return text.prefix(1).uppercased() + text.dropFirst() + "? [s] "
  }

  static func findProgram(_ name: String, environment: [String: String]) -> String? {
    for folder in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
      let path = "\(folder)/\(name)"
      if access(path, X_OK) == 0 { return path }
    }
    return nil
  }
}

/// Asks on stderr and reads the answer (u, r or s; empty is skip) from stdin. The end of
/// input (Ctrl-D), or no answer within `wait`, is nobody answering: the conflict stays
/// unresolved. A signal (Ctrl-C) while it waits ends the run at once with 128 + N: nothing is
/// under way while the question is asked, so there is nothing to clean up and nothing has
/// changed for the conflict.
struct TerminalPrompt: ConflictResolver {
  var interruption: Interruption
  var wait: Prompts.Wait

  func choose(_ conflict: Conflict) -> ConflictChoice? { ask(conflict).choice }

  func ask(_ conflict: Conflict) -> ConflictAnswer {
    let question = Prompts.question(conflict.choices)
    Self.say("\n" + Prompts.describe(conflict, wait: wait) + "\n\n" + question)
    let letters = conflict.choices.map { String($0.rawValue.prefix(1)) }
    let deadline = wait.deadline()
    for _ in 0..<5 {
      switch readAnswer(until: deadline) {
      case .timedOut:
        Self.say("\nsavevault: no answer within \(wait.words ?? "the time allowed"); nothing was changed\n")
        return wait.runOut
      case .interrupted(let signal):
        Self.say(
          "\nsavevault: stopped by \(signal.signalName) at the question; nothing was under way, and the conflict stays unresolved (neither side was changed for it)\n"
        )
        exit(128 + signal.signal)
      case .end:
        Self.say("\nsavevault: no answer (end of input)\n")
        return .none(reason: ConflictAnswer.nobodyAnswered)
      case .line(let line):
        let answer = line.trimmingCharacters(in: .whitespaces).lowercased()
        if answer.isEmpty { return .chosen(.skip) }
        if let choice = conflict.choices.first(where: {
          answer == $0.rawValue || answer == String($0.rawValue.prefix(1))
        }) {
          return .chosen(choice)
        }
        Self.say("Please answer \(letters.joined(separator: ", ")): ")
      }
    }
    return .chosen(.skip)
  }

  private static func say(_ text: String) { writeOutput(Data(text.utf8), to: 2) }

  enum Answer {
    case line(String)
    case end
    case interrupted(Interrupted)
    case timedOut
  }

  /// One line from stdin, read a byte at a time (nothing read ahead of the answer), looking
  /// at the interruption every 100 ms while it waits, until `deadline`.
  private func readAnswer(until deadline: DispatchTime?) -> Answer {
    var bytes: [UInt8] = []
    while true {
      if let signal = interruption.signal { return .interrupted(Interrupted(signal: signal)) }
      let now = DispatchTime.now()
      if let deadline, now >= deadline { return .timedOut }
      let left = deadline.map {
        Int32(min(100, ($0.uptimeNanoseconds - now.uptimeNanoseconds) / 1_000_000 + 1))
      }
      var waiting = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
      let ready = poll(&waiting, 1, left ?? 100)
      if ready == 0 || (ready < 0 && errno == EINTR) { continue }
      var byte: UInt8 = 0
      let count = ready < 0 ? -1 : read(STDIN_FILENO, &byte, 1)
      if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
      if count <= 0 { return bytes.isEmpty ? .end : .line(String(decoding: bytes, as: UTF8.self)) }
      if byte == UInt8(ascii: "\n") { return .line(String(decoding: bytes, as: UTF8.self)) }
      bytes.append(byte)
    }
  }
}

/// Asks with a desktop dialog: zenity (GNOME, Steam Deck) or kdialog (KDE). Its default,
/// what Enter (the Steam Deck's A button) and Escape pick, is *Skip*, as at the terminal. With
/// no answer within `wait` the dialog is closed and nobody answered.
struct DesktopDialog: ConflictResolver {
  enum Tool {
    case zenity(String)
    case kdialog(String)
  }
  var tool: Tool
  var wait: Prompts.Wait

  static let uploadLabel = "Upload local"
  static let restoreLabel = "Restore cloud"
  static let skipLabel = "Skip"

  static func label(_ choice: ConflictChoice) -> String {
    switch choice {
    case .upload: uploadLabel
    case .restore: restoreLabel
    case .skip: skipLabel
    }
  }

  func choose(_ conflict: Conflict) -> ConflictChoice? { ask(conflict).choice }

  /// The player's button; no answer when the dialog never showed (no reachable display, the
  /// tool crashed): a dialog that could not open must not pass for the player's "Skip".
  func ask(_ conflict: Conflict) -> ConflictAnswer {
    let text = Prompts.describe(conflict, wait: wait)
    let title = "SaveVault: \(conflict.game)"
    let actions = conflict.choices.filter { $0 != .skip }
    guard let main = actions.first else { return .chosen(.skip) }
    let extra = actions.dropFirst().first
    let path: String
    let arguments: [String]
    switch tool {
    case .zenity(let zenity):
      // The first choice other than skip is the OK button, a second one an extra button;
      // Skip is the cancel button, and the default (--default-cancel).
      path = zenity
      arguments =
        [
          "--question", "--title", title, "--no-markup", "--no-wrap", "--text", text,
          "--ok-label", Self.label(main), "--cancel-label", Self.skipLabel, "--default-cancel",
        ] + (extra.map { ["--extra-button", Self.label($0)] } ?? [])
    case .kdialog(let kdialog):
      // kdialog's question boxes default to their first button, whatever it is labelled: a
      // menu whose default entry is Skip, with Cancel (and Escape) as skip too.
      path = kdialog
      arguments =
        ["--title", title, "--menu", text]
        + ([ConflictChoice.skip] + actions).flatMap { [$0.rawValue, Self.label($0)] }
        + ["--default", Self.skipLabel, "--cancel-label", Self.skipLabel]
    }
    let nobody = ConflictAnswer.none(reason: ConflictAnswer.nobodyAnswered)
    guard let result = try? run(path, arguments) else { return nobody }
    if result.timedOut { return wait.runOut }
    guard result.didShow else { return nobody }
    let output = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    switch (tool, result.code) {
    case (.zenity, 0): return .chosen(main)
    case (.zenity, 1): return .chosen(extra.flatMap { Self.label($0) == output ? $0 : nil } ?? .skip)
    case (.kdialog, 0):
      return ConflictChoice(rawValue: output).flatMap { conflict.choices.contains($0) ? .chosen($0) : nil }
        ?? nobody
    case (.kdialog, 1): return .chosen(.skip)
    default: return nobody
    }
  }

  /// What the dialog tool did.
  struct Outcome {
    var code: Int32
    var output: String
    /// False when it died of a signal or said it could not reach the display.
    var didShow: Bool
    /// It was closed because nobody answered in time.
    var timedOut: Bool
  }

  /// Runs the dialog; one that could not show is tried once more a second later (a display
  /// that is starting or busy, as under a game session, can refuse the first connection).
  /// Both tries together wait at most `wait`.
  private func run(_ path: String, _ arguments: [String]) throws -> Outcome {
    let deadline = wait.deadline()
    let first = try runOnce(path, arguments, until: deadline)
    guard !first.didShow && !first.timedOut else { return first }
    sleep(1)
    return try runOnce(path, arguments, until: deadline)
  }

  private func runOnce(_ path: String, _ arguments: [String], until deadline: DispatchTime?) throws -> Outcome
  {
    let now = DispatchTime.now().uptimeNanoseconds
    let limit = deadline.map {
      TimeInterval($0.uptimeNanoseconds > now ? $0.uptimeNanoseconds - now : 0) / 1e9
    }
    let result = try ProgramRunner().run(path, arguments, timeLimit: limit)
    let complaint = result.stderr.lowercased()
    let unreachable =
      complaint.contains("cannot open display") || complaint.contains("could not connect to display")
      || complaint.contains("failed to connect") || complaint.contains("cannot connect to x server")
    return Outcome(
      code: result.code, output: result.stdout, didShow: !result.wasSignaled && !unreachable,
      timedOut: result.timedOut)
  }
}
