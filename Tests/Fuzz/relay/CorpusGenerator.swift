// Writes the seed corpora of the relay and audit harnesses: playlists of every kind the relay
// reads (media VOD and live with parts, byte ranges, keys, maps and ad markers; multivariant),
// the same sealed by the fixed publisher key, live revision pairs, bundles of the fixed keys'
// chains (acks of every outcome, ad claims, a continuation) and CMCD bodies. Every seed is
// checked valid before it is written; and Ed25519 cases (an honest signature, one only OpenSSL
// accepts, raw bytes). Usage: relay-corpus DIRECTORY (writes DIRECTORY/playlist, …/receipt,
// …/bundle, …/cmcd, …/ed25519). Built and run by scripts/fuzz-relay.sh.

@testable import WaiCrypto
@testable import Relay
@testable import Audit

#if canImport(Glibc)
import Glibc
#endif

@main
struct RelayCorpusGenerator {
    static func main() {
        guard CommandLine.arguments.count == 2 else {
            fputs("usage: relay-corpus DIRECTORY\n", stderr)
            exit(2)
        }
        do {
            try generate(into: CommandLine.arguments[1])
        } catch {
            fputs("relay-corpus: \(error)\n", stderr)
            exit(1)
        }
    }

    static let vod = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:4
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"
        #EXT-X-KEY:METHOD=AES-128,URI="https://keys.example/k1",IV=0x00000000000000000000000000000001
        #EXT-X-PROGRAM-DATE-TIME:2026-11-30T00:00:00.000Z
        #EXTINF:4.000,
        #EXT-X-BYTERANGE:50000@720
        main.mp4
        #EXTINF:4.000,
        #EXT-X-BYTERANGE:48000
        main.mp4
        #EXT-X-DATERANGE:ID="ad-1",CLASS="com.example.ad",START-DATE="2026-11-30T00:00:08.000Z",PLANNED-DURATION=6.5,SCTE35-OUT=0xFC302000
        #EXT-X-DISCONTINUITY
        #EXT-X-CUE-OUT:4
        #EXTINF:4.000,
        ../ads/ad0.ts?token=a%20b
        #EXT-X-CUE-IN
        #EXT-X-GAP
        #EXTINF:4.000,
        seg3.ts
        #EXT-X-ENDLIST

        """
    static func live(from first: Int, count: Int) -> String {
        var s = """
            #EXTM3U
            #EXT-X-VERSION:9
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:\(first)
            #EXT-X-DISCONTINUITY-SEQUENCE:1
            #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.5
            #EXT-X-PART-INF:PART-TARGET=0.5

            """
        for n in first..<(first + count) { s += "#EXTINF:2.000,\nlive\(n).ts\n" }
        s += """
            #EXT-X-PART:DURATION=0.5,URI="live\(first + count).part0.ts",INDEPENDENT=YES
            #EXT-X-PRELOAD-HINT:TYPE=PART,URI="live\(first + count).part1.ts"
            #EXT-X-RENDITION-REPORT:URI="../audio/index.m3u8",LAST-MSN=\(first + count - 1),LAST-PART=0

            """
        return s
    }
    static let multivariant = """
        #EXTM3U
        #EXT-X-VERSION:6
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI="skd://key",KEYFORMAT="com.apple.streamingkeydelivery"
        #EXT-X-CONTENT-STEERING:SERVER-URI="/steer.json",PATHWAY-ID="CDN-A"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="audio/en.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=1280000,AVERAGE-BANDWIDTH=1000000,CODECS="avc1.4d401f,mp4a.40.2",RESOLUTION=640x360,AUDIO="aud"
        low/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2560000,RESOLUTION=1280x720,FRAME-RATE=25.000,AUDIO="aud"
        https://cdn.example/mid/index.m3u8
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=86000,URI="low/iframe.m3u8"

