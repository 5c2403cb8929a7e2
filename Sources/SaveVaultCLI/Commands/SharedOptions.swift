import SaveVault

extension Option {
  /// `--compress KIND` (backup, sync, wrap).
  static let compress = Option(
    name: "compress",
    kind: .choice(
      placeholder: "KIND", ArchiveCompression.allCases.map { Choice(name: $0.rawValue) }),
    help:
      "none (a plain .tar, the default) or zstd (a smaller .tar.zst); default: the game's or the config file's \"compress\"",
    summary: "none (a plain .tar) or zstd (a smaller .tar.zst)")

  /// `--on-conflict POLICY` (sync, wrap); `unanswered` is what happens when a conflict is left
  /// as it is (nobody to ask, or `fail`), and `skipped` what `skip` leads to.
  static func onConflict(unanswered: String, skipped: String) -> Option {
    let meanings: [ConflictPolicy: String] = [
      .prompt:
        "ask (the default): a terminal prompt, or a zenity or kdialog dialog when there is no terminal but a desktop; Enter is skip; with nobody to ask, at end of input, or with no answer within $SAVEVAULT_ASK_TIMEOUT seconds (default 120), \(unanswered)",
      .upload: "upload the local save (the cloud's archive stays in the container)",
      .restore: "restore the cloud's latest (the local save is kept)",
      .newer: "the larger millisecond timestamp wins (local newest change vs archive time)",
      .skip: "change nothing, \(skipped)",
      .fail: "change nothing, \(unanswered)",
    ]
    return Option(
      name: "on-conflict",
      kind: .choice(
        placeholder: "POLICY",
        ConflictPolicy.allCases.map { Choice(name: $0.rawValue, help: meanings[$0]) }),
      help: "what to do when both sides changed since they last agreed:")
  }
}
