import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

#if os(Linux)
  /// glibc declares `unshare` only under `_GNU_SOURCE`, which Swift's Glibc module lacks.
  @_silgen_name("unshare") private func linuxUnshare(_ flags: Int32) -> Int32
  private let cloneFS: Int32 = 0x0000_0200
#endif

extension Platform {
  /// Process-wide working-directory changes take turns.
  private static let workingDirectoryLock = NSLock()

  /// Runs `body` with `directory` as its working directory, which is process-wide: libarchive
  /// resolves the entries it writes against it.
  ///
  /// On Linux `body` runs on a thread of its own that stops sharing the working directory with
  /// the process (`unshare(CLONE_FS)`), so other threads (a launcher embedding the library,
  /// parallel tests starting programs or using relative paths) never see it change. Where that
  /// is refused (a sandbox filtering system calls), and on macOS, the process's working
  /// directory is changed under a lock and put back afterwards. Throws `SystemError` when
  /// `directory` cannot be entered, and whatever `body` throws.
  static func withWorkingDirectory<T>(_ directory: String, _ body: () throws -> T) throws -> T {
    #if os(Linux)
      let outcome: Result<T, any Error>? = withoutActuallyEscaping(body) { body in
        let job = PrivateDirectoryJob(directory: directory, body: body)
        let thread = Thread { job.run() }
        thread.stackSize = 8 << 20
        thread.start()
        job.done.wait()
        return job.outcome
      }
      if let outcome { return try outcome.get() }
    #endif
    workingDirectoryLock.lock()
    defer { workingDirectoryLock.unlock() }
    let previous = open(".", O_RDONLY | O_DIRECTORY)
    guard chdir(directory) == 0 else {
      let code = errno
      if previous >= 0 { close(previous) }
      throw SystemError(operation: "enter", path: directory, code: code)
    }
    defer {
      if previous >= 0 {
        _ = fchdir(previous)
        close(previous)
      }
    }
    return try body()
  }
}

#if os(Linux)
  /// `body` on a thread with a working directory of its own; `outcome` stays nil when the
  /// thread could not get one. The caller waits on `done`, and `body` is let go before that,
  /// so it never outlives its call.
  private final class PrivateDirectoryJob<T>: @unchecked Sendable {
    let directory: String
    private var body: (() throws -> T)?
    let done = DispatchSemaphore(value: 0)
    private(set) var outcome: Result<T, any Error>?

    init(directory: String, body: @escaping () throws -> T) {
      self.directory = directory
      self.body = body
    }

    func run() {
      execute()
      body = nil
      done.signal()
    }

    private func execute() {
      guard linuxUnshare(cloneFS) == 0, let body else { return }
      guard chdir(directory) == 0 else {
        outcome = .failure(SystemError(operation: "enter", path: directory, code: errno))
        return
      }
      outcome = Result { try body() }
    }
  }
#endif
