import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// wai.neural.int_hyper end to end: the golden vectors on the reference interpreter and on
/// the CPU backend, encoder reproducibility, and round trips at awkward sizes.
final class IntHyperRoundTripTests: XCTestCase {
    /// Every golden vector decodes to its pinned SHA-256 on the reference and on the CPU
    /// backend, byte for byte the same.
    func testGoldenVectorsOnReferenceAndCPUBackend() throws {
        let golden = try IntHyperTestSupport.golden()
        XCTAssertEqual(golden.capability, "wai.neural.int_hyper")
        XCTAssertEqual(golden.vectors.count, 4)
        let set = try IntHyperModelSet.load(directory: IntHyperTestSupport.samples + "/" + golden.model_set.path)
        XCTAssertEqual(set.idHex, golden.model_set.id)
        XCTAssertEqual(set.name, golden.model_set.name)
        let cpu = try IntHyperTestSupport.cpuRunner()
        for v in golden.vectors {
            let bytes = try IntHyperTestSupport.read(IntHyperTestSupport.samples + "/" + v.payload)
            let ref = try IntHyperCodec.decode(bytes, modelSet: set, runner: HostGraphRunner.reference())
            XCTAssertEqual(ref.image.width, v.width, v.payload)
            XCTAssertEqual(ref.image.height, v.height, v.payload)
            XCTAssertEqual(ref.image.sha256, v.sha256, "\(v.payload) on the reference")
            XCTAssertEqual(ref.result.synthesisReport.backend, "reference")
            let onCPU = try IntHyperCodec.decode(bytes, modelSet: set, runner: cpu)
            XCTAssertEqual(onCPU.result.synthesisReport.backend, "cpu")
            XCTAssertEqual(onCPU.image.pixels, ref.image.pixels, "\(v.payload): CPU backend differs from the reference")
        }
    }

    /// The golden SHA-256 is pinned here too, so regenerating samples/ cannot silently move it.
    func testSampleSHA256IsPinned() throws {
        let golden = try IntHyperTestSupport.golden()
        XCTAssertEqual(golden.vectors.first?.payload, "sample.wai")
        XCTAssertEqual(golden.vectors.first?.sha256, "bae77bad8f85589665ed69ab28c824a4551bd4014d18e26ba42f95f563839001")
        XCTAssertEqual(golden.model_set.id, "efa3c9c10147c551d6716ba02860edcec7f146dae6899bac687d71dff8b09441")
    }

    /// Encoding the bundled picture reproduces the bundled payload byte for byte, on the
    /// reference and on the CPU backend alike.
    func testEncodingTheSampleReproducesSampleWai() throws {
        let set = try IntHyperModelSet.load(directory: IntHyperTestSupport.sampleModel, needsAnalysis: true)
        let picture = try PictureFile.read(path: IntHyperTestSupport.samples + "/sample.png")
        XCTAssertEqual(picture.sha256, try SamplePicture.make(width: 128, height: 96).sha256)
        let expected = try IntHyperTestSupport.read(IntHyperTestSupport.samples + "/sample.wai")
        let ref = try IntHyperCodec.encode(picture, modelSet: set, runner: HostGraphRunner.reference())
        XCTAssertEqual(ref.bytes, expected)
        let cpu = try IntHyperCodec.encode(picture, modelSet: set, runner: try IntHyperTestSupport.cpuRunner())
        XCTAssertEqual(cpu.bytes, expected)
    }

    /// Round trips at sizes that exercise every crop (not multiples of 16 or 64, one pixel,
    /// one row): the decoder reproduces the encoder's latents exactly, and the CPU backend
    /// decodes the same bytes as the reference.
    func testRoundTripsAtAwkwardSizes() throws {
        let set = try IntHyperTestSupport.small()
        let reference = HostGraphRunner.reference()
        let cpu = try IntHyperTestSupport.cpuRunner()
        for (w, h) in [(1, 1), (17, 3), (1, 70), (80, 1), (33, 65)] {
            let picture = try SamplePicture.make(width: w, height: h)
            let (bytes, encoded) = try IntHyperCodec.encode(picture, modelSet: set, runner: reference)
            XCTAssertTrue(Envelope.isEnvelope(bytes))
            let ref = try IntHyperCodec.decode(bytes, modelSet: set, runner: reference)
            XCTAssertEqual(ref.result.y, encoded.y, "\(w)×\(h): decoded y differs from the encoder's")
            XCTAssertEqual(ref.result.z, encoded.z, "\(w)×\(h): decoded z differs from the encoder's")
            XCTAssertEqual(ref.image.width, w); XCTAssertEqual(ref.image.height, h)
            let onCPU = try IntHyperCodec.decode(bytes, modelSet: set, runner: cpu)
            XCTAssertEqual(onCPU.image.pixels, ref.image.pixels, "\(w)×\(h)")
            // The bare payload decodes to the same picture.
            let bare = try IntHyperCodec.encode(picture, modelSet: set, runner: reference, envelope: false).bytes
            XCTAssertFalse(Envelope.isEnvelope(bare))
            XCTAssertEqual(try IntHyperCodec.decode(bare, modelSet: set, runner: reference).image.pixels, ref.image.pixels)
        }
    }

    /// The carrier channels make a decoded picture a soft copy of the input: flat areas come
    /// back close to their colour (a check that channel order, crops and RGB interleaving
    /// are right — a model with random weights alone could not show it).
    func testDecodedPictureFollowsTheInput() throws {
        let set = try IntHyperTestSupport.small()
        let reference = HostGraphRunner.reference()
        let flat = try RGB8Image(width: 128, height: 128, pixels: Array(repeating: [200, 60, 120], count: 128 * 128).flatMap { $0 })
        let (bytes, _) = try IntHyperCodec.encode(flat, modelSet: set, runner: reference)
        let out = try IntHyperCodec.decode(bytes, modelSet: set, runner: reference).image
        // The centre pixel: the filters' zero padding pulls the border toward grey.
        let k = (64 * 128 + 64) * 3
        for (c, expected) in [200, 60, 120].enumerated() {
            XCTAssertLessThanOrEqual(abs(Int(out.pixels[k + c]) - expected), 12, "channel \(c): \(out.pixels[k + c])")
        }
    }

    /// The probe's built-in vector: deterministic, and its two graph runs on the CPU backend
    /// give the reference's outputs; the whole decode's SHA-256 matches too.
    func testProbeVector() throws {
        let a = try IntHyperProbeVector.make()
        let b = try IntHyperProbeVector.make()
        XCTAssertEqual(a.payload, b.payload)
        XCTAssertEqual(a.decodeSHA256, b.decodeSHA256)
        XCTAssertEqual(a.graphs.map(\.name), ["int_hyper_h_s", "int_hyper_g_s"])
        let cpu = try IntHyperTestSupport.cpuRunner()
        for g in a.graphs {
            let expected = try ReferenceInterpreter.run(g.graph, inputs: g.inputs)
            XCTAssertEqual(try cpu.run(g.graph, inputs: g.inputs).outputs, expected, g.name)
        }
        let decoded = try IntHyperDecoder(modelSet: a.modelSet).decode(try IntHyperPayload.parse(a.payload), runner: cpu)
        XCTAssertEqual(decoded.image.sha256, a.decodeSHA256)
    }
}
