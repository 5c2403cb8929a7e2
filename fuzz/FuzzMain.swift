// The one entry point libFuzzer calls: it runs the target SAVEVAULT_FUZZ_TARGET names
// (fuzz/run.sh sets it), so that one build of the library serves every target.
import Foundation

private let fuzzTarget = ProcessInfo.processInfo.environment["SAVEVAULT_FUZZ_TARGET"] ?? ""

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  switch fuzzTarget {
  case "archive": fuzzArchive(data, size)
  case "names": fuzzNames(data, size)
  case "manifest": fuzzManifest(data, size)
  case "yaml": fuzzYAML(data, size)
  case "keyvalues": fuzzKeyValues(data, size)
  case "binarykeyvalues": fuzzBinaryKeyValues(data, size)
  case "xml": fuzzXML(data, size)
  case "wineregistry": fuzzWineRegistry(data, size)
  default: fatalError("SAVEVAULT_FUZZ_TARGET must be archive, names, manifest, yaml, keyvalues, binarykeyvalues, xml or wineregistry")
  }
}
