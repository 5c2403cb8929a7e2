import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Vault {
  /// The check of the save directory `folder` (the target's first location of files): it
  /// exists (or the container holds archives to restore into it), is a readable folder, is not
  /// empty, holds nothing a backup cannot read, and its parent lets restore replace it.
  func checkSaveDirectory(_ target: Target, folder path: String, container: (any Container)?) -> DoctorCheck {
    let game = target.game
    var info = stat()
    guard stat(path, &info) == 0 else {
      let archives = (try? container?.catalog(game: game).all.count) ?? 0
      if archives > 0 {
        return DoctorCheck(
          "save-dir", game, .warning,
          "'\(path)' does not exist yet; the container holds \(archives) archive\(archives == 1 ? "" : "s") of it",
          fix: "savevault restore --latest --game \(game) brings the newest here", area: .local)
      }
      return DoctorCheck(
        "save-dir", game, .problem, "'\(path)' does not exist",
        fix: "check the game's saveDir in the config file (or the --save-dir path)", area: .local)
    }
    guard info.st_mode & S_IFMT == S_IFDIR else {
      return DoctorCheck(
        "save-dir", game, .problem, "'\(path)' is not a directory", fix: "point saveDir at the save folder",
        area: .local)
    }
    guard access(path, R_OK | X_OK) == 0, let names = try? Platform.directoryNames(path) else {
      return DoctorCheck(
        "save-dir", game, .problem, "'\(path)' cannot be read", fix: "check its permissions (chmod u+rx)",
        area: .local)
    }
    if Platform.isMountPoint(path) {
      return DoctorCheck(
        "save-dir", game, .warning,
        "'\(path)' is a mount point: backups work, but a restore cannot replace it",
        fix: "point the game at a folder inside it (or mount the drive one level up)", area: .local)
    }
    if names.isEmpty {
      return DoctorCheck(
        "save-dir", game, .warning, "'\(path)' is empty; backup refuses an empty save",
        fix: "play until the game writes a save, or restore one", area: .local)
    }
    let unreadable = Self.unreadableEntries(under: path, naming: 3)
    if unreadable.count > 0 {
      let more = unreadable.count > unreadable.first.count ? ", …" : ""
      return DoctorCheck(
        "save-dir", game, .problem,
        "'\(path)' holds \(unreadable.count) entr\(unreadable.count == 1 ? "y" : "ies") that cannot be read, so backup fails: \(unreadable.first.joined(separator: ", "))\(more)",
        fix: "check their permissions (chmod -R u+rX '\(path)'), or move them out of the save directory",
        area: .local)
    }
    let parent = (Platform.resolvedPath(path) as NSString).deletingLastPathComponent
    guard access(parent, W_OK | X_OK) == 0 else {
      return DoctorCheck(
        "save-dir", game, .warning,
        "'\(path)' is readable, but restore cannot replace it: '\(parent)' is not writable",
        fix: "check the permissions of '\(parent)'", area: .local)
    }
    return DoctorCheck("save-dir", game, .ok, "'\(path)' exists and is readable", area: .local)
  }

  /// The entries under `root` that a backup could not read, as paths relative to it: files
  /// that cannot be opened for reading and folders that cannot be listed (a folder is named
  /// with a trailing `/`, and not looked into). Returns the first `limit` in walking order and
  /// how many there are in all. Symlinks, FIFOs and devices are not opened (a backup does
  /// not read them); an entry gone while walking is not counted.
  static func unreadableEntries(under root: String, naming limit: Int) -> (first: [String], count: Int) {
    var first: [String] = []
    var count = 0
    func found(_ relative: String) {
      count += 1
      if first.count < limit { first.append(relative) }
    }
    var folders = [""]
    while let relative = folders.popLast() {
      let folder = relative.isEmpty ? root : root + "/" + relative
      guard let names = try? Platform.directoryNames(folder) else {
        found(relative + "/")
        continue
      }
      var inside: [String] = []
      for name in names.sorted() {
        let child = relative.isEmpty ? name : relative + "/" + name
        var info = stat()
        guard RawName.withCString(child, under: root, { lstat($0, &info) }) == 0 else { continue }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
          inside.append(child)
        case S_IFREG:
          let fd = RawName.withCString(child, under: root) {
            open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
          }
          if fd >= 0 {
            close(fd)
          } else if errno != ENOENT && errno != ENOTDIR {
            found(child)
          }
        default:
          continue
        }
      }
      folders += inside.reversed()  // taken from the end: in name order
    }
    return (first, count)
  }
}
