#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A program started to run on after this one, never waited for: in a session of its own (a
/// hang-up of the terminal or a signal to the launcher's process group does not reach it),
/// with stdin, stdout and stderr on /dev/null, default signal actions and no blocked signal.
enum DetachedProcess {
  /// This program's own file: what it was started from (Linux: `/proc/self/exe`); nil when
  /// that cannot be told.
  static var ownExecutable: String? {
    #if os(Linux)
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
      guard length > 0 else { return nil }
      return Platform.string(fromCString: Array(buffer[0..<length]) + [0])
    #else
      return CommandLine.arguments.first.flatMap { $0.hasPrefix("/") ? $0 : nil }
    #endif
  }

  /// Starts `executable` with `arguments` and `environment`; its process id. Throws when it
  /// cannot be started.
  @discardableResult
  static func start(_ executable: String, _ arguments: [String], environment: [String: String])
    throws(SystemError) -> pid_t
  {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var every = sigset_t()
    sigfillset(&every)
    posix_spawnattr_setsigdefault(&attributes, &every)
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
    #if os(Linux)
      flags |= 0x80  // POSIX_SPAWN_SETSID (glibc 2.26), which Swift does not import
    #endif
    posix_spawnattr_setflags(&attributes, Int16(flags))
    #if os(Linux)
      var actions = posix_spawn_file_actions_t()
    #else
      var actions: posix_spawn_file_actions_t?
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for fd: Int32 in [0, 1, 2] {
      posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { envp.forEach { free($0) } }
    var pid = pid_t()
    let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
    guard status == 0 else { throw SystemError(operation: "start", path: executable, code: status) }
    return pid
  }
}
