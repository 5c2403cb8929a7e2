import Testing

@testable import SaveVault

@Suite("Entry and symlink rules")
struct EntryPolicyTests {
  @Test(
    "entry paths",
    arguments: [
      ("a/b.sav", EntryPolicy.PathCheck.accepted("a/b.sav")),
      ("./a//b/./c", .accepted("a/b/c")),
      ("dir/", .accepted("dir")),
      (".", .root), ("./", .root),
      ("../x", .refused("entry '../x' climbs out with '..'")),
      ("tmp/../../x", .refused("entry 'tmp/../../x' climbs out with '..'")),
      ("a/..", .refused("entry 'a/..' climbs out with '..'")),
      ("/etc/passwd", .refused("entry '/etc/passwd' has an absolute path")),
      ("//abs", .refused("entry '//abs' has an absolute path")),
      ("", .refused("an entry has an empty name")),
    ])
  func paths(raw: String, expected: EntryPolicy.PathCheck) {
    #expect(EntryPolicy.check(path: raw) == expected)
  }

  @Test(
    "symlinks stay inside",
    arguments: [
      ("link", "target", true), ("a/link", "../b", true), ("a/b/link", "../../c/d", true),
      ("a/link", "..", true), ("link", "sub/dir/file", true),
      ("link", "/etc/passwd", false), ("link", "../outside", false), ("a/link", "../../x", false),
      ("link", "b/../..", false), ("link", "b/..", false), ("link", ".", false), ("link", "", false),
      ("link", "./x", false),
    ])
  func symlinks(link: String, target: String, isInside: Bool) {
    #expect(SymlinkPolicy.staysInside(linkPath: link, target: target) == isInside)
  }

  @Test("ancestors, outermost first")
  func ancestors() {
    #expect(EntryPolicy.ancestors(of: "a/b/c") == ["a", "a/b"])
    #expect(EntryPolicy.ancestors(of: "a").isEmpty)
  }
}
