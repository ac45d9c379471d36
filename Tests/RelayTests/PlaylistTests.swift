import Foundation
import TestSupport
import XCTest
@testable import Relay

final class PlaylistTests: XCTestCase {
    static let media = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:4
        #EXT-X-MEDIA-SEQUENCE:100
        #EXT-X-DISCONTINUITY-SEQUENCE:3
        #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.0
        #EXT-X-PART-INF:PART-TARGET=0.5
        #EXT-X-KEY:METHOD=AES-128,URI="https://keys.example/k1?x=1,y",IV=0x0123456789abcdef0123456789abcdef
        #EXT-X-MAP:URI="init.mp4",BYTERANGE="700@0"
        #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
        #EXT-X-DATERANGE:ID="ad-1",START-DATE="2026-01-01T00:00:04.000Z",DURATION=8.0,SCTE35-OUT=0xFC002F
        #EXT-OATCLS-SCTE35:/DAlAAAAAAAAAP/wFAUAAAABf+/+AAAAAH4AKTLgAAEAAAAAtRGPdQ==
        #EXT-X-CUE-OUT:8.0
        #EXTINF:4.000,first
        all.mp4
        #EXT-X-BYTERANGE:1000@700
        #EXTINF:4.000,
        all.mp4
        #EXT-X-BYTERANGE:1200
        #EXT-X-VENDOR-THING:whatever="x"
        # a comment
        #EXT-X-DISCONTINUITY
        #EXTINF:3.5,
        all.mp4
        #EXT-X-CUE-IN
        #EXT-X-PART:DURATION=0.5,URI="part.103.0.mp4",INDEPENDENT=YES
        #EXT-X-PART:DURATION=0.5,URI="parts.mp4",BYTERANGE="300@0"
        #EXT-X-PART:DURATION=0.5,URI="parts.mp4",BYTERANGE="200"
        #EXT-X-PRELOAD-HINT:TYPE=PART,URI="parts.mp4",BYTERANGE-START=500
        #EXT-X-RENDITION-REPORT:URI="../low/index.m3u8",LAST-MSN=102,LAST-PART=2

        """

    func testMediaPlaylistReferencesEveryTagKind() throws {
        // The first segment has no byte range, so make one for the test of implicit offsets.
        let text = Self.media.replacingOccurrences(of: "#EXTINF:4.000,first\nall.mp4", with: "#EXT-X-BYTERANGE:500@0\n#EXTINF:4.000,first\nall.mp4")
        let p = try Playlist.parse(Array(text.utf8))
        XCTAssertEqual(p.kind, .media)
        XCTAssertEqual(p.serialized(), Array(text.utf8))
        let refs = p.references.map { "\($0.kind.rawValue) \($0.uri) \($0.byteRange?.description ?? "-") \($0.sequence.map(String.init) ?? "-")" }
        XCTAssertEqual(refs, [
            "key https://keys.example/k1?x=1,y - 100",
            "map init.mp4 700@0 100",
            "segment all.mp4 500@0 100",
            "segment all.mp4 1000@700 101",
            "segment all.mp4 1200@1700 102",
            "part part.103.0.mp4 - 103",
            "part parts.mp4 300@0 103",
            "part parts.mp4 200@300 103",
            "preloadHint parts.mp4 500- -",
            "renditionReport ../low/index.m3u8 - -",
        ])
        let m = try XCTUnwrap(p.media)
        XCTAssertEqual(m.targetDuration, 4)
        XCTAssertEqual(m.mediaSequence, 100)
        XCTAssertEqual(m.discontinuitySequence, 3)
        XCTAssertFalse(m.endList)
        XCTAssertEqual(m.segments.map(\.discontinuitySequence), [3, 3, 4])
        XCTAssertEqual(m.segments.map(\.discontinuity), [false, false, true])
        XCTAssertEqual(m.segments[0].programDateTime, "2026-01-01T00:00:00.000Z")
        XCTAssertNil(m.segments[1].programDateTime)
        XCTAssertEqual(m.segments[2].mapURI, "init.mp4")
        XCTAssertEqual(m.segments[2].mapRange, ByteRange(offset: 0, length: 700))
        XCTAssertEqual(m.segments[2].keys.count, 1)
        XCTAssertEqual(m.segments[0].extinf, "4.000,first")
        XCTAssertEqual(p.tagLines("EXT-X-DATERANGE").count, 1)
    }

    func testMultivariantReferences() throws {
        let text = """
            #EXTM3U
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-CONTENT-STEERING:SERVER-URI="steer.json",PATHWAY-ID="A"
            #EXT-X-SESSION-DATA:DATA-ID="com.example.title",URI="title.json"
            #EXT-X-SESSION-DATA:DATA-ID="com.example.lang",VALUE="en"
            #EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI="skd://key1",KEYFORMAT="com.apple.streamingkeydelivery"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="en",URI="audio/en.m3u8"
            #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="cc1",INSTREAM-ID="CC1"
            #EXT-X-STREAM-INF:BANDWIDTH=1280000,CODECS="avc1.64001f,mp4a.40.2",AUDIO="aud"
            v0/index.m3u8

