import CLibCrypto
import Foundation

/// An incremental SHA-256 over OpenSSL's libcrypto (its low-level `SHA256_*` functions, the
/// same assembly as EVP without EVP's one-time provider set-up).
///
/// One value owns one `SHA256_CTX`, freed in `deinit`. Not thread-safe; use one per stream.
public final class SHA256 {
  private let context: UnsafeMutablePointer<SHA256_CTX>

  /// Starts a new digest.
  public init() {
    context = .allocate(capacity: 1)
    SHA256_Init(context)
  }

  deinit { context.deallocate() }

  /// Feeds `count` bytes at `bytes` into the digest.
  public func update(_ bytes: UnsafeRawPointer, count: Int) {
    if count > 0 { SHA256_Update(context, bytes, count) }
  }

  /// Feeds a byte sequence into the digest.
  public func update<Bytes: ContiguousBytes>(_ data: Bytes) {
    data.withUnsafeBytes { buffer in
      if let base = buffer.baseAddress { update(base, count: buffer.count) }
    }
  }

  /// Finishes the digest and returns it as 64 lowercase hex digits. Call once.
  public func finalize() -> String {
    var digest = [UInt8](repeating: 0, count: 32)
    SHA256_Final(&digest, context)
    return hexString(digest)
  }

  /// The SHA-256 of `text`'s UTF-8 bytes, as hex.
  public static func hex(of text: String) -> String {
    let hash = SHA256()
    hash.update(Array(text.utf8))
    return hash.finalize()
  }
}

private let hexDigits = Array("0123456789abcdef".utf8)

/// Lowercase hex of `bytes`.
func hexString(_ bytes: [UInt8]) -> String {
  String(unsafeUninitializedCapacity: bytes.count * 2) { out in
    for (index, byte) in bytes.enumerated() {
      out[2 * index] = hexDigits[Int(byte >> 4)]
      out[2 * index + 1] = hexDigits[Int(byte & 0x0f)]
    }
    return bytes.count * 2
  }
}

/// HMAC-SHA256 (RFC 2104) over the low-level SHA-256: libcrypto's own HMAC goes through EVP,
/// whose provider code is most of libcrypto and would all be linked into the program.
enum HMACSHA256 {
  /// The raw 32-byte MAC of `message` under `key`.
  static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
    let blockSize = 64
    var block = key.count > blockSize ? digest(key) : key
    block += [UInt8](repeating: 0, count: blockSize - block.count)
    let inner = digest(block.map { $0 ^ 0x36 } + message)
    return digest(block.map { $0 ^ 0x5c } + inner)
  }

  private static func digest(_ bytes: [UInt8]) -> [UInt8] {
    var context = SHA256_CTX()
    var out = [UInt8](repeating: 0, count: 32)
    SHA256_Init(&context)
    SHA256_Update(&context, bytes, bytes.count)
    SHA256_Final(&out, &context)
    return out
  }
}

/// An incremental MD5 (for S3's Content-MD5 integrity header only), over the low-level
/// `MD5_*` functions for the same reason as `HMACSHA256`.
final class MD5 {
  private let context: UnsafeMutablePointer<MD5_CTX>

  init() {
    context = .allocate(capacity: 1)
    MD5_Init(context)
  }

  deinit { context.deallocate() }

  func update(_ bytes: UnsafeRawPointer, count: Int) {
    if count > 0 { MD5_Update(context, bytes, count) }
  }

  /// The 16-byte digest, base64-encoded as Content-MD5 wants.
  func finalizeBase64() -> String {
    var digest = [UInt8](repeating: 0, count: 16)
    MD5_Final(&digest, context)
    return Data(digest).base64EncodedString()
  }
}
