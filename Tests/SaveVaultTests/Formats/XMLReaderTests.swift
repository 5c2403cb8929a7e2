import Foundation
import Testing

@testable import SaveVault

#if canImport(FoundationXML)
  // Only these two: FoundationXML's own XMLNode would hide ours.
  import class FoundationXML.XMLParser
  import protocol FoundationXML.XMLParserDelegate
#endif

@Suite(
  "XMLReader: S3's response documents read as XMLParser read them; malformed ones refused", .tags(.small))
struct XMLReaderTests {
  struct Case: CustomTestStringConvertible, Sendable {
    var name: String
    var xml: String
    /// The tree, with whitespace-only text of elements that have children left out (see `tidy`).
    var tree: XMLNode
    /// Foundation's XMLParser reads it the same (not with CDATA, which XMLParser drops, nor with a
    /// processing instruction without data, on which XMLParser crashes).
    var likeXMLParser = true
    var testDescription: String { name }
  }

  static func node(_ name: String, _ text: String = "", _ children: [XMLNode] = []) -> XMLNode {
    XMLNode(name: name, text: text, children: children)
  }

  static func contents(_ key: String, _ modified: String, _ etag: String, _ size: String) -> XMLNode {
    node(
      "Contents", "",
      [
        node("Key", key), node("LastModified", modified), node("ETag", etag), node("Size", size),
        node("StorageClass", "STANDARD"),
      ])
  }

  /// The tree with whitespace-only text of elements that have children cleared: the reader keeps
  /// it (as XMLParser did), and the tables read better without it.
  static func tidy(_ node: XMLNode) -> XMLNode {
    var node = node
    if !node.children.isEmpty, node.text.allSatisfy(\.isWhitespace) { node.text = "" }
    node.children = node.children.map(tidy)
    return node
  }

  static let listBucket = """
    <?xml version="1.0" encoding="UTF-8"?>
    <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
      <Name>saves</Name>
      <Prefix>elden-ring/</Prefix>
      <KeyCount>2</KeyCount>
      <MaxKeys>2</MaxKeys>
      <IsTruncated>true</IsTruncated>
      <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
      <Contents>
        <Key>elden-ring/Tom &amp; Jerry &lt;1&gt; &#x1F3AE; Spielstände.tar</Key>
        <LastModified>2026-11-29T16:03:47.000Z</LastModified>
        <ETag>&quot;70ee1738b6b21e2c8a43f3a5ab0eee71&quot;</ETag>
        <Size>11</Size>
        <StorageClass>STANDARD</StorageClass>
      </Contents>
      <Contents>
        <Key>elden-ring/セーブ 2.tar.zst</Key>
        <LastModified>2026-11-30T08:00:00.000Z</LastModified>
        <ETag>&quot;9c8af9a76df052144598c115ef33e511&quot;</ETag>
        <Size>4192256</Size>
        <StorageClass>STANDARD</StorageClass>
      </Contents>
    </ListBucketResult>

    """

  static let error = """
    <?xml version="1.0" encoding="UTF-8"?>
    <Error>
      <Code>RequestTimeTooSkewed</Code>
      <Message>The difference between the request time and the current time is too large.</Message>
      <RequestTime>20261202T014200Z</RequestTime>
      <ServerTime>2026-12-02T01:57:00Z</ServerTime>
      <MaxAllowedSkewMilliseconds>900000</MaxAllowedSkewMilliseconds>
      <RequestId>4442587FB7D0A2F9</RequestId>
    </Error>
    """

  static let uploads = """
    <?xml version="1.0" encoding="UTF-8"?>
    <ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
      <Bucket>saves</Bucket>
      <KeyMarker></KeyMarker>
      <UploadIdMarker></UploadIdMarker>
      <MaxUploads>1000</MaxUploads>
      <IsTruncated>false</IsTruncated>
      <Upload>
        <Key>hades/save 1.tar</Key>
        <UploadId>VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA</UploadId>
        <Initiator>
          <ID>arn:aws:iam::111122223333:user/user1</ID>
          <DisplayName>user1</DisplayName>
        </Initiator>
        <StorageClass>STANDARD</StorageClass>
        <Initiated>2026-11-10T20:48:33.000Z</Initiated>
      </Upload>
    </ListMultipartUploadsResult>
    """

