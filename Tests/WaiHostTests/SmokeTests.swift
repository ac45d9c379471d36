import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities
final class SmokeTests: XCTestCase {
    func testIntervalHull() { XCTAssertEqual(Interval(lo: 0, hi: 1).hull(Interval(lo: -2, hi: 0)), Interval(lo: -2, hi: 1)) }
}