            #EXT-X-STREAM-INF:BANDWIDTH=2560000
            https://cdn.example/v1/index.m3u8?token=a
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=86000,URI="v0/iframes.m3u8"

            """
        let p = try Playlist.parse(Array(text.utf8))
        XCTAssertEqual(p.kind, .multivariant)
        XCTAssertNil(p.media)
        XCTAssertEqual(p.references.map(\.kind), [.contentSteering, .sessionData, .sessionKey, .media, .variantStream, .variantStream, .iFrameStream])
        XCTAssertEqual(p.references.map(\.uri), ["steer.json", "title.json", "skd://key1", "audio/en.m3u8", "v0/index.m3u8",
                                                 "https://cdn.example/v1/index.m3u8?token=a", "v0/iframes.m3u8"])
        XCTAssertEqual(p.references.map(\.line), [3, 4, 6, 7, 10, 13, 14])
        XCTAssertEqual(p.serialized(), Array(text.utf8))
        let r = try p.rewritingURIs { "/local/\($0.kind.rawValue)" }
        XCTAssertEqual(r.references.map(\.uri), p.references.map { "/local/\($0.kind.rawValue)" })
        // Everything but the URIs is byte for byte the same.
        let expected = text
            .replacingOccurrences(of: "\"steer.json\"", with: "\"/local/contentSteering\"")
            .replacingOccurrences(of: "\"title.json\"", with: "\"/local/sessionData\"")
            .replacingOccurrences(of: "\"skd://key1\"", with: "\"/local/sessionKey\"")
            .replacingOccurrences(of: "\"audio/en.m3u8\"", with: "\"/local/media\"")
            .replacingOccurrences(of: "\nv0/index.m3u8\n", with: "\n/local/variantStream\n")
            .replacingOccurrences(of: "\nhttps://cdn.example/v1/index.m3u8?token=a\n", with: "\n/local/variantStream\n")
            .replacingOccurrences(of: "\"v0/iframes.m3u8\"", with: "\"/local/iFrameStream\"")
        XCTAssertEqual(String(decoding: r.serialized(), as: UTF8.self), expected)
    }

    func testRewriteChangesOnlyURIsAndKeepsUnknownTags() throws {
        let p = try Playlist.parse(Array(Self.media.utf8))
        var seen: [ReferenceKind] = []
        var names: [String: String] = [:]
        // The same URI must map to the same name: implicit byte-range offsets continue the
        // previous range of the same URI.
        let r = try p.rewritingURIs { ref in
            seen.append(ref.kind)
            if let n = names[ref.uri] { return n }
            names[ref.uri] = "u\(names.count).bin"
            return names[ref.uri]
        }
        XCTAssertEqual(Set(seen), [.key, .map, .segment, .part, .preloadHint, .renditionReport])
        XCTAssertEqual(r.references.map(\.uri), p.references.map { names[$0.uri]! })
        XCTAssertEqual(r.references.map(\.byteRange), p.references.map(\.byteRange))
        XCTAssertEqual(r.references.map(\.line), p.references.map(\.line))
        let a = p.lines, b = r.lines
        XCTAssertEqual(a.count, b.count)
        let uriLines = Set(p.references.map(\.line))
        for (x, y) in zip(a, b) where !uriLines.contains(x.number) {
            XCTAssertEqual(x, y)
        }
        XCTAssertEqual(r.tagLines("EXT-X-DATERANGE"), p.tagLines("EXT-X-DATERANGE"))
        XCTAssertEqual(r.lines[11].text, "#EXT-OATCLS-SCTE35:/DAlAAAAAAAAAP/wFAUAAAABf+/+AAAAAH4AKTLgAAEAAAAAtRGPdQ==")
        XCTAssertEqual(r.lines[7].text, "#EXT-X-KEY:METHOD=AES-128,URI=\"u0.bin\",IV=0x0123456789abcdef0123456789abcdef")
    }

    func testByteForByteWithCRLFAndNoFinalNewline() throws {
        let text = "#EXTM3U\r\n#EXT-X-TARGETDURATION:2\r\n\r\n#EXTINF:2,\r\na.ts\r\n#EXTINF:2.0,\nb.ts\n#EXT-X-ENDLIST"
        let p = try Playlist.parse(Array(text.utf8))
        XCTAssertEqual(p.serialized(), Array(text.utf8))
        XCTAssertEqual(p.segments.map(\.uri), ["a.ts", "b.ts"])
        XCTAssertEqual(p.media?.endList, true)
        let r = try p.rewritingURIs { $0.uri == "a.ts" ? "zz.ts" : nil }
        XCTAssertEqual(String(decoding: r.serialized(), as: UTF8.self), text.replacingOccurrences(of: "a.ts", with: "zz.ts"))
    }

    func testErrorsNameTheLine() {
        func err(_ text: String) -> PlaylistError? {
            do { _ = try Playlist.parse(Array(text.utf8)); return nil } catch { return error }
        }
        XCTAssertEqual(err("#EXTM3\n")?.line, 1)
        XCTAssertEqual(err("\u{FEFF}#EXTM3U\n")?.line, 1)
        XCTAssertEqual(err("#EXTM3U\n#EXT-X-TARGETDURATION:2\nseg.ts\n"), PlaylistError(line: 3, "URI line without a preceding EXTINF"))
        XCTAssertEqual(err("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n#EXTINF:2,\na.ts\n")?.line, 4)
        XCTAssertEqual(err("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:x,\na.ts\n")?.line, 3)
        XCTAssertEqual(err("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n")?.line, 3)
        XCTAssertEqual(err("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-BYTERANGE:100\n#EXTINF:2,\na.ts\n")?.line, 3)
        XCTAssertEqual(err("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MAP:URI=init.mp4\n")?.line, 3)
        XCTAssertEqual(err("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MAP:URI=\"a\n")?.line, 3)
        XCTAssertEqual(err("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-TARGETDURATION:3\n")?.line, 3)
        XCTAssertEqual(err("#EXTM3U\n#EXT-X-TARGETDURATION:x\n")?.line, 2)
        XCTAssertEqual(err("#EXTM3U\n#EXTINF:2,\na.ts\n"), PlaylistError(line: 0, "media playlist without EXT-X-TARGETDURATION"))
        XCTAssertEqual(err("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n#EXT-X-TARGETDURATION:2\n")?.line, 3)
        XCTAssertEqual(err("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n")?.line, 2)
        XCTAssertEqual(err("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n#EXT-X-INDEPENDENT-SEGMENTS\na.m3u8\n")?.line, 3)
        XCTAssertEqual(err("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,URI=\"a\",URI=\"b\"\n")?.line, 2)
        XCTAssertEqual(err("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na\u{1}.ts\n")?.line, 4)
        XCTAssertEqual(err("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na\r.ts\n")?.line, 4)
        XCTAssertEqual(err("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=NONE,URI=\"k\"\n")?.line, 3)
        XCTAssertEqual(err("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n#EXT-X-MEDIA-SEQUENCE:4\n")?.line, 5)
        XCTAssertNotNil(err("#EXTM3U\n"))
        XCTAssertNotNil(err(""))
        XCTAssertEqual(try? Playlist.parse([0x23, 0xff]), nil)
    }

    func testRewriteRefusesUnwritableReplacements() throws {
        let p = try Playlist.parse(Array(Self.media.utf8))
        XCTAssertThrowsError(try p.rewritingURIs { $0.kind == .map ? "a\"b" : nil })
        XCTAssertThrowsError(try p.rewritingURIs { $0.kind == .segment ? "#x" : nil })
        XCTAssertThrowsError(try p.rewritingURIs { $0.kind == .segment ? "a\nb" : nil })
        XCTAssertThrowsError(try p.rewritingURIs { $0.kind == .segment ? "" : nil })
    }

    func testImplicitByteRangeNeedsSameURI() {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-BYTERANGE:10@0\n#EXTINF:2,\na.ts\n#EXT-X-BYTERANGE:10\n#EXTINF:2,\nb.ts\n"
        XCTAssertThrowsError(try Playlist.parse(Array(text.utf8))) { e in
            XCTAssertEqual((e as? PlaylistError)?.line, 6)
        }
    }

    /// Sequence numbers and byte ranges are the origin's 64-bit numbers: a sum past 2^64 − 1
    /// is refused naming its line (a fuzzed playlist with a part range ending there trapped
    /// the relay and the sealer), and the largest sums that fit are accepted.
    func testSumsPastSixtyFourBitsAreRefusedNotTrapped() throws {
        let max = UInt64.max
        func err(_ body: String) -> PlaylistError? {
            do { _ = try Playlist.parse(Array("#EXTM3U\n#EXT-X-TARGETDURATION:2\n\(body)".utf8)); return nil } catch { return error }
        }
        let cases: [(String, Int, String)] = [
            ("#EXT-X-PART:DURATION=0.5,URI=\"p.mp4\",BYTERANGE=\"2@\(max)\"\n", 3, "EXT-X-PART byte range end"),
            ("#EXT-X-BYTERANGE:2@\(max - 1)\n#EXTINF:2,\na.ts\n", 3, "byte range end"),
            ("#EXT-X-MAP:URI=\"i.mp4\",BYTERANGE=\"\(max)@1\"\n#EXTINF:2,\na.ts\n", 3, "EXT-X-MAP byte range end"),
            ("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"h.mp4\",BYTERANGE-START=\(max),BYTERANGE-LENGTH=1\n", 3, "EXT-X-PRELOAD-HINT byte range end"),
            ("#EXT-X-MEDIA-SEQUENCE:\(max)\n#EXTINF:2,\na.ts\n#EXTINF:2,\nb.ts\n", 7, "media sequence number"),
            ("#EXT-X-MEDIA-SEQUENCE:\(max)\n#EXTINF:2,\na.ts\n", 0, "media sequence number after the last segment"),
            ("#EXT-X-MEDIA-SEQUENCE:\(max)\n#EXT-X-PART:DURATION=0.5,URI=\"p.mp4\"\n#EXTINF:2,\na.ts\n#EXT-X-PART:DURATION=0.5,URI=\"q.mp4\"\n", 7, "media sequence number"),
            ("#EXT-X-DISCONTINUITY-SEQUENCE:\(max)\n#EXT-X-DISCONTINUITY\n#EXTINF:2,\na.ts\n", 6, "discontinuity sequence number"),
        ]
        for (body, line, what) in cases {
            let e = try XCTUnwrap(err(body), body)
            XCTAssertEqual(e.line, line, body)
            XCTAssertTrue(e.reason.hasPrefix(what + " ") && e.reason.hasSuffix("exceeds 2^64 − 1"), e.description)
        }
        // The largest that fit.
        XCTAssertNil(err("#EXT-X-MEDIA-SEQUENCE:\(max - 1)\n#EXTINF:2,\na.ts\n"))
        XCTAssertNil(err("#EXT-X-BYTERANGE:1@\(max - 1)\n#EXTINF:2,\na.ts\n"))
        XCTAssertNil(err("#EXT-X-DISCONTINUITY-SEQUENCE:\(max - 1)\n#EXT-X-DISCONTINUITY\n#EXTINF:2,\na.ts\n"))
        XCTAssertNil(err("#EXT-X-PART:DURATION=0.5,URI=\"p.mp4\",BYTERANGE=\"1@\(max - 1)\"\n"))
        // A range made by an embedder is held to the same bound, so its `end` cannot trap.
        XCTAssertNil(ByteRange(offset: max, length: 1))
        XCTAssertNil(ByteRange(offset: 1, length: max))
        XCTAssertEqual(ByteRange(offset: max - 1, length: 1)?.end, max)
        XCTAssertEqual(ByteRange(offset: max, length: nil)?.end, .some(nil))
    }

    /// RFC 3986 §5.4, every normal and abnormal example.
    func testRFC3986Resolution() throws {
        let base = try XCTUnwrap(URL(string: "http://a/b/c/d;p?q"))
        let cases: [(String, String)] = [
            ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"),
            (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"), ("g;x?y#s", "http://a/b/c/g;x?y#s"),
            ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
            ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"),
            ("../../g", "http://a/g"), ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"),
            ("/./g", "http://a/g"), ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"),
            ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"), ("./../g", "http://a/b/g"),
            ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"),
            ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"), ("g?y/./x", "http://a/b/c/g?y/./x"),
            ("g?y/../x", "http://a/b/c/g?y/../x"), ("g#s/./x", "http://a/b/c/g#s/./x"), ("g#s/../x", "http://a/b/c/g#s/../x"),
            ("http:g", "http:g"),
        ]
        for (ref, expected) in cases {
            XCTAssertEqual(URIResolution.resolve(ref, against: base)?.absoluteString, expected, ref)
        }
        // Post-redirect base: a playlist moved to another host resolves there.
        let redirected = try XCTUnwrap(URL(string: "https://cdn2.example/live/ch7/index.m3u8?token=abc"))
        XCTAssertEqual(URIResolution.resolve("seg1.ts", against: redirected)?.absoluteString, "https://cdn2.example/live/ch7/seg1.ts")
        XCTAssertEqual(URIResolution.resolve("../ch8/a.m3u8", against: redirected)?.absoluteString, "https://cdn2.example/live/ch8/a.m3u8")
    }

    func testFFmpegPlaylistsRoundTrip() throws {
        let dir = try TempDir()
        for variant in FFmpegStream.Variant.allCases {
            let out = dir.path + "/" + variant.rawValue
            try FFmpegStream.make(variant, in: out)
            for file in try FileManager.default.contentsOfDirectory(atPath: out) where file.hasSuffix(".m3u8") {
                let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: out + "/" + file)))
                let p = try Playlist.parse(bytes)
                XCTAssertEqual(p.serialized(), bytes, "\(variant) \(file)")
                let r = try p.rewritingURIs { "x/" + $0.uri }
                XCTAssertEqual(r.references.map(\.uri), p.references.map { "x/" + $0.uri })
                let back = try r.rewritingURIs { String($0.uri.dropFirst(2)) }
                XCTAssertEqual(back.serialized(), bytes)
                if p.kind == .media { XCTAssertFalse(p.segments.isEmpty, "\(variant) \(file)") }
            }
        }
    }
}

/// RFC 8216 §4.2 attribute lists read one way only: what ffmpeg would read differently is
/// refused (issue: `URI="a",X=1 URI="evil"` — ffmpeg splits at the space and takes the second).
final class StrictAttributeListTests: XCTestCase {
    private func refused(_ line: String, _ fragment: String, file: StaticString = #filePath, l: UInt = #line) {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-VERSION:7\n\(line)\n#EXTINF:2.0,\na.m4s\n#EXT-X-ENDLIST\n"
        XCTAssertThrowsError(try Playlist.parse(Array(text.utf8)), file: file, line: l) { e in
            let d = (e as? PlaylistError)?.description ?? "\(e)"
            XCTAssertTrue(d.contains("line 4") && d.contains(fragment), d, file: file, line: l)
        }
    }

    func testAmbiguousAttributeListsAreRefused() {
        refused(#"#EXT-X-MAP:URI="init.mp4",X=1 URI="http://127.0.0.1:9/evil/init.mp4""#, "unquoted value of attribute X contains whitespace")
        refused(#"#EXT-X-MAP:URI="init.mp4",URI="other.mp4""#, "attribute URI appears twice")
        refused(#"#EXT-X-MAP:URI="init.mp4", BYTERANGE="10@0""#, "whitespace at column")
        refused(#"#EXT-X-MAP:URI="init.mp4" ,BYTERANGE="10@0""#, "expected ','")
        refused(#"#EXT-X-MAP:URI="init.mp4",uri="evil.mp4""#, "attribute name expected")
        refused(#"#EXT-X-KEY:METHOD=AES-128,URI="k.key",IV=0x1"URI="evil""#, "contains '\"'")
        refused("#EXT-X-KEY:METHOD=AES-128,URI=\"k.key\",X=1\tURI=\"evil\"", "whitespace")
        // Tags the relay does not act on are parsed strictly too: a player reads them.
        refused(#"#EXT-X-START:TIME-OFFSET=1,TIME-OFFSET=2"#, "appears twice")
        refused(#"#EXT-X-DATERANGE:ID="a",START-DATE="2026-01-01T00:00:00Z",X-A=1 X-B=2"#, "whitespace")
    }

    func testStrictListsStillReadWhatFFmpegWrites() throws {
        let text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=AES-128,URI=\"k.key\",IV=0x0123456789ABCDEF0123456789abcdef\n"
            + "#EXT-X-MAP:URI=\"init.mp4\",BYTERANGE=\"10@0\"\n#EXT-X-DATERANGE:ID=\"a b\",START-DATE=\"2026-01-01T00:00:00Z\",X-COM=\"x, y\"\n"
            + "#EXTINF:2.0,\na.m4s\n#EXT-X-ENDLIST\n"
        let p = try Playlist.parse(Array(text.utf8))
        XCTAssertEqual(p.references.map(\.uri), ["k.key", "init.mp4", "a.m4s"])
    }

    func testPlaylistsOverTheBoundsAreRefusedBeforeParsing() {
        let p = livePlaylist(first: 0, count: 10)
        XCTAssertNoThrow(try Playlist.parse(p, limits: PlaylistLimits(maxBytes: p.count, maxLines: 24)))
        XCTAssertThrowsError(try Playlist.parse(p, limits: PlaylistLimits(maxBytes: p.count - 1, maxLines: 100))) { e in
            XCTAssertEqual(e as? PlaylistError, PlaylistError(line: 0, "\(p.count) bytes, over the \(p.count - 1)-byte playlist bound"))
        }
        XCTAssertThrowsError(try Playlist.parse(p, limits: PlaylistLimits(maxBytes: 1 << 20, maxLines: 23))) { e in
            XCTAssertEqual(e as? PlaylistError, PlaylistError(line: 0, "24 lines, over the 23-line playlist bound"))
        }
    }
}