        """

    static func generate(into dir: String) throws {
        _ = mkdir(dir, 0o755)
        let playlists = [vod, vod.replacingOccurrences(of: "\n", with: "\r\n"), live(from: 100, count: 4), multivariant]
        for (i, p) in playlists.enumerated() {
            let bytes = Array(p.utf8)
            _ = try Playlist.parse(bytes)
            try write(bytes, "\(dir)/playlist/seed\(i)")
        }

        let signer = ReceiptSigner(key: RelayFuzzKeys.publisher)
        let verifier = ReceiptVerifier(publisherKey: RelayFuzzKeys.publisher.publicKey)
        func seal(_ text: String, _ revision: UInt64, _ previous: PlaylistReceipt?) throws -> ([UInt8], PlaylistReceipt) {
            let s = try signer.seal(playlist: Array(text.utf8), name: RelayFuzzKeys.playlistName, revision: revision,
                                    previous: previous, time: RelayFuzzKeys.sealTime)
            return (s.bytes, s.receipt)
        }
        for (i, p) in playlists.enumerated() {
            let (bytes, _) = try seal(p, 1, nil)
            _ = try verifier.verify(playlistBytes: bytes, name: RelayFuzzKeys.playlistName, previous: nil)
            try write(bytes, "\(dir)/receipt/sealed\(i)")
        }
        // Two revisions of a live playlist, the window slid by one segment: the harness seals
        // each part again, so the pair is written unsealed with 0x1E between them.
        let (one, r1) = try seal(live(from: 100, count: 4), 1, nil)
        let (two, _) = try seal(live(from: 101, count: 4), 2, r1)
        let state = try verifier.verify(playlistBytes: one, name: RelayFuzzKeys.playlistName, previous: nil)
        _ = try verifier.verify(playlistBytes: two, name: RelayFuzzKeys.playlistName, previous: state)
        try write(Array(live(from: 100, count: 4).utf8) + [0x1E] + Array(live(from: 101, count: 4).utf8), "\(dir)/receipt/pair0")

        for (i, bundle) in try bundles().enumerated() {
            _ = try AuditBundle.verify(bundle)
            try write(bundle, "\(dir)/bundle/seed\(i)")
        }

        let sid = "6e2f3c1a-fuzz"
        let bodies = [
            "e=ps,sid=\"\(sid)\",sn=2,sta=s,ts=1764000000001,v=2\r\ne=ps,sid=\"\(sid)\",sn=1,sta=p,ts=1,v=2\n"
                + "bl=(100;v 200;a),e=t,sid=\"\(sid)\",sn=3,ts=1764000000002,v=2\n",
            #"[{"e":"ps","sid":"s","sn":1,"sta":"p","ts":1,"v":2},{"e":"t","sid":"s","sn":2,"ts":2,"v":2,"br":[3200]}]"#,
        ]
        for (i, b) in bodies.enumerated() {
            let bytes = Array(b.utf8)
            _ = i == 0 ? try CMCDParser.parseEventBody(bytes) : try CMCDParser.parseJSONBody(bytes)
            try write(bytes, "\(dir)/cmcd/seed\(i)")
        }

        // Ed25519Fuzz's layout: mode, pick, R, S, A, message. The fixed key's honest signature
        // (mode 0x0D), the identity key with R = identity and S = 0, which OpenSSL accepts and
        // libsodium refuses (0x26, pick 15: index 1 of the small-order list for both), and raw
        // bytes (0x00).
        let zeros = [UInt8](repeating: 0, count: 96)
        for (i, (mode, pick, accepted)) in [(UInt8(0x0D), UInt8(0), true), (0x26, 15, true), (0x00, 0, false)].enumerated() {
            let message = Array("ed25519 seed \(i)".utf8)
            let bytes = [mode, pick] + zeros + message
            var sig = [UInt8](), key = [UInt8]()
            if mode == 0x0D { sig = try RelayFuzzKeys.publisher.sign(message); key = RelayFuzzKeys.publisher.publicKey.bytes }
            if mode == 0x26 { sig = SmallOrder.encodings[1] + [UInt8](repeating: 0, count: 32); key = SmallOrder.encodings[1] }
            if mode == 0x00 { sig = [UInt8](repeating: 0, count: 64); key = [UInt8](repeating: 0, count: 32) }
            let verified = sig.withUnsafeBytes { s in message.withUnsafeBytes { Ed25519Verification.verify(signature: s, message: $0, key: key) } }
            guard verified == accepted else { throw SeedError(description: "ed25519 seed \(i) verifies \(verified)") }
            try write(bytes, "\(dir)/ed25519/seed\(i)")
        }
    }

    /// Chains of the fixed keys: acks of every outcome and kind, both ad markers, the session
    /// record; and a second part continuing the first (docs/audit-bundle.md §7).
    static func bundles() throws -> [[UInt8]] {
        func ack(_ n: Int, _ outcome: AckBody.Outcome) -> AuditRecord.Body {
            .ack(AckBody(uri: "http://127.0.0.1:8/seg\(n).ts", effectiveUri: n == 1 ? "http://cdn.example/seg1.ts" : nil,
                         kind: n == 0 ? .playlist : .object, sha256: outcome == .withheld && n == 3 ? nil : SHA256.hex([UInt8(n)]),
                         size: Int64(100 * n), outcome: outcome, reason: outcome == .withheld ? "hash_mismatch" : nil,
                         detail: outcome == .withheld ? "sha256 differs" : nil, timeMs: 1_764_000_000_000 + Int64(n)))
        }
        let claims: [AuditRecord.Body] = [
            .adClaim(AdClaimBody(marker: .daterange, id: "ad-1", adClass: "com.example.ad", startDate: "2026-11-30T00:00:08.000Z",
                                 scte35Cmd: nil, scte35Out: "0xFC302000", scte35In: nil, plannedDurationMs: 6500,
                                 segments: [AdSegment(uri: "http://127.0.0.1:8/ad0.ts", sha256: SHA256.hex([9]), durationMs: 4000)],
                                 presentedMs: 4000)),
            .adClaim(AdClaimBody(marker: .cue, id: "cue-102", adClass: nil, startDate: nil, scte35Cmd: nil, scte35Out: nil,
                                 scte35In: nil, plannedDurationMs: 4000, segments: [], presentedMs: 0)),
        ]
        let summary = SessionBody(startMs: 1_764_000_000_000, endMs: 1_764_000_010_000, endReason: .closed, objects: 4, bytes: 600,
                                  verified: 2, relayed: 1, withheld: 1, adClaims: 2, decodeUnits: ["player", "cpu:0"])
        var first = try RelayFuzzKeys.chain()
        for (n, o) in [(0, AckBody.Outcome.verified), (1, .verified), (2, .relayed), (3, .withheld)] { try first.append(ack(n, o)) }
        for c in claims { try first.append(c) }
        try first.append(.session(summary))
        var short = try RelayFuzzKeys.chain()
        try short.append(.session(SessionBody(startMs: 1, endMs: 2, endReason: .idleTimeout, objects: 0, bytes: 0, verified: 0,
                                              relayed: 0, withheld: 0, adClaims: 0, decodeUnits: [])))
        let link = BundleContinuation(sessionId: RelayFuzzKeys.sessionId, lastRecordSha256: first.lastRecordHash, part: 2)
        var second = try RelayFuzzKeys.chain(sessionId: "ffeeddccbbaa99887766554433221100", continues: link)
        try second.append(ack(4, .verified))
        try second.append(.session(summary))
        return [first.bundle.encoded(), short.bundle.encoded(), second.bundle.encoded()]
    }

    static func write(_ bytes: [UInt8], _ path: String) throws {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        _ = mkdir(folder, 0o755)
        guard let f = fopen(path, "wb") else { throw GeneratorError(path: path) }
        defer { fclose(f) }
        guard fwrite(bytes, 1, bytes.count, f) == bytes.count else { throw GeneratorError(path: path) }
    }

    struct SeedError: Error, CustomStringConvertible {
        let description: String
    }

    struct GeneratorError: Error, CustomStringConvertible {
        let path: String
        var description: String { "cannot write \(path)" }
    }
}
