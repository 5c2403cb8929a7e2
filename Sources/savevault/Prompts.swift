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
  static func resolver(environment: [String: String]) -> any ConflictResolver {
    if isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1 { return TerminalPrompt() }
    let hasDesktop =
      !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
    if hasDesktop {
      if let zenity = findProgram("zenity", environment: environment) {
        return DesktopDialog(tool: .zenity(zenity))
      }
      if let kdialog = findProgram("kdialog", environment: environment) {
        return DesktopDialog(tool: .kdialog(kdialog))
      }
    }
    return NobodyToAsk()
  }

  /// Both sides of a conflict, as the prompt and the dialog show them.
  static func describe(_ conflict: Conflict) -> String {
    let local = conflict.localModifiedMs.map(Format.time) ?? "never (empty)"
    let device = conflict.cloudDevice ?? "another tool"
    let deletion =
      conflict.choices.contains(.upload)
      ? "" : "\nTo make the missing save the cloud's latest instead, run 'savevault backup --force'."
    return """
      \(conflict.game): \(conflict.kind.situation).

      Local save (this device): last changed \(local)
          \(Format.count(conflict.localFiles, "file")), \(Format.bytes(conflict.localBytes)) in \(conflict.saveDir)
      Cloud save (from \(device)): made \(Format.time(conflict.cloudModifiedMs))
          \(conflict.cloudArchive), \(Format.bytes(conflict.cloudBytes)) in \(conflict.container)

      Whichever you choose, the other is kept: an upload only adds an archive, and a restore
      first keeps the local save as a pre-restore copy.\(deletion)
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

/// Asks on stderr and reads the answer (u, r or s; empty is skip) from stdin.
struct TerminalPrompt: ConflictResolver {
  func choose(_ conflict: Conflict) -> ConflictChoice? {
    let question = Prompts.question(conflict.choices)
    FileHandle.standardError.write(Data(("\n" + Prompts.describe(conflict) + "\n\n" + question).utf8))
    let letters = conflict.choices.map { String($0.rawValue.prefix(1)) }
    for _ in 0..<5 {
      guard let line = readLine() else { return .skip }
      let answer = line.trimmingCharacters(in: .whitespaces).lowercased()
      if answer.isEmpty { return .skip }
      if let choice = conflict.choices.first(where: {
        answer == $0.rawValue || answer == String($0.rawValue.prefix(1))
      }) {
        return choice
      }
      FileHandle.standardError.write(Data("Please answer \(letters.joined(separator: ", ")): ".utf8))
    }
    return .skip
  }
}

/// Asks with a desktop dialog: zenity (GNOME, Steam Deck) or kdialog (KDE).
struct DesktopDialog: ConflictResolver {
  enum Tool {
    case zenity(String)
    case kdialog(String)
  }
  var tool: Tool

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

  /// The player's button, or nil when the dialog never showed (no reachable display, the
  /// tool crashed): a dialog that could not open must not pass for the player's "Skip".
  func choose(_ conflict: Conflict) -> ConflictChoice? {
    let text = Prompts.describe(conflict)
    let title = "SaveVault: \(conflict.game)"
    // The first choice other than skip is the main button, a second one an extra button.
    let actions = conflict.choices.filter { $0 != .skip }
    guard let main = actions.first else { return .skip }
    let extra = actions.dropFirst().first
    switch tool {
    case .zenity(let path):
      let arguments =
        [
          "--question", "--title", title, "--no-markup", "--no-wrap", "--text", text,
          "--ok-label", Self.label(main), "--cancel-label", Self.skipLabel,
        ] + (extra.map { ["--extra-button", Self.label($0)] } ?? [])
      guard let result = try? run(path, arguments), result.didShow else { return nil }
      if result.code == 0 { return main }
      if let extra, result.output.trimmingCharacters(in: .whitespacesAndNewlines) == Self.label(extra) {
        return extra
      }
      return result.code == 1 ? .skip : nil
    case .kdialog(let path):
      let arguments =
        extra.map {
          [
            "--title", title, "--yesnocancel", text, "--yes-label", Self.label(main), "--no-label",
            Self.label($0), "--cancel-label", Self.skipLabel,
          ]
        } ?? [
          "--title", title, "--yesno", text, "--yes-label", Self.label(main), "--no-label", Self.skipLabel,
        ]
      guard let result = try? run(path, arguments), result.didShow else { return nil }
      switch (result.code, extra) {
      case (0, _): return main
      case (1, let extra?): return extra
      case (1, nil), (2, _): return .skip
      default: return nil
      }
    }
  }

  /// What the dialog tool did.
  struct Outcome {
    var code: Int32
    var output: String
    /// False when it died of a signal or said it could not reach the display.
    var didShow: Bool
  }

  private func run(_ path: String, _ arguments: [String]) throws -> Outcome {
    let result = try ProgramRunner().run(path, arguments)
    let complaint = result.stderr.lowercased()
    let unreachable =
      complaint.contains("cannot open display") || complaint.contains("could not connect to display")
      || complaint.contains("failed to connect") || complaint.contains("cannot connect to x server")
    return Outcome(code: result.code, output: result.stdout, didShow: !result.wasSignaled && !unreachable)
  }
}
