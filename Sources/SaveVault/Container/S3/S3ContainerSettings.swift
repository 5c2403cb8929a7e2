import Foundation

/// How an S3 container reaches its server and sends archives, fixed when the container is
/// made.
public struct S3ContainerSettings: Sendable, Equatable {
  /// A custom endpoint (MinIO, Garage, R2, B2, …), addressed path-style; nil: AWS itself,
  /// addressed virtual-hosted.
  public let endpoint: String?
  public let region: String
  /// Whether plain HTTP to another machine is allowed (never needed for this machine).
  public let allowsInsecureHTTP: Bool
  /// How failed requests are tried again.
  public let retry: RetryPolicy
  /// How long a silent connection is waited for, in seconds.
  public let idleTimeout: TimeInterval
  /// ListObjectsV2 page size (the server's default when nil); tests make it small.
  public let pageSize: Int?
  /// The size of the first 2,000 parts of a multipart upload (S3's smallest allowed is 5 MiB,
  /// except for the last part).
  public let partSize: Int64
  /// Archives above this size are sent in parts (which start going out while the archive is
  /// still being written).
  public let multipartThreshold: Int64

  /// Settings; `multipartThreshold` defaults to `partSize`.
  public init(
    endpoint: String? = nil, region: String = "us-east-1", allowsInsecureHTTP: Bool = false,
    retry: RetryPolicy = RetryPolicy(), idleTimeout: TimeInterval = 20, pageSize: Int? = nil,
    partSize: Int64 = 5 << 20, multipartThreshold: Int64? = nil
  ) {
    self.endpoint = endpoint
    self.region = region
    self.allowsInsecureHTTP = allowsInsecureHTTP
    self.retry = retry
    self.idleTimeout = idleTimeout
    self.pageSize = pageSize
    self.partSize = partSize
    self.multipartThreshold = multipartThreshold ?? partSize
  }
}