  static let accepted: [Case] = [
    Case(
      name: "ListBucketResult with two Contents and a NextContinuationToken", xml: listBucket,
      tree: node(
        "ListBucketResult", "",
        [
          node("Name", "saves"), node("Prefix", "elden-ring/"), node("KeyCount", "2"), node("MaxKeys", "2"),
          node("IsTruncated", "true"),
          node("NextContinuationToken", "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM="),
          contents(
            "elden-ring/Tom & Jerry <1> 🎮 Spielstände.tar", "2026-11-29T16:03:47.000Z",
            "\"70ee1738b6b21e2c8a43f3a5ab0eee71\"", "11"),
          contents(
            "elden-ring/セーブ 2.tar.zst", "2026-11-30T08:00:00.000Z", "\"9c8af9a76df052144598c115ef33e511\"",
            "4192256"),
        ])),
    Case(
      name: "Error with Code, Message and ServerTime", xml: error,
      tree: node(
        "Error", "",
        [
          node("Code", "RequestTimeTooSkewed"),
          node("Message", "The difference between the request time and the current time is too large."),
          node("RequestTime", "20261202T014200Z"), node("ServerTime", "2026-12-02T01:57:00Z"),
          node("MaxAllowedSkewMilliseconds", "900000"), node("RequestId", "4442587FB7D0A2F9"),
        ])),
    Case(
      name: "ListMultipartUploadsResult with an Upload", xml: uploads,
      tree: node(
        "ListMultipartUploadsResult", "",
        [
          node("Bucket", "saves"), node("KeyMarker"), node("UploadIdMarker"), node("MaxUploads", "1000"),
          node("IsTruncated", "false"),
          node(
            "Upload", "",
            [
              node("Key", "hades/save 1.tar"),
              node("UploadId", "VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA"),
              node(
                "Initiator", "",
                [node("ID", "arn:aws:iam::111122223333:user/user1"), node("DisplayName", "user1")]),
              node("StorageClass", "STANDARD"), node("Initiated", "2026-11-10T20:48:33.000Z"),
            ]),
        ])),
    Case(
      name: "InitiateMultipartUploadResult",
      xml: """
        <?xml version="1.0" encoding="UTF-8"?>
        <InitiateMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>saves</Bucket>\
        <Key>a&amp;b.tar</Key><UploadId>2~abc</UploadId></InitiateMultipartUploadResult>
        """,
      tree: node(
        "InitiateMultipartUploadResult", "",
        [node("Bucket", "saves"), node("Key", "a&b.tar"), node("UploadId", "2~abc")])),
    Case(
      name: "CompleteMultipartUploadResult",
      xml: """
        <CompleteMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
        <Location>http://saves.s3.amazonaws.com/a.tar</Location><Bucket>saves</Bucket><Key>a.tar</Key>
        <ETag>"3858f62230ac3c915f300c664312c11f-9"</ETag></CompleteMultipartUploadResult>
        """,
      tree: node(
        "CompleteMultipartUploadResult", "",
        [
          node("Location", "http://saves.s3.amazonaws.com/a.tar"), node("Bucket", "saves"),
          node("Key", "a.tar"),
          node("ETag", "\"3858f62230ac3c915f300c664312c11f-9\""),
        ])),
    Case(
      name: "CopyObjectResult",
      xml: "<CopyObjectResult><LastModified>2026-02-17T03:54:04.000Z</LastModified>"
        + "<ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag></CopyObjectResult>",
      tree: node(
        "CopyObjectResult", "",
        [
          node("LastModified", "2026-02-17T03:54:04.000Z"),
          node("ETag", "\"9b2cf535f27731c974343645a3985328\""),
        ])
    ),
    Case(name: "self-closing root", xml: "<a/>", tree: node("a")),
    Case(name: "self-closing child with a space", xml: "<a><b /></a>", tree: node("a", "", [node("b")])),
    Case(name: "space before an end tag's >", xml: "<a>x</a >", tree: node("a", "x")),
    Case(
      name: "attributes, > inside a quoted value, single quotes, references",
      xml: #"<a xmlns="http://s3" b='x>y' c = "&amp;&#38;&#x26;" d="'">t</a>"#, tree: node("a", "t")),
    Case(name: "namespace prefix kept as written", xml: "<ns:Key>k</ns:Key>", tree: node("ns:Key", "k")),
    Case(
      name: "the five entities and character references",
      xml: "<K>&lt;&gt;&amp;&apos;&quot;|&#38;&#x26;&#0038;|&#x1F3AE;&#127918;&#xe9;</K>",
      tree: node("K", "<>&'\"|&&&|🎮🎮é")),
    Case(
      name: "CDATA text as is", xml: "<K>a<![CDATA[<b>&amp;]]]]>c</K>", tree: node("K", "a<b>&amp;]]c"),
      likeXMLParser: false),
    Case(
      name: "comments and processing instructions skipped", xml: "<K>a<!-- <x> -->b<?pi data?>c</K>",
      tree: node("K", "abc")),
    Case(
      name: "declaration, comments and whitespace around the root",
      xml: "<?xml version=\"1.0\"?>\n<!-- head -->\n<?pi?>\n<a>x</a>\n<!-- tail -->\n<?pi?>\n",
      tree: node("a", "x"), likeXMLParser: false),
    Case(name: "a byte order mark", xml: "\u{FEFF}<?xml version=\"1.0\"?><a>x</a>", tree: node("a", "x")),
    Case(name: "CR LF and CR read as LF", xml: "<a>x\r\ny\rz&#13;</a>", tree: node("a", "x\ny\nz\r")),
    Case(name: "whitespace-only leaf keeps it", xml: "<a> \t</a>", tree: node("a", " \t")),
    Case(
      name: "non-ASCII names and text", xml: "<Schlüssel>ゲーム/Spielstände 1.sav</Schlüssel>",
      tree: node("Schlüssel", "ゲーム/Spielstände 1.sav")),
    Case(name: "64 levels", xml: nested(64), tree: nestedTree(64)),
  ]

  static func nested(_ depth: Int) -> String {
    String(repeating: "<a>", count: depth) + "x" + String(repeating: "</a>", count: depth)
  }

  static func nestedTree(_ depth: Int) -> XMLNode {
    var tree = node("a", "x")
    for _ in 1..<depth { tree = node("a", "", [tree]) }
    return tree
  }

  @Test("accepted", arguments: accepted)
  func accepts(_ sample: Case) throws {
    let parsed = try #require(XMLNode.parse(Data(sample.xml.utf8)))
    #expect(Self.tidy(parsed) == sample.tree)
    #if canImport(FoundationXML)
      if sample.likeXMLParser {
        #expect(parsed == foundationTree(Data(sample.xml.utf8)))
      }
    #endif
  }

  @Test("whitespace between elements goes into the parent's text, not into a leaf's value")
  func whitespace() throws {
    let parsed = try #require(XMLNode.parse(Data("<a>\n  <b>x</b>\n  <c/>\n</a>".utf8)))
    #expect(parsed == Self.node("a", "\n  \n  \n", [Self.node("b", "x"), Self.node("c")]))
    #expect(parsed.value("b") == "x")
  }

  @Test("the S3 documents read through their types")
  func documents() throws {
    let page = try #require(S3ListPage(Data(Self.listBucket.utf8)))
    #expect(
      page.objects.map(\.key) == ["elden-ring/Tom & Jerry <1> 🎮 Spielstände.tar", "elden-ring/セーブ 2.tar.zst"])
    #expect(page.objects.map(\.size) == [11, 4_192_256])
    #expect(page.isTruncated && page.nextToken == "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=")
    let error = try #require(S3ErrorDocument(Data(Self.error.utf8)))
    #expect(error.code == "RequestTimeTooSkewed" && error.serverTime == "2026-12-02T01:57:00Z")
    let uploads = try #require(XMLNode.parse(Data(Self.uploads.utf8)))
    #expect(uploads.all("Upload").compactMap { $0.value("Key") } == ["hades/save 1.tar"])
  }

