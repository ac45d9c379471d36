import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiRuntime

/// The warp's cases every backend is checked against the reference on (docs/integer-ops.md
/// §4.10): widths across the vector lengths (1…40 columns: whole vectors of 8 and 16 and
/// every tail), narrow and wide volumes and flows at every F the certificate allows for
/// them, 1…5 scales and odd channel counts, and the probe's warp graphs.
extension BackendCases {
    static func warp() throws -> [Labelled] {
        var rng = SplitMix64(seed: 0x5741_5250_4241_434B)
        var result: [Labelled] = []
        let widths = [1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40]
        for (k, w) in widths.enumerated() {
            for narrow in [true, false] {
                let f = narrow ? [0, 2, 3, 5][k % 4] : [0, 4, 7, 10][k % 4]
                let (c, s, h) = (1 + k % 3, 1 + k % 5, 2 + k % 3)
                let sp = WarpStageCases.Spec(
                    c: c, s: s, h: h, w: w, f: f,
                    volume: WarpStageCases.widestVolume(fracBits: f, narrow: narrow), volumeStorage: narrow ? .narrow : .wide,
                    flow: WarpStageCases.widestFlow(fracBits: f, h: h, w: w, narrow: k % 2 == 0 ? narrow : !narrow),
                    flowStorage: (k % 2 == 0) == narrow ? .narrow : .wide, output: narrow ? nil : .wide)
                let label = "warp \(narrow ? "narrow" : "wide") c\(c) s\(s) \(h)×\(w) f\(f)"
                let p = try WarpStageCases.single(label, sp, seed: rng.next())
                result.append(Labelled(label: label, graph: p.graph, inputs: p.inputs))
            }
        }
        let probe = try WarpCases.semantics() + WarpCases.arithmetic() + WarpStageCases.widths() + WarpStageCases.channels()
            + WarpStageCases.arithmetic() + [try WarpDecodeVector.builtIn()]
        return result + probe.map { Labelled(label: $0.name, graph: $0.graph, inputs: $0.inputs) }
    }
}
