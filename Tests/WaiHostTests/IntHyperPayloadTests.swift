import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// Bad payloads and envelopes get a clear, typed error — never a crash, a hang or a
/// picture from the wrong model set (docs/capabilities/int_hyper.md §4, §5).
final class IntHyperPayloadTests: XCTestCase {
    let samples = IntHyperTestSupport.samples

    func sampleSet() throws -> IntHyperModelSet { try IntHyperModelSet.load(directory: IntHyperTestSupport.sampleModel) }

    func testPayloadMagicIsNotAnEnvelope() throws {
        XCTAssertNotEqual(IntHyperPayload.magic, Envelope.magic)
        let bare = try IntHyperTestSupport.read(samples + "/odd-45x29.payload")
        XCTAssertFalse(Envelope.isEnvelope(bare))
        XCTAssertTrue(IntHyperPayload.hasMagic(bare))
        let header = try IntHyperPayload.parse(bare)
        XCTAssertEqual(header.serialized(), bare, "one encoding per payload")
        XCTAssertEqual(header.width, 45); XCTAssertEqual(header.height, 29)
        XCTAssertEqual(bare.count, IntHyperPayload.headerSize + header.zStream.count + header.yStream.count)
    }

    /// Every proper prefix of an envelope and of a bare payload is refused, with the
    /// envelope's or the payload's own error.
    func testEveryTruncationIsRefused() throws {
        let set = try sampleSet()
        let runner = HostGraphRunner.reference()
        let envelope = try IntHyperTestSupport.read(samples + "/sample.wai")
        for n in 0..<envelope.count {
            XCTAssertThrowsError(try IntHyperCodec.decode(Array(envelope.prefix(n)), modelSet: set, runner: runner)) { e in
                XCTAssertTrue(e is EnvelopeError || (n < 4 && e is CapabilityError), "prefix \(n): \(e)")
            }
        }
        let bare = try IntHyperTestSupport.read(samples + "/odd-45x29.payload")
        for n in 0..<bare.count {
            XCTAssertThrowsError(try IntHyperCodec.decode(Array(bare.prefix(n)), modelSet: set, runner: runner)) { e in
                if n < 4 {
                    XCTAssertEqual(e as? CapabilityError, .unrecognised(firstBytes: Array(bare.prefix(n))), "prefix \(n)")
                } else if case .truncated = e as? IntHyperPayloadError {
                    XCTAssertTrue("\(e)".contains("truncated"), "\(e)")
                } else {
                    XCTFail("prefix \(n): \(e)")
                }
            }
        }
    }

    /// A stream cut short inside a payload whose header was fixed up to match: the rANS
    /// decoder reports it (docs/entropy-coding.md §6).
    func testTruncatedStreamsBehindAConsistentHeader() throws {
        let set = try sampleSet()
        let runner = HostGraphRunner.reference()
        let p = try IntHyperPayload.parse(try IntHyperTestSupport.read(samples + "/odd-45x29.payload"))
        for cut in [1, 2, 7, p.yStream.count / 2, p.yStream.count - 4] where cut < p.yStream.count {
            var q = p
            q.yStream.removeLast(cut)
            XCTAssertThrowsError(try IntHyperCodec.decode(q.serialized(), modelSet: set, runner: runner)) { e in
                guard case .stream(let name, _)? = e as? IntHyperPayloadError else {
                    return XCTFail("cut \(cut): \(e)")
                }
                XCTAssertEqual(name, "y")
            }
        }
        var q = p
        q.zStream.removeLast(1)
        XCTAssertThrowsError(try IntHyperCodec.decode(q.serialized(), modelSet: set, runner: runner)) { e in
            guard case .stream("z", _)? = e as? IntHyperPayloadError else { return XCTFail("\(e)") }
        }
    }

    /// Every single-bit flip of an envelope is caught (by its SHA-256 or its structure).
    func testEveryBitFlipOfAnEnvelopeIsCaught() throws {
        let set = try sampleSet()
        let runner = HostGraphRunner.reference()
        let envelope = try IntHyperTestSupport.read(samples + "/sample.wai")
        for i in 0..<envelope.count {
            for bit in 0..<8 {
                var b = envelope
                b[i] ^= UInt8(1 << bit)
                XCTAssertThrowsError(try IntHyperCodec.decode(b, modelSet: set, runner: runner), "byte \(i) bit \(bit)") { e in
                    XCTAssertTrue(e is EnvelopeError || e is CapabilityError, "byte \(i) bit \(bit): \(e)")
                }
            }
        }
    }

