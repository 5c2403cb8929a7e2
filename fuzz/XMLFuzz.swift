// libFuzzer target: XMLReader, which reads S3's responses (bytes from a server we do not
// control). It must never trap, hang or grow without bound; what it accepts is no deeper than
// its limit, and written back as XML it reads again as the same tree.
import Foundation

public func fuzzXML(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard let tree = XMLNode.parse(Data(bytes: data, count: size)) else { return 0 }
  guard depth(tree) <= XMLReader.maxDepth else { fatalError("deeper than the limit: \(depth(tree))") }
  let written = xmlText(tree)
  guard let again = XMLNode.parse(Data(written.utf8)) else {
    fatalError("written tree does not parse: \(written)")
  }
  guard again == tree else { fatalError("does not round-trip: \(written)") }
  return 0
}

private func depth(_ node: XMLNode) -> Int { 1 + (node.children.map(depth).max() ?? 0) }

/// The element with its text first, escaped (a carriage return as a reference, since a literal
/// one reads as a line feed), then its children: the same tree.
private func xmlText(_ node: XMLNode) -> String {
  var text = ""
  for scalar in node.text.unicodeScalars {
    switch scalar {
    case "&": text += "&amp;"
    case "<": text += "&lt;"
    case ">": text += "&gt;"
    case "\r": text += "&#13;"
    default: text.unicodeScalars.append(scalar)
    }
  }
  return "<\(node.name)>\(text)\(node.children.map(xmlText).joined())</\(node.name)>"
}
