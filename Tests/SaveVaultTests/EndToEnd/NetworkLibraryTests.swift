import Foundation
import Testing

@testable import SaveVault

/// A command that does not use the network maps no network or XML library: libcurl (and the
/// ~25 libraries it links) is loaded by the first HTTP request, and libarchive is linked in
/// without the xar format's libxml2 (and ICU), so that a launch's backup or status on a folder
/// container starts without them. Judged by the loader's own account of
/// every library it maps (`LD_DEBUG=files`), with an S3 command as the control that shows the
/// account does name libcurl when it is loaded.
@Suite("Network and XML libraries: loaded only by a command that speaks HTTP", .tags(.large))
struct NetworkLibraryTests {
  /// Names (prefixes of sonames) a command on a folder container must not map.
  static let forbidden = networkOnly + ["libxml2", "libicu"]
  /// What HTTP needs (libcurl), and nothing else does.
  static let networkOnly = ["libcurl"]

  /// The sonames the loader says it mapped (`file=NAME [ns]; …` lines of `LD_DEBUG=files`).
  static func mapped(_ loaderOutput: String) -> Set<String> {
    var names: Set<String> = []
    for line in loaderOutput.split(separator: "\n") {
      guard let start = line.range(of: "file=") else { continue }
      let name = line[start.upperBound...].prefix { $0 != " " && $0 != "\t" }
      names.insert(String(name.split(separator: "/").last ?? ""))
    }
    return names
  }

  static func named(_ prefixes: [String], in names: Set<String>) -> [String] {
    names.filter { name in prefixes.contains { name.hasPrefix($0) } }.sorted()
  }

  @Test("backup and status on a folder container load no libcurl, libxml2 or ICU")
  func folderContainer() async throws {
    let box = try Sandbox("netlib-folder", device: "pc")
    let save = box.path("saves/hades")
    try writeFile(save + "/slot.sav", "run 12, do not lose me")
    let cloud = box.path("cloud")
    try makeDirectory(cloud)
    for command in ["backup", "status"] {
      let result = try await box.runAwaiting(
        [command, "--save-dir", save, "--container", cloud], environment: ["LD_DEBUG": "files"])
      #expect(result.code == 0, "\(command): exit \(result.code)")
      let names = Self.mapped(result.stderr)
      // The account is there at all: every program maps the C library, so the loader names it.
      #expect(!Self.named(["libc.so"], in: names).isEmpty, "\(command): LD_DEBUG=files named no library")
      #expect(Self.named(Self.forbidden, in: names) == [], "\(command) mapped a library it does not need")
    }
  }

  @Test("status on an S3 container loads libcurl (the control: the check above would see it)")
  func s3Container() async throws {
    let server = try #require(S3TestServer.shared(.rclone), "the rclone S3 server did not start")
    let box = try Sandbox("netlib-s3", device: "pc")
    let bucket = CloudEndToEndTests.newBucket()
    _ = try server.container(bucket: bucket, prefix: "p")
    let save = box.path("saves/hades")
    try writeFile(save + "/slot.sav", "run 12, do not lose me")
    var environment = server.environment()
    environment["LD_DEBUG"] = "files"
    let result = try await box.runAwaiting(
      ["status", "--save-dir", save, "--container", "s3://\(bucket)/p"], environment: environment)
    #expect(result.code == 0, "exit \(result.code)")
    #expect(Self.named(Self.networkOnly, in: Self.mapped(result.stderr)) == ["libcurl.so.4"])
  }
}