  struct Refusal: CustomTestStringConvertible, Sendable {
    var name: String
    var xml: String
    var testDescription: String { name }
  }

  static let refused: [Refusal] = [
    ("empty", ""), ("whitespace only", "  \n"), ("a declaration only", "<?xml version=\"1.0\"?>"),
    ("a comment only", "<!-- only a comment -->"),
    ("unclosed", "<a>"), ("unclosed child", "<a><b></a>"), ("mismatched", "<a></b>"),
    ("crossed", "<a><b></a></b>"), ("an end tag only", "</a>"), ("an end tag with an attribute", "<a></a b>"),
    ("space inside />", "<a/ >"),
    ("text after the root", "<a/>x"), ("text before the root", "x<a/>"), ("a second root", "<a/><b/>"),
    ("an unclosed comment after the root", "<a/><!-- x"), ("CDATA outside the root", "<![CDATA[x]]><a/>"),
    ("a DOCTYPE", "<!DOCTYPE a><a/>"),
    (
      "a DOCTYPE with entities",
      "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;\">]><a>&lol2;</a>"
    ),
    ("another declaration", "<!ELEMENT a ANY><a/>"),
    ("an unknown entity", "<a>&foo;</a>"), ("an unterminated entity", "<a>&amp</a>"),
    ("a lone &", "<a>& b</a>"),
    ("an empty character reference", "<a>&#;</a>"), ("an empty hex reference", "<a>&#x;</a>"),
    ("a bad decimal reference", "<a>&#12a;</a>"), ("an upper-case X reference", "<a>&#X26;</a>"),
    ("a reference to 0", "<a>&#0;</a>"), ("a hex reference to 0", "<a>&#x0;</a>"),
    ("a reference to a high surrogate", "<a>&#xD800;</a>"),
    ("a reference to a low surrogate", "<a>&#xDFFF;</a>"),
    ("a reference beyond U+10FFFF", "<a>&#x110000;</a>"), ("a reference to U+FFFE", "<a>&#xFFFE;</a>"),
    ("a reference to a control character", "<a>&#1;</a>"),
    ("an overflowing reference", "<a>&#99999999999999999999;</a>"),
    ("< in a double-quoted value", "<a b=\"<\"/>"), ("< in a single-quoted value", "<a b='<'/>"),
    ("an unquoted value", "<a b=1/>"), ("an attribute without a value", "<a b/>"),
    ("a repeated attribute", "<a b=\"1\" b=\"2\"/>"), ("attributes without space", "<a b=\"1\"c=\"2\"/>"),
    ("an unknown entity in a value", "<a b=\"&foo;\"/>"), ("an unclosed value", "<a b=\"x/>"),
    ("]]> in text", "<a>]]></a>"), ("unclosed CDATA", "<a><![CDATA[x</a>"),
    ("-- in a comment", "<a><!-- a -- b --></a>"), ("---> ending a comment", "<a><!-- x ---></a>"),
    ("an unclosed processing instruction", "<a><?pi x</a>"),
    ("a name starting with a digit", "<1a/>"), ("a name starting with -", "<-a/>"),
    ("space after <", "< a/>"),
    ("a control character", "<a>\u{1}</a>"), ("U+FFFF", "<a>\u{FFFF}</a>"),
    ("a declaration after space", " <?xml version=\"1.0\"?><a/>"),
    ("a declaration inside the root", "<a><?xml version=\"1.0\"?></a>"),
    ("65 levels", nested(XMLReader.maxDepth + 1)), ("10,000 levels", nested(10_000)),
  ].map { Refusal(name: $0.0, xml: $0.1) }

