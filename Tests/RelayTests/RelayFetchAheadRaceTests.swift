// docs/relay.md, "Throughput": an origin failure found by a fetch ahead is answered to the
// request waiting for it, with its event. The race: the failure wakes the waiting request,
// and before it reports, a new request finds nothing in flight and starts a fresh fetch
// (which reports itself). Two 502s must be two events. Ordered with the session's
// waitObserver and a gate at the origin, so nothing here depends on timing.

import XCTest
import TestSupport
import Foundation
@testable import Relay

final class RelayFetchAheadRaceTests: XCTestCase {
    func testAFreshFetchStartedAsAFailureAheadWakesItsWaiterLeavesBothAnswersReported() throws {
        let gate = Gate()
        let origin = try ScriptedOrigin { req in
            switch req.path {
            case "/index.m3u8":
                return text("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXT-X-PLAYLIST-TYPE:VOD\n"
                            + "#EXTINF:1.0,\na.ts\n#EXTINF:1.0,\nb.ts\n#EXT-X-ENDLIST\n")
            case "/a.ts": return text("object a\n", type: "video/mp2t")
            case "/b.ts":
                gate.passOrWait()
                return HTTPResponse(status: 503)
            default: return HTTPResponse(status: 404)
            }
        }
        let observer = RecordingObserver()
        let session = try RelaySession(origin: origin.url("index.m3u8"), observer: observer)
        defer { session.close(); gate.open() }
        let lines = String(decoding: try Curl.request(session.playerURL).body, as: UTF8.self).split(separator: "\n")
        let urls = lines.filter { !$0.hasPrefix("#") }.map(String.init)
        XCTAssertEqual(urls.count, 2)
        guard urls.count == 2 else { return }

        let waiting = Signal()
        let fresh = Locked<Fetched?>(nil)
        session.waitObserver = { _, woke in
            if !woke { waiting.fire(); return }
            // The fetch ahead has settled and woken this request; a new request now finds
            // nothing in flight and fetches b.ts afresh before this one reports.
            fresh.set(try? Curl.request(urls[1]))
        }
        gate.close()
        XCTAssertEqual(try Curl.request(urls[0]).status, 200)
        XCTAssertTrue(gate.waitForWaiter(seconds: 20), "b.ts was not fetched ahead")
        let waiter = Locked<Fetched?>(nil)
        let done = Signal()
        let t = Thread { waiter.set(try? Curl.request(urls[1])); done.fire() }
        t.start()
        waiting.wait()
        gate.open()
        done.wait()

        XCTAssertEqual(waiter.value?.status, 502)
        XCTAssertEqual(fresh.value?.status, 502)
        let events = observer.events.filter { $0.originURL.hasSuffix("/b.ts") }
        XCTAssertEqual(events.count, 2, "two 502s, \(events.count) events: \(events)")
        XCTAssertTrue(events.allSatisfy { $0.isWithheld && $0.response?.status == 503 }, "\(events)")
    }
}
