// Keys and small bundles shared by the audit tests.

import Foundation
import TestSupport
import XCTest
@testable import Audit
import WaiCrypto

enum Fixture {
    static let installation = try! Ed25519PrivateKey(seed: [UInt8](repeating: 1, count: 32))
    static let owner = try! Ed25519PrivateKey(seed: [UInt8](repeating: 2, count: 32))
    static let stranger = try! Ed25519PrivateKey(seed: [UInt8](repeating: 3, count: 32))

    static func ack(_ n: Int) -> AckBody {
        AckBody(uri: "http://127.0.0.1:1/seg\(n).ts", effectiveUri: "http://127.0.0.1:1/seg\(n).ts", kind: .object,
                sha256: SHA256.hex([UInt8(n)]), size: Int64(100 + n), outcome: .verified, reason: nil,
                detail: nil, timeMs: 1_764_000_000_000 + Int64(n))
    }

    static let summary = SessionBody(startMs: 1_764_000_000_000, endMs: 1_764_000_010_000, endReason: .closed,
                                     objects: 3, bytes: 303, verified: 3, relayed: 0, withheld: 0, adClaims: 0,
                                     decodeUnits: ["player"])

    /// A chain of three acks and the session record.
    static func chain(installation: Ed25519PrivateKey = installation) throws -> AuditChain {
        var c = try AuditChain(installationKey: installation, owner: owner.publicKey)
        for i in 0..<3 { try c.append(.ack(ack(i))) }
        try c.append(.session(summary))
        return c
    }

    /// A record envelope signed by `key` with any header values.
    static func record(sessionId: String, seq: Int64, prev: String, body: AuditRecord.Body,
                       key: Ed25519PrivateKey) throws -> Envelope {
        let r = AuditRecord(sessionId: sessionId, seq: seq, prev: prev, body: body)
        return try Envelope.sign(type: AuditPayloadType.record, payload: PayloadCoding.encode(r), key: key)
    }
}

func XCTAssertBundleError(_ bytes: [UInt8], _ expected: AuditBundleError, owner: Ed25519PublicKey? = nil,
                          trusted: Set<Ed25519PublicKey>? = nil, file: StaticString = #filePath, line: UInt = #line) {
    do {
        _ = try AuditBundle.verify(bytes, owner: owner, trustedInstallationKeys: trusted)
        XCTFail("bundle verified; expected \(expected)", file: file, line: line)
    } catch {
        XCTAssertEqual(error, expected, file: file, line: line)
    }
}

/// The real ffmpeg for the audit tests: a small stream to relay, and the player.
enum FFmpeg {
    /// `seconds` of 96x64 H.264 at 10 fps as a VOD playlist, index.m3u8 and one-second
    /// segments seg0.ts, seg1.ts, … in `dir`.
    static func makeStream(in dir: String, seconds: Int) throws -> SubprocessResult {
        try Subprocess("/usr/bin/ffmpeg", [
            "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=10:duration=\(seconds)",
            "-c:v", "libx264", "-preset", "ultrafast", "-threads", "1", "-g", "10", "-f", "hls", "-hls_time", "1",
            "-hls_playlist_type", "vod", "-hls_segment_filename", dir + "/seg%d.ts", dir + "/index.m3u8"], deadline: 120).run()
    }

    /// Plays `url` to the end into framemd5 lines written to `framemd5`; its stderr (the
    /// log, with each URL it opened) is the result's.
    static func play(_ url: String, framemd5: String = "/dev/null") throws -> SubprocessResult {
        try Subprocess("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-i", url, "-map", "0", "-f", "framemd5", "-y", framemd5],
                       deadline: 120).run()
    }
}
