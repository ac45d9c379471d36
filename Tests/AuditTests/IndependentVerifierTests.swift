// The bundle format checked by a verifier written independently from docs/audit-bundle.md
// (verify_bundle.py, Python with `cryptography`): it accepts what the Swift side writes and
// refuses a tampered bundle.

import Foundation
import TestSupport
import XCTest
@testable import Audit
import WaiCrypto

final class IndependentVerifierTests: XCTestCase {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("verify_bundle.py").path

    /// The status and what it printed, stdout then stderr.
    func run(_ args: [String]) throws -> (Int32, String) {
        // Debian's interpreter, which has python3-cryptography (scripts/install-deps.sh); a
        // python3 earlier on PATH (pyenv, a venv) may not.
        let r = try Subprocess("/usr/bin/python3", args, deadline: 120).run()
        return (r.status, r.stdoutText + r.stderrText)
    }

    func testPythonVerifierAgrees() throws {
        let (rc, text) = try run(["-c", "import cryptography"])
        guard rc == 0 else {
            return XCTFail("python3 with the `cryptography` package is required: /usr/bin/python3 with Debian's python3-cryptography (scripts/install-deps.sh): \(text)")
        }
        let tmp = try TempDir("audit-py")
        let dir = URL(fileURLWithPath: tmp.path)

        var c = try AuditChain(installationKey: Fixture.installation, owner: Fixture.owner.publicKey)
        try c.append(.ack(Fixture.ack(0)))
        try c.append(.adClaim(AdClaimBody(marker: .daterange, id: "ad-1", adClass: "com.apple.hls.interstitial",
                                          startDate: "2026-11-30T00:00:00Z", scte35Cmd: nil, scte35Out: "0xFC30",
                                          scte35In: nil, plannedDurationMs: 8000,
                                          segments: [AdSegment(uri: "http://x/a.ts", sha256: SHA256.hex([1]), durationMs: 4000)],
                                          presentedMs: 4000)))
        try c.append(.session(Fixture.summary))
        let good = c.bundle.encoded()
        let goodPath = dir.appendingPathComponent("good.json").path
        try Data(good).write(to: URL(fileURLWithPath: goodPath))
        let (ok, summary) = try run([Self.script, goodPath, Fixture.owner.publicKey.hex])
        XCTAssertEqual(ok, 0, summary)
        let s = try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any]
        XCTAssertEqual(s?["session_id"] as? String, c.sessionId)
        XCTAssertEqual(s?["session_key"] as? String, c.sessionKey.publicKey.hex)
        XCTAssertEqual(s?["types"] as? [String], ["ack", "ad_claim", "session"])
        XCTAssertEqual(s?["bundle_sha256"] as? String, SHA256.hex(good))

        var dropped = c.bundle
        dropped.records.remove(at: 1)
        let badPath = dir.appendingPathComponent("bad.json").path
        try Data(dropped.encoded()).write(to: URL(fileURLWithPath: badPath))
        let (bad, why) = try run([Self.script, badPath])
        XCTAssertEqual(bad, 1)
        XCTAssertEqual(why, "FAIL: records[1]: seq 2\n")
        let (wrongOwner, _) = try run([Self.script, goodPath, Fixture.stranger.publicKey.hex])
        XCTAssertEqual(wrongOwner, 1)
    }
}
