// Writes the seed corpus for PayloadFuzz: valid payloads (bare and enveloped, payload
// versions 1 and 2) of the fuzz fixture's model set at several picture sizes, and version-2
// payloads re-coded with other lane counts (1, 5, 32: fewer values than lanes, too), so the
// fuzzer starts from every lane layout. Usage: payload-corpus DIRECTORY.
// Built and run by scripts/fuzz-payload.sh.

// The library layers, built by scripts/fuzz-lib.sh with -enable-testing.
@testable import WaiSupport
@testable import WaiCrypto
@testable import WaiOps
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities
#if canImport(Glibc)
import Glibc
#endif

@main
struct PayloadCorpusGenerator {
    static func main() {
        guard CommandLine.arguments.count == 2 else {
            fputs("usage: payload-corpus DIRECTORY\n", stderr)
            exit(2)
        }
        do {
            let set = try PayloadFixture.modelSet()
            var n = 0
            let dir = CommandLine.arguments[1]
            for (w, h) in [(1, 1), (16, 16), (33, 17), (64, 48), (5, 90)] {
                let picture = try SamplePicture.make(width: w, height: h)
                for version in IntHyperPayload.Version.allCases {
                    for envelope in [false, true] {
                        let (bytes, _) = try IntHyperCodec.encode(picture, modelSet: set, runner: ReferenceRunner(),
                                                                  envelope: envelope, version: version)
                        _ = try IntHyperCodec.decode(bytes, modelSet: set, runner: ReferenceRunner())   // every seed decodes
                        try LocalFile.write(bytes, to: "\(dir)/\(w)x\(h)-v\(version.rawValue)\(envelope ? ".wai" : ".payload")")
                        n += 1
                    }
                }
                // Version 2 with other lane counts: the same values, re-coded.
                let (v2, result) = try IntHyperCodec.encode(picture, modelSet: set, runner: ReferenceRunner(), envelope: false)
                let decoded = try IntHyperCodec.decode(v2, modelSet: set, runner: ReferenceRunner())
                let inst = try IntHyperDecoder.instance(set, width: w, height: h)
                let (scales, _) = try IntHyperDecoder.scaleIndices(try IntHyperDecoder.tiling(set, width: w, height: h).hyperSynthesis,
                                                                   z: decoded.result.z, yShape: inst.yShape,
                                                                   tables: set.entropy.yTables.count, runner: ReferenceRunner(),
                                                                   budget: .standard)
                let zPlane = inst.zShape.height * inst.zShape.width
                for lanes in [1, 5, 32] {
                    guard var ze = RansLaneEncoder(laneCount: lanes), var ye = RansLaneEncoder(laneCount: lanes) else { continue }
                    for (i, v) in decoded.result.z.values.enumerated() { ze.encode(v, table: set.entropy.zTables[i / zPlane]) }
                    for (i, v) in decoded.result.y.values.enumerated() { ye.encode(v, table: set.entropy.yTables[Int(scales[i])]) }
                    var p = result.payload
                    p.zStream = ze.finish(); p.yStream = ye.finish()
                    _ = try IntHyperCodec.decode(p.serialized(), modelSet: set, runner: ReferenceRunner())
                    try LocalFile.write(p.serialized(), to: "\(dir)/\(w)x\(h)-v2-\(lanes)lanes.payload")
                    n += 1
                }
            }
            print("wrote \(n) seeds")
        } catch {
            fputs("payload-corpus: \(error)\n", stderr)
            exit(1)
        }
    }
}
