import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// Payload versions 1 and 2 (docs/capabilities/int_hyper.md §4, §5): the same picture from
/// either, version 2 by default, version 1 still decoded, and a bad version-2 lane stream
/// refused with a typed error naming the stream and the lane.
final class IntHyperPayloadVersionTests: XCTestCase {
    let samples = IntHyperTestSupport.samples

    /// Entropy coding is lossless: both versions carry the same z and y and decode to the
    /// same bytes, at sizes with one z value per channel and fewer values than lanes.
    func testBothVersionsGiveTheSamePicture() throws {
        let set = try IntHyperTestSupport.small()
        let reference = HostGraphRunner.reference()
        for (w, h) in [(1, 1), (17, 3), (33, 65), (256, 176)] {
            let picture = try SamplePicture.make(width: w, height: h)
            let v1 = try IntHyperCodec.encode(picture, modelSet: set, runner: reference, envelope: false, version: .v1)
            let v2 = try IntHyperCodec.encode(picture, modelSet: set, runner: reference, envelope: false)
            XCTAssertEqual(v1.bytes[4], 1); XCTAssertEqual(v2.bytes[4], 2, "version 2 is the default")
            XCTAssertEqual(v1.result.y, v2.result.y); XCTAssertEqual(v1.result.z, v2.result.z)
            let d1 = try IntHyperCodec.decode(v1.bytes, modelSet: set, runner: reference)
            let d2 = try IntHyperCodec.decode(v2.bytes, modelSet: set, runner: reference)
            XCTAssertEqual(d1.payload.version, .v1); XCTAssertEqual(d2.payload.version, .v2)
            XCTAssertEqual(d2.result.y, v2.result.y, "\(w)×\(h)"); XCTAssertEqual(d2.result.z, v2.result.z, "\(w)×\(h)")
            XCTAssertEqual(d1.image.pixels, d2.image.pixels, "\(w)×\(h)")
            XCTAssertEqual(try IntHyperPayload.parse(v2.bytes).serialized(), v2.bytes)
            // The lane counts of docs/entropy-coding.md §8.3.
            XCTAssertEqual(Int(d2.payload.yStream[0]), RansLanes.laneCount(forValueCount: d2.payload.yCount,
                                                                           singleStreamBytes: d1.payload.yStream.count))
            XCTAssertEqual(Int(d2.payload.zStream[0]), RansLanes.laneCount(forValueCount: d2.payload.zCount,
                                                                           singleStreamBytes: d1.payload.zStream.count))
            if d2.payload.yStream[0] == 1 {  // one lane: the version-1 stream behind a 5-byte lane table
                XCTAssertEqual(Array(d2.payload.yStream.dropFirst(5)), d1.payload.yStream)
            }
        }
    }

    /// The kept version-1 sample and its version-2 twin decode to the same golden SHA-256,
    /// and re-encoding the picture in each version reproduces each file byte for byte.
    func testVersion1SampleAndItsVersion2Twin() throws {
        let set = try IntHyperModelSet.load(directory: IntHyperTestSupport.sampleModel, needsAnalysis: true)
        let golden = try IntHyperTestSupport.golden()
        let v1 = try IntHyperTestSupport.read(samples + "/odd-45x29.payload")
        let v2 = try IntHyperTestSupport.read(samples + "/odd-45x29-v2.payload")
        XCTAssertEqual(v1[4], 1); XCTAssertEqual(v2[4], 2)
        let sha = golden.vectors.first { $0.payload == "odd-45x29.payload" }?.sha256
        XCTAssertNotNil(sha)
        XCTAssertEqual(golden.vectors.first { $0.payload == "odd-45x29-v2.payload" }?.sha256, sha)
        let reference = HostGraphRunner.reference()
        XCTAssertEqual(try IntHyperCodec.decode(v1, modelSet: set, runner: reference).image.sha256, sha)
        XCTAssertEqual(try IntHyperCodec.decode(v2, modelSet: set, runner: reference).image.sha256, sha)
        let picture = try SamplePicture.make(width: 45, height: 29)
        XCTAssertEqual(try IntHyperCodec.encode(picture, modelSet: set, runner: reference, envelope: false, version: .v1).bytes, v1)
        XCTAssertEqual(try IntHyperCodec.encode(picture, modelSet: set, runner: reference, envelope: false).bytes, v2)
    }

