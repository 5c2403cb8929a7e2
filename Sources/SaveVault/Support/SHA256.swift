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

/// HMAC-SHA256 through libcrypto.
enum HMACSHA256 {
  /// The raw 32-byte MAC of `message` under `key`.
  static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    _ = key.withUnsafeBufferPointer { keyBuffer in
      message.withUnsafeBufferPointer { messageBuffer in
        HMAC(
          EVP_sha256(), keyBuffer.baseAddress, Int32(keyBuffer.count), messageBuffer.baseAddress,
          messageBuffer.count, &out, &length)
      }
    }
    return out
  }
}

/// An incremental MD5 (for S3's Content-MD5 integrity header only).
final class MD5 {
  private let context: OpaquePointer

  init() {
    guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
    self.context = context
    EVP_DigestInit_ex(context, EVP_md5(), nil)
  }

  deinit { EVP_MD_CTX_free(context) }

  func update(_ bytes: UnsafeRawPointer, count: Int) {
    if count > 0 { EVP_DigestUpdate(context, bytes, count) }
  }

  /// The 16-byte digest, base64-encoded as Content-MD5 wants.
  func finalizeBase64() -> String {
    var digest = [UInt8](repeating: 0, count: 16)
    var length: UInt32 = 0
    EVP_DigestFinal_ex(context, &digest, &length)
    return Data(digest).base64EncodedString()
  }
}