    /// A bare payload has no digest (that is the envelope's job): a flip in any header field
    /// but width and height is always refused; a width or height flip is refused unless it
    /// keeps the latent size (then a different crop decodes); a flip in a stream is refused
    /// or decodes to some picture (rANS cannot see every change). Never a crash, never an
    /// untyped error.
    func testBitFlipsOfABarePayload() throws {
        let set = try sampleSet()
        let cpu = try IntHyperTestSupport.cpuRunner()
        let bare = try IntHyperTestSupport.read(samples + "/odd-45x29.payload")
        var refused = 0, decoded = 0
        for i in 0..<bare.count {
            for bit in 0..<8 {
                var b = bare
                b[i] ^= UInt8(1 << bit)
                do {
                    let d = try IntHyperCodec.decode(b, modelSet: set, runner: cpu)
                    if i < IntHyperPayload.headerSize {
                        XCTAssertTrue((6..<10).contains(i), "header flip at byte \(i) bit \(bit) accepted")
                        let g = IntHyperGeometry(width: d.image.width, height: d.image.height)
                        XCTAssertEqual(g.latentWidth, 3, "byte \(i) bit \(bit)")
                        XCTAssertEqual(g.latentHeight, 2, "byte \(i) bit \(bit)")
                    } else {
                        XCTAssertEqual(d.image.width, 45)
                        XCTAssertEqual(d.image.height, 29)
                    }
                    decoded += 1
                } catch is IntHyperPayloadError {
                    refused += 1
                } catch is CapabilityError {
                    XCTAssertLessThan(i, 4, "only a magic flip makes the payload unrecognisable")
                    refused += 1
                }
            }
        }
        XCTAssertEqual(refused + decoded, bare.count * 8)
        XCTAssertGreaterThan(refused, (IntHyperPayload.headerSize - 4) * 8)
    }

    func testOversizedDimensionsAreRefusedBeforeDecoding() throws {
        let set = try sampleSet()
        var p = try IntHyperPayload.parse(try IntHyperTestSupport.read(samples + "/odd-45x29.payload"))
        p.width = 65535; p.height = 65535
        XCTAssertThrowsError(try IntHyperDecoder(modelSet: set).decode(p, runner: HostGraphRunner.reference())) { e in
            guard case .tooLarge(65535, 65535, let reason)? = e as? IntHyperPayloadError else { return XCTFail("\(e)") }
            // Refused by the memory bound (docs/capabilities/int_hyper.md §3.1), naming the size that fits.
            let (w, h) = IntHyperSizeLimit.largest(set, width: 65535, height: 65535, encoding: false, budget: .standard,
                                                   bound: IntHyperSizeLimit.memoryBound)
            XCTAssertTrue(reason.contains("memory bound") && reason.contains("\(w)×\(h)"), reason)
            XCTAssertLessThanOrEqual(IntHyperSizeLimit.estimatedBytes(set, width: w, height: h, encoding: false),
                                     IntHyperSizeLimit.memoryBound)
            XCTAssertGreaterThan(IntHyperSizeLimit.estimatedBytes(set, width: w + 2, height: h + 2, encoding: false),
                                 IntHyperSizeLimit.memoryBound)
        }
        // A large but possible picture with the original counts: refused by the counts.
        p.width = 4096; p.height = 4096
        XCTAssertThrowsError(try IntHyperDecoder(modelSet: set).decode(p, runner: HostGraphRunner.reference())) { e in
            guard case .countMismatch("z_count", _, 32 * 64 * 64)? = e as? IntHyperPayloadError else { return XCTFail("\(e)") }
        }
    }

    func testPayloadOfAnotherModelSetIsRefused() throws {
        let small = try IntHyperTestSupport.small()
        let bytes = try IntHyperTestSupport.read(samples + "/sample.wai")
        XCTAssertThrowsError(try IntHyperCodec.decode(bytes, modelSet: small, runner: HostGraphRunner.reference())) { e in
            guard case .modelSetMismatch(let payload, let ours, _, _)? = e as? IntHyperPayloadError else { return XCTFail("\(e)") }
            XCTAssertEqual(payload, try? IntHyperTestSupport.golden().model_set.id)
            XCTAssertEqual(ours, small.idHex)
            XCTAssertTrue("\(e)".contains(small.name), "\(e)")
        }
    }

    func testHeaderFieldsAreChecked() throws {
        let set = try sampleSet()
        let bare = try IntHyperTestSupport.read(samples + "/odd-45x29.payload")
        func refused(_ patch: (inout [UInt8]) -> Void, _ check: (IntHyperPayloadError) -> Bool, _ label: String) {
            var b = bare
            patch(&b)
            XCTAssertThrowsError(try IntHyperCodec.decode(b, modelSet: set, runner: HostGraphRunner.reference()), label) { e in
                guard let p = e as? IntHyperPayloadError else { return XCTFail("\(label): \(e)") }
                XCTAssertTrue(check(p), "\(label): \(p)")
            }
        }
        refused({ $0[4] = 3 }, { $0 == .unsupportedVersion(3) }, "version")
        refused({ $0[5] = 1 }, { if case .invalidField("flags", 5, _) = $0 { return true }; return false }, "flags")
        refused({ $0[6] = 0; $0[7] = 0 }, { if case .invalidField("width", 6, _) = $0 { return true }; return false }, "width 0")
        refused({ $0[8] = 0; $0[9] = 0 }, { if case .invalidField("height", 8, _) = $0 { return true }; return false }, "height 0")
        refused({ $0[42] &+= 1 }, { if case .countMismatch("z_count", _, _) = $0 { return true }; return false }, "z_count")
        refused({ $0[50] &+= 1 }, { if case .countMismatch("y_count", _, _) = $0 { return true }; return false }, "y_count")
        refused({ $0[46] = 3; $0[47] = 0; $0[48] = 0; $0[49] = 0 },
                { if case .invalidField("z_length", 46, _) = $0 { return true }; return false }, "z_length < 4")
        refused({ $0 += [0] }, { $0 == .trailingBytes(count: 1, offset: bare.count) }, "trailing byte")
        refused({ $0[57] = 0x7F }, { if case .truncated = $0 { return true }; return false }, "y_length beyond the end")
    }

