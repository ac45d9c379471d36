import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// The AVX-512 path's x-phase pairs (docs/cpu-kernels.md §3): a stride-2 transposed conv
/// with few outputs or narrow rows sums both x-phases in one microkernel call, one load per
/// shared tap. Against the reference interpreter on every unit, with shapes that reach every
/// part of it: 1, 2, 3, 4 and 5 outputs (every accumulator layout, a partial block of
/// output channels), several calls per row and a partial last one, several cache-blocked
/// channel chunks, an odd channel count (a half-empty pair), kernels 3 to 6 (different
/// sets of shared and unshared tap offsets), values at the int16 edges.
final class CPUXPairTests: XCTestCase {
    func testFewOutputAndNarrowTransposedConvs() throws {
        let units = try CPUBackendTests.backends()
        var rng = SplitMix64(seed: 0x5A17)
        let edge = CPUAMXTests.Decomposition(wideInput: true, wideWeights: true)
        let small = CPUAMXTests.Decomposition(wideInput: false, wideWeights: false)
        for d in [edge, small] {
            for (cin, cout, h, w, k) in [(128, 3, 3, 40, 5), (7, 1, 3, 150, 5), (19, 2, 3, 100, 4),
                                         (33, 5, 2, 60, 3), (12, 3, 2, 20, 6), (40, 4, 4, 30, 5)] {
                let c = try CPUAMXTests.conv(&rng, d, transposed: true, cin: cin, cout: cout, h: h, w: w, k: k, stride: 2)
                try CPUBackendTests.assertExact(c.name, c.graph, c.inputs, on: units)
            }
        }
    }
}