  @Test("refused", arguments: refused)
  func refuses(_ refusal: Refusal) {
    #expect(XMLNode.parse(Data(refusal.xml.utf8)) == nil)
  }

  @Test(
    "invalid UTF-8 is refused", arguments: [[0xFF], [0xC3], [0xED, 0xA0, 0x80], [0xC0, 0xAF]] as [[UInt8]])
  func invalidUTF8(_ bytes: [UInt8]) {
    #expect(XMLNode.parse(Data(Array("<a>".utf8) + bytes + Array("</a>".utf8))) == nil)
    #expect(XMLNode.parse(Data(Array("<a".utf8) + bytes + Array("/>".utf8))) == nil)
  }

  #if canImport(FoundationXML)
    /// The tree as the former reader built it from Foundation's XMLParser.
    private func foundationTree(_ data: Data) -> XMLNode? {
      let builder = Builder()
      let parser = XMLParser(data: data)
      parser.delegate = builder
      guard parser.parse() else { return nil }
      return builder.root
    }

    private final class Builder: NSObject, XMLParserDelegate {
      var stack: [XMLNode] = []
      var root: XMLNode?

      func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
      ) {
        stack.append(XMLNode(name: name))
      }

      func parser(_ parser: XMLParser, foundCharacters string: String) {
        if !stack.isEmpty { stack[stack.count - 1].text += string }
      }

      func parser(
        _ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?
      ) {
        guard let done = stack.popLast() else { return }
        if stack.isEmpty { root = done } else { stack[stack.count - 1].children.append(done) }
      }
    }
  #endif
}