    /// Values outside the graphs' input contracts cannot come from the encoder; in a
    /// payload they are refused at the value that breaks the contract.
    func testValuesOutsideTheContractsAreRefused() throws {
        let set = try IntHyperTestSupport.small()
        let runner = HostGraphRunner.reference()
        let inst = try IntHyperDecoder.instance(set, width: 16, height: 16)
        func payload(z: [Int32], y: [Int32]) throws -> [UInt8] {
            var ze = RansEncoder()
            for (i, v) in z.enumerated() { ze.encode(v, table: set.entropy.zTables[i]) }
            let (scales, _) = try IntHyperDecoder.scaleIndices(try IntHyperDecoder.tiling(set, width: 16, height: 16).hyperSynthesis,
                                                               z: TensorValue(shape: inst.zShape, values: z), yShape: inst.yShape,
                                                               tables: set.entropy.yTables.count, runner: runner, budget: .standard)
            var ye = RansEncoder()
            for (i, v) in y.enumerated() { ye.encode(v, table: set.entropy.yTables[Int(scales[i])]) }
            return IntHyperPayload(width: 16, height: 16, modelSetID: set.id, zCount: z.count, yCount: y.count,
                                   zStream: ze.finish(), yStream: ye.finish()).serialized()
        }
        let zeros = [Int32](repeating: 0, count: inst.zShape.count)
        let yZeros = [Int32](repeating: 0, count: inst.yShape.count)
        XCTAssertNoThrow(try IntHyperCodec.decode(try payload(z: zeros, y: yZeros), modelSet: set, runner: runner))

        var edge = zeros
        edge[3] = 31   // h_s's contract is −32…31: the edge is fine
        XCTAssertNoThrow(try IntHyperCodec.decode(try payload(z: edge, y: yZeros), modelSet: set, runner: runner))
        // 32 cannot go through h_s (its contract refuses it), so only the z stream is built.
        var z = zeros
        z[3] = 32
        var ze = RansEncoder()
        for (i, v) in z.enumerated() { ze.encode(v, table: set.entropy.zTables[i]) }
        var p = try IntHyperPayload.parse(try payload(z: zeros, y: yZeros))
        p.zStream = ze.finish()
        XCTAssertThrowsError(try IntHyperCodec.decode(p.serialized(), modelSet: set, runner: runner)) { e in
            XCTAssertEqual(e as? IntHyperPayloadError,
                           .valueOutsideContract(stream: "z", index: 3, channel: 3, row: 0, column: 0, value: 32,
                                                 contract: Interval(lo: -32, hi: 31)))
        }
        var y = yZeros
        y[5] = -129
        XCTAssertThrowsError(try IntHyperCodec.decode(try payload(z: zeros, y: y), modelSet: set, runner: runner)) { e in
            guard case .valueOutsideContract("y", 5, 5, 0, 0, -129, let contract)? = e as? IntHyperPayloadError else {
                return XCTFail("\(e)")
            }
            XCTAssertEqual(contract, Interval(lo: -128, hi: 127))
        }
    }

    func testEnvelopesOfOtherCapabilitiesAndUnknownInput() throws {
        let set = try sampleSet()
        let runner = HostGraphRunner.reference()
        let bare = try IntHyperTestSupport.read(samples + "/odd-45x29.payload")
        let synth = try Envelope.encode(capability: "wai.neural.int_synth", payload: bare)
        XCTAssertThrowsError(try IntHyperCodec.decode(synth, modelSet: set, runner: runner)) { e in
            XCTAssertEqual(e as? CapabilityError, .unsupported(capability: "wai.neural.int_synth", supported: ["wai.neural.int_hyper", "wai.video.int_hyper", "wai.video.int_motion", "wai.video.int_cond"]))
        }
        XCTAssertThrowsError(try IntHyperCodec.decode([], modelSet: set, runner: runner)) { e in
            XCTAssertTrue("\(e)".contains("empty"), "\(e)")
        }
        XCTAssertThrowsError(try IntHyperCodec.decode(Array("hello world".utf8), modelSet: set, runner: runner)) { e in
            XCTAssertTrue(e is CapabilityError, "\(e)")
        }
        // The bare payload in an envelope decodes like the bare payload.
        let wrapped = try Envelope.encode(capability: "wai.neural.int_hyper", payload: bare)
        XCTAssertEqual(try IntHyperCodec.decode(wrapped, modelSet: set, runner: runner).image,
                       try IntHyperCodec.decode(bare, modelSet: set, runner: runner).image)
    }
}
