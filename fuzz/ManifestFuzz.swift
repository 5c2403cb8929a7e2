// libFuzzer target: reading a manifest's JSON (it comes from archives that may be crafted).
// ManifestJSON must never accept what Foundation's JSONDecoder refuses, nor read a value
// differently; what it accepts must write back and read again as the same manifest.
import Foundation

/// Foundation's generic decoding (the manifest overload is not seen inside a generic function).
private func foundationDecode<T: Decodable>(_ type: T.Type, _ data: Data) -> T? {
  try? JSONDecoder().decode(type, from: data)
}

public func fuzzManifest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let input = Data(bytes: data, count: size)
  guard let manifest = try? ManifestJSON.decode(input) else { return 0 }
  guard let foundation = foundationDecode(Manifest.self, input) else {
    fatalError("accepted what JSONDecoder refuses: \(String(decoding: input, as: UTF8.self))")
  }
  guard foundation == manifest else {
    fatalError("read differently from JSONDecoder: \(String(decoding: input, as: UTF8.self))")
  }
  let written = ManifestJSON.encode(manifest)
  guard (try? ManifestJSON.decode(written)) == manifest else { fatalError("does not round-trip") }
  guard (try? JSONEncoder.stable.encode(manifest)) == written else { fatalError("differs from JSONEncoder") }
  return 0
}
