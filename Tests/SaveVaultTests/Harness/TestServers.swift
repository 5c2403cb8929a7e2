import Foundation
import Testing

@testable import SaveVault

#if canImport(Glibc)
  import Glibc
#endif

/// Real S3 servers on 127.0.0.1, started once per test run on free ports and stopped when the
/// test process exits: `rclone serve s3` and moto's `moto_server`.
final class S3TestServer: Sendable {
  enum Kind: String, Sendable, CaseIterable {
    case rclone, moto
  }

  let kind: Kind
  let port: Int
  let pid: Int32
  let root: String
  static let accessKey = "SAVEVAULTTESTKEY"
  static let secretKey = "savevault/test+secret"

  var endpoint: String { "http://127.0.0.1:\(port)" }
  var credentials: AWSCredentials {
    AWSCredentials(accessKeyID: Self.accessKey, secretAccessKey: Self.secretKey)
  }

  private init(kind: Kind, port: Int, pid: Int32, root: String) {
    self.kind = kind
    self.port = port
    self.pid = pid
    self.root = root
  }

  /// The shared server of each kind (nil, with the reason recorded, when it cannot start).
  static let rclone = start(.rclone)
  static let moto = start(.moto)
  static func shared(_ kind: Kind) -> S3TestServer? { kind == .rclone ? rclone : moto }

  private static func start(_ kind: Kind) -> S3TestServer? {
    let root = (try? Platform.makeTemporaryDirectory(prefix: "/tmp/savevault-s3server-")) ?? "/tmp"
    for _ in 0..<5 {
      let port = freePort()
      let program: String
      let arguments: [String]
      switch kind {
      case .rclone:
        guard let rclone = which("rclone") else { return nil }
        program = rclone
        arguments = [
          "serve", "s3", "--addr", "127.0.0.1:\(port)", "--auth-key", "\(accessKey),\(secretKey)",
          "--config", "/dev/null", root,
        ]
      case .moto:
        guard let moto = which("moto_server") else { return nil }
        program = moto
        arguments = ["-H", "127.0.0.1", "-p", String(port)]
      }
      guard let process = try? SpawnedProgram(program, arguments, stdout: .discarded, stderr: .discarded)
      else {
        return nil
      }
      process.detach()  // shared by the whole run, killed at its exit (registerForExit)
      let server = S3TestServer(kind: kind, port: port, pid: process.processIdentifier, root: root)
      let deadline = Date().addingTimeInterval(30)
      while process.isRunning && Date() < deadline && !server.isListening { usleep(100_000) }
      if server.isListening {
        registerForExit(server.pid)
        return server
      }
      kill(process.processIdentifier, SIGKILL)
    }
    return nil
  }

  private var isListening: Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  /// A port nothing listens on right now.
  static func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    var bound = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &bound) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: bound.sin_port))
  }

  /// A container on a fresh bucket of this server.
  func container(
    bucket: String = "b" + UUID().uuidString.lowercased().prefix(12), prefix: String = "saves",
    pageSize: Int? = nil, partSize: Int64 = 5 << 20
  )
    throws -> S3Container
  {
    let container = try S3Container(
      bucket: bucket, prefix: prefix,
      settings: S3ContainerSettings(
        endpoint: endpoint, retry: RetryPolicy(maxAttempts: 2, baseDelay: 0.05, maxSeconds: 2),
        pageSize: pageSize,
        partSize: partSize),
      credentials: credentials, displayName: "s3://\(bucket)/\(prefix)",
      clock: { Int64(Date().timeIntervalSince1970 * 1000) })
    try makeBucket(bucket, using: container)
    return container
  }

  /// Creates a bucket (rclone serve s3 serves folders as buckets; moto takes a CreateBucket).
  func makeBucket(_ bucket: String, using container: S3Container) throws {
    let response = try container.client.request("PUT", key: nil)
    guard (200..<300).contains(response.status) else {
      throw ContainerError.unavailable(container: bucket, reason: "CreateBucket: HTTP \(response.status)")
    }
  }

  /// The environment that points the binary at this server.
  func environment() -> [String: String] {
    [
      "AWS_ACCESS_KEY_ID": Self.accessKey, "AWS_SECRET_ACCESS_KEY": Self.secretKey,
      "AWS_ENDPOINT_URL": endpoint,
    ]
  }
}

nonisolated(unsafe) private var serversToStop: [Int32] = []
private let stopping = NSLock()

/// Kills the process `pid` (a server or a proxy a test started) when the test process exits,
/// so that none outlives a run whose test ended before it could stop it.
func registerForExit(_ pid: Int32) {
  stopping.lock()
  defer { stopping.unlock() }
  if serversToStop.isEmpty {
    atexit {
      for pid in serversToStop { kill(pid, SIGKILL) }
    }
  }
  serversToStop.append(pid)
}

/// Takes back `registerForExit(pid)` once the test has stopped that process itself, so that
/// the exit never kills another process that was given the same id.
func unregisterForExit(_ pid: Int32) {
  stopping.lock()
  defer { stopping.unlock() }
  serversToStop.removeAll { $0 == pid }
}

/// An rclone remote for tests: a config file with a `local` remote named `testlocal`.
enum RcloneTestRemote {
  static let config: String = {
    let folder = (try? Platform.makeTemporaryDirectory(prefix: "/tmp/savevault-rclone-config-")) ?? "/tmp"
    let path = folder + "/rclone.conf"
    try? "[testlocal]\ntype = local\n".write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }()

  static func environment() -> [String: String] {
    [
      "RCLONE_CONFIG": config, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
      "HOME": "/tmp",
    ]
  }
}