    /// Every proper prefix is refused by the header checks; every cut inside a y lane, with
    /// the lane table and y_length fixed up, by the lane decoder naming y and the lane.
    func testTruncatedVersion2StreamsAreRefused() throws {
        let set = try IntHyperTestSupport.small()
        let reference = HostGraphRunner.reference()
        // four lanes: the host's rule gives this small a picture one (docs/entropy-coding.md §8.3)
        let bare = try IntHyperEncoder(modelSet: set).encode(try SamplePicture.make(width: 256, height: 176), runner: reference,
                                                             budget: .standard, version: .v2, lanes: 4).bytes
        for n in stride(from: 4, to: bare.count, by: 7) {
            XCTAssertThrowsError(try IntHyperPayload.parse(Array(bare.prefix(n))), "prefix \(n)") { e in
                guard case .truncated? = e as? IntHyperPayloadError else { return XCTFail("prefix \(n): \(e)") }
            }
        }
        let p = try IntHyperPayload.parse(bare)
        let ranges = try RansLanes.laneRanges(p.yStream)
        XCTAssertGreaterThan(ranges.count, 1)
        for lane in [0, ranges.count - 1] {
            for cut in [1, 2, ranges[lane].count - 4] {
                var q = p
                q.yStream = resized(p.yStream, lane: lane, by: -cut, ranges: ranges)
                XCTAssertThrowsError(try IntHyperCodec.decode(q.serialized(), modelSet: set, runner: reference)) { e in
                    guard case .lanes("y", .lane(lane, _, _))? = e as? IntHyperPayloadError else {
                        return XCTFail("lane \(lane) cut \(cut): \(e)")
                    }
                    XCTAssertTrue("\(e)".contains("y stream: rANS lane \(lane)"), "\(e)")
                }
            }
            var long = p
            long.yStream = resized(p.yStream, lane: lane, by: 1, ranges: ranges)
            XCTAssertThrowsError(try IntHyperCodec.decode(long.serialized(), modelSet: set, runner: reference)) { e in
                guard case .lanes("y", .lane(lane, _, _))? = e as? IntHyperPayloadError else { return XCTFail("long lane \(lane): \(e)") }
            }
        }
    }

    /// A lane table that does not fit its stream is refused when the payload is parsed,
    /// before anything is decoded; a version byte other than 1 and 2 too.
    func testCorruptLaneTablesAreRefusedAtParse() throws {
        let v2 = try IntHyperTestSupport.read(samples + "/odd-45x29-v2.payload")
        let zStart = IntHyperPayload.headerSize
        let p = try IntHyperPayload.parse(v2)
        let yStart = zStart + p.zStream.count
        func refused(_ patch: (inout [UInt8]) -> Void, _ expected: IntHyperPayloadError, _ label: String) {
            var b = v2
            patch(&b)
            XCTAssertThrowsError(try IntHyperPayload.parse(b), label) { e in XCTAssertEqual(e as? IntHyperPayloadError, expected, label) }
        }
        refused({ $0[zStart] = 0 }, .lanes(name: "z", error: .laneCountOutOfRange(0)), "z lane count 0")
        refused({ $0[yStart] = 200 }, .lanes(name: "y", error: .laneCountOutOfRange(200)), "y lane count 200")
        refused({ $0[yStart + 1] = 3; $0[yStart + 2] = 0; $0[yStart + 3] = 0; $0[yStart + 4] = 0 },
                .lanes(name: "y", error: .laneTooShort(lane: 0, length: 3, offset: 1)), "y lane 0 of 3 bytes")
        refused({ $0[yStart + 4] = 0x40 }, .lanes(name: "y", error: .lanesBeyondEnd(needed: p.yStream.count + (0x40 << 24),
                                                                                     length: p.yStream.count)), "y lane 0 huge")
        refused({ $0[4] = 3 }, .unsupportedVersion(3), "version 3")
        refused({ $0[4] = 0 }, .unsupportedVersion(0), "version 0")
        XCTAssertTrue(IntHyperPayloadError.unsupportedVersion(3).description.contains("1 and 2"))
        // A version-1 payload relabelled as version 2 is refused, not misread.
        var relabelled = try IntHyperTestSupport.read(samples + "/odd-45x29.payload")
        relabelled[4] = 2
        XCTAssertThrowsError(try IntHyperCodec.decode(relabelled, modelSet: try IntHyperModelSet.load(directory: IntHyperTestSupport.sampleModel),
                                                      runner: HostGraphRunner.reference())) { e in
            XCTAssertTrue(e is IntHyperPayloadError, "\(e)")
        }
    }

