import Foundation
import Testing

@testable import SaveVault

// docs/json.md against the binary: scripts/json-examples.sh runs every command with --json,
// and each example of the document must have exactly the fields of the real output.

/// Every key path of a JSON value: `local.files`, `archives[].name`, `[].check`.
func keyPaths(_ value: Any, prefix: String = "") -> Set<String> {
  if let object = value as? [String: Any] {
    var paths: Set<String> = []
    for (key, child) in object {
      let path = prefix.isEmpty ? key : prefix + "." + key
      paths.insert(path)
      paths.formUnion(keyPaths(child, prefix: path))
    }
    return paths
  }
  if let array = value as? [Any] {
    return array.reduce(into: Set<String>()) { $0.formUnion(keyPaths($1, prefix: prefix + "[]")) }
  }
  return []
}

/// The key paths of a JSON document, or of each line of a JSON-lines text.
private func keyPaths(text: String, isLines: Bool) throws -> Set<String> {
  let documents = isLines ? text.split(separator: "\n").map(String.init) : [text]
  return try documents.reduce(into: Set<String>()) { paths, document in
    paths.formUnion(keyPaths(try JSONSerialization.jsonObject(with: Data(document.utf8))))
  }
}

/// The examples of docs/json.md: the blocks fenced as ```json NAME.
private func examples(_ document: String) -> [String: String] {
  var result: [String: String] = [:]
  var name: String?
  var lines: [String] = []
  for line in document.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
    if let current = name {
      if line == "```" {
        result[current] = lines.joined(separator: "\n")
        name = nil
        lines = []
      } else {
        lines.append(line)
      }
    } else if line.hasPrefix("```json ") {
      name = String(line.dropFirst("```json ".count))
    }
  }
  return result
}

/// A JSON text with its layout kept and its values masked: each string value becomes `"s"`
/// and each number `0`, while keys, `true`, `false`, `null`, brackets and whitespace stay.
func layout(_ text: String) -> String {
  let characters = Array(text)
  var result = ""
  var index = 0
  while index < characters.count {
    let character = characters[index]
    if character == "\"" {
      var end = index + 1
      while end < characters.count && characters[end] != "\"" {
        end += characters[end] == "\\" ? 2 : 1
      }
      var next = end + 1
      while next < characters.count && characters[next].isWhitespace { next += 1 }
      let isKey = next < characters.count && characters[next] == ":"
      result += isKey ? String(characters[index...min(end, characters.count - 1)]) : "\"s\""
      index = end + 1
    } else if character == "-" || character.isNumber {
      while index < characters.count && "+-.eE0123456789".contains(characters[index]) { index += 1 }
      result += "0"
    } else {
      result.append(character)
      index += 1
    }
  }
  return result
}

@Suite("docs/json.md: every documented field is what the binary prints", .tags(.medium))
struct JSONDocsTests {
  @Test("each example has exactly the fields of the real output, and each field is described")
  func examplesMatch() async throws {
    let document = try String(contentsOfFile: repositoryRoot + "/docs/json.md", encoding: .utf8)
    let found = examples(document)
    let dir = TemporaryDirectory("json-docs")
    let run = try await runProgramAwaiting(
      "/bin/bash",
      [repositoryRoot + "/scripts/json-examples.sh", savevaultBinary, dir.sub("home"), dir.sub("out")],
      environment: ["PATH": "/usr/bin:/bin"])
    try #require(run.code == 0, "json-examples.sh: exit \(run.code)\n\(run.stderr)")
    let outputs = try FileManager.default.contentsOfDirectory(atPath: dir.sub("out")).sorted()
    #expect(outputs.count >= 19, "\(outputs)")
    for file in outputs {
      let isLines = file.hasSuffix(".jsonl")
      let name = (file as NSString).deletingPathExtension
      guard let example = found[name] else {
        Issue.record("docs/json.md has no example ```json \(name)")
        continue
      }
      let output = try String(contentsOfFile: dir.sub("out/" + file), encoding: .utf8)
      let real = try keyPaths(text: output, isLines: isLines)
      let documented = try keyPaths(text: example, isLines: isLines)
      // Laid out alike: spacing, key order, empty lists, nulls (values aside).
      #expect(
        layout(example) == layout(output.trimmingCharacters(in: .newlines)),
        "\(name): the example is not laid out as the binary prints it:\n\(example)\n---\n\(output)")
      #expect(
        documented == real,
        "\(name): only documented \(documented.subtracting(real).sorted()), only real \(real.subtracting(documented).sorted())"
      )
      for path in real {
        let leaf = String(path.split(separator: ".").last ?? "").replacingOccurrences(of: "[]", with: "")
        let described = ["`\(leaf)`", ".\(leaf)`", "`\(leaf).", "`\(leaf)[]."].contains {
          document.contains($0)
        }
        #expect(leaf.isEmpty || described, "\(name): '\(path)' is not described")
      }
    }
  }

  @Test(
    "with no target, backup, status and sync --json print one list: every game that worked",
    arguments: ["backup", "status", "sync"])
  func oneList(_ command: String) async throws {
    let player = try Sandbox("json-list-\(command)")
    for game in ["a", "b"] {
      try writeFile(player.dir.sub("saves/\(game)/s.sav"), game)
      try await player.ok(["add", game, "--save-dir", "saves/\(game)", "--container", "cloud"])
    }
    let both = try await player.ok([command, "--json"])
    #expect(try jsonList(both.stdout).map { $0["game"] as? String } == ["a", "b"], "\(both.stdout)")

    try await player.ok(["add", "c", "--save-dir", "saves/c", "--container", "unplugged-drive"])
    let partly = try await player.runAwaiting([command, "--json"])
    #expect(partly.code == 4, "the failing game's exit code: \(partly.stderr)")
    #expect(
      try jsonList(partly.stdout).map { $0["game"] as? String } == ["a", "b"], "\(partly.stdout)")
    #expect(partly.stderr.contains("c: "), "\(partly.stderr)")
  }

  @Test("every command whose help offers --json has a section")
  func everyCommand() async throws {
    let document = try String(contentsOfFile: repositoryRoot + "/docs/json.md", encoding: .utf8)
    let help = try await runProgramAwaiting(savevaultBinary, ["--help"], environment: ["HOME": "/tmp"]).stdout
    let block = help.components(separatedBy: "Commands:\n").last?.components(separatedBy: "\n\n").first ?? ""
    let commands = block.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
    #expect(commands.contains("backup"))
    for command in commands {
      let usage = try await runProgramAwaiting(
        savevaultBinary, [command, "--help"], environment: ["HOME": "/tmp"]
      ).stdout
      guard usage.contains("--json") else { continue }
      #expect(document.contains("\n## \(command)\n"), "docs/json.md has no section for \(command)")
    }
  }
}