    /// Every bit flip of a version-2 bare payload is refused with a typed error or decodes
    /// to a picture of the header's size: never a crash.
    func testBitFlipsOfAVersion2Payload() throws {
        let set = try IntHyperModelSet.load(directory: IntHyperTestSupport.sampleModel)
        let cpu = try IntHyperTestSupport.cpuRunner()
        let bare = try IntHyperTestSupport.read(samples + "/odd-45x29-v2.payload")
        var refused = 0
        for i in IntHyperPayload.headerSize..<bare.count {
            for bit in 0..<8 {
                var b = bare
                b[i] ^= UInt8(1 << bit)
                do {
                    let d = try IntHyperCodec.decode(b, modelSet: set, runner: cpu)
                    XCTAssertEqual(d.image.width, 45); XCTAssertEqual(d.image.height, 29)
                } catch is IntHyperPayloadError {
                    refused += 1
                }
            }
        }
        XCTAssertGreaterThan(refused, 0)
    }

    /// A value outside g_s's contract in a version-2 y stream: refused at the lowest such
    /// index, with its channel, row and column.
    func testVersion2ValuesOutsideTheContract() throws {
        let set = try IntHyperTestSupport.small()
        let runner = HostGraphRunner.reference()
        let picture = try SamplePicture.make(width: 64, height: 64)
        let good = try IntHyperCodec.encode(picture, modelSet: set, runner: runner, envelope: false)
        let inst = try IntHyperDecoder.instance(set, width: 64, height: 64)
        let (scales, _) = try IntHyperDecoder.scaleIndices(try IntHyperDecoder.tiling(set, width: 64, height: 64).hyperSynthesis,
                                                           z: good.result.z, yShape: inst.yShape,
                                                           tables: set.entropy.yTables.count, runner: runner, budget: .standard)
        var y = good.result.y.values
        y[40] = 300; y[7] = -200
        var p = good.result.payload
        p.yStream = IntHyperEncoder.stream(y, version: .v2) { set.entropy.yTables[Int(scales[$0])] }
        XCTAssertThrowsError(try IntHyperCodec.decode(p.serialized(), modelSet: set, runner: runner)) { e in
            XCTAssertEqual(e as? IntHyperPayloadError,
                           .valueOutsideContract(stream: "y", index: 7, channel: 0, row: 1, column: 3, value: -200,
                                                 contract: Interval(lo: -128, hi: 127)))
        }
    }

    private func resized(_ stream: [UInt8], lane: Int, by delta: Int, ranges: [Range<Int>]) -> [UInt8] {
        var out = stream
        let r = ranges[lane]
        if delta < 0 { out.removeSubrange((r.upperBound + delta)..<r.upperBound) } else { out.insert(0, at: r.upperBound) }
        let n = r.count + delta
        out.replaceSubrange((1 + 4 * lane)..<(5 + 4 * lane), with: (0..<4).map { UInt8(truncatingIfNeeded: n >> (8 * $0)) })
        return out
    }
}
