import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// Model sets: the seeded generator, the folder format, and every refusal naming the file
/// and where in it (docs/capabilities/int_hyper.md §2, §7).
final class IntHyperModelSetTests: XCTestCase {
    override class func tearDown() { IntHyperTestSupport.removeTemporaryDirectories() }

    func testGeneratorIsDeterministic() throws {
        let a = try IntHyperTestSupport.small()
        let b = try SampleModelGenerator.generate(seed: 7, n: 8, m: 12)
        XCTAssertEqual(a.files().map(\.bytes), b.files().map(\.bytes))
        XCTAssertEqual(a.id, b.id)
        let other = try SampleModelGenerator.generate(seed: 8, n: 8, m: 12)
        XCTAssertNotEqual(other.synthesis, a.synthesis)
        XCTAssertNotEqual(other.id, a.id)
        XCTAssertEqual(a.hyperChannels, 8)
        XCTAssertEqual(a.latentChannels, 12)
    }

    /// The bundled sample model set is exactly what `make-model --seed 1 --n 32 --m 48` writes.
    func testBundledSampleModelRegeneratesByteForByte() throws {
        let set = try SampleModelGenerator.generate(seed: 1, n: 32, m: 48, name: "sample-n32-m48")
        for (name, bytes) in set.files() {
            XCTAssertEqual(bytes, try IntHyperTestSupport.read(IntHyperTestSupport.sampleModel + "/" + name), name)
        }
    }

    /// Generated sets certify with narrow activations between layers and narrow y, z and
    /// scale-index tensors, as the synthesis kernels want.
    func testGeneratedGraphsAreNarrowBetweenLayers() throws {
        let set = try IntHyperTestSupport.small()
        for (file, g) in [("h_s", set.hyperSynthesis), ("g_s", set.synthesis)] {
            for node in g.nodes where node.op.name != "conv2d" && node.op.name != "conv_transpose2d" {
                XCTAssertEqual(g.tensors[node.output].storage, .narrow, "\(file): \(g.tensors[node.output].name)")
            }
        }
        XCTAssertEqual(set.latentContract, Interval(lo: -128, hi: 127))
        XCTAssertEqual(set.hyperContract, Interval(lo: -32, hi: 31))
        XCTAssertEqual(set.synthesis.tensors[set.synthesis.outputs[0]].interval.lo, 0)
        XCTAssertEqual(set.synthesis.tensors[set.synthesis.outputs[0]].interval.hi, 255)
        XCTAssertEqual(set.entropy.yTables.count, SampleModelGenerator.scaleCount)
        // Four transposed convs with three inverse GDNs between them.
        XCTAssertEqual(set.synthesis.nodes.map(\.op.name).filter { $0 == "conv_transpose2d" }.count, 4)
        XCTAssertEqual(set.synthesis.nodes.map(\.op.name).filter { $0 == "inverse_gdn" }.count, 3)
    }

    func testWriteAndLoad() throws {
        let set = try IntHyperTestSupport.small()
        let dir = try IntHyperTestSupport.temporaryDirectory("write")
        try set.write(to: dir)
        let decoding = try IntHyperModelSet.load(directory: dir)
        XCTAssertEqual(decoding.id, set.id)
        XCTAssertNil(decoding.analysis)
        XCTAssertEqual(decoding.synthesis, set.synthesis)
        XCTAssertEqual(decoding.entropy, set.entropy)
        let encoding = try IntHyperModelSet.load(directory: dir, needsAnalysis: true)
        XCTAssertEqual(encoding.analysis?.latent, set.analysis?.latent)
        XCTAssertEqual(encoding.analysis?.hyper, set.analysis?.hyper)
    }

    /// Writes `set` with some files replaced; the manifest lists the replaced files' hashes
    /// unless `keepManifest`.
    private func folder(_ set: IntHyperModelSet, replacing: [String: [UInt8]], keepManifest: Bool = false,
                        manifest: String? = nil) throws -> String {
        let dir = try IntHyperTestSupport.temporaryDirectory("set")
        try set.write(to: dir)
        var hashes = set.fileSHA256
        for (name, bytes) in replacing {
            try IntHyperTestSupport.write(bytes, dir + "/" + name)
            hashes[name] = SHA256.hex(bytes)
        }
        if let manifest {
            try IntHyperTestSupport.write(Array(manifest.utf8), dir + "/manifest.json")
        } else if !keepManifest {
            try IntHyperTestSupport.write(IntHyperManifest(name: set.name, version: set.version, files: hashes).serialized(),
                                          dir + "/manifest.json")
        }
        return dir
    }

    private func assertRefused(_ dir: String, needsAnalysis: Bool = false, file: String, location: String? = nil,
                               mentions words: [String], line: UInt = #line) {
        XCTAssertThrowsError(try IntHyperModelSet.load(directory: dir, needsAnalysis: needsAnalysis), line: line) { e in
            guard let m = e as? ModelSetError else { return XCTFail("\(e)", line: line) }
            XCTAssertEqual(m.file, file, "\(m)", line: line)
            if let location { XCTAssertEqual(m.location, location, "\(m)", line: line) }
            for w in words { XCTAssertTrue("\(m)".contains(w), "\"\(w)\" not in: \(m)", line: line) }
        }
    }

    func testChangedFileIsRefusedByItsHash() throws {
        let set = try IntHyperTestSupport.small()
        var gs = ModelContainer.encode(set.synthesis)
        gs[100] ^= 1
        let dir = try folder(set, replacing: ["g_s.whm": gs], keepManifest: true)
        assertRefused(dir, file: "g_s.whm", mentions: ["SHA-256", set.fileSHA256["g_s.whm"] ?? "?"])
    }

    func testCorruptContainerIsRefusedWithTheContainerError() throws {
        let set = try IntHyperTestSupport.small()
        var hs = ModelContainer.encode(set.hyperSynthesis)
        hs[40] ^= 0x10   // inside the tensor table; the manifest is updated, the trailer is not
        let dir = try folder(set, replacing: ["h_s.whm": hs])
        assertRefused(dir, file: "h_s.whm", mentions: ["SHA-256 trailer"])
    }

    func testEntropyJSONErrorsNameTheJSONPath() throws {
        let set = try IntHyperTestSupport.small()
        let text = String(decoding: set.entropy.serialized(), as: UTF8.self)
        func variant(_ edit: (String) -> String) throws -> String {
            try folder(set, replacing: ["entropy.json": Array(edit(text).utf8)])
        }
        // A zero frequency in the fourth y table.
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let y0 = try XCTUnwrap(lines.firstIndex { $0.contains("\"y_tables\"") })
        lines[y0 + 4] = lines[y0 + 4].replacingOccurrences(of: "\"cdf\": [0, ", with: "\"cdf\": [0, 0, ")
        assertRefused(try folder(set, replacing: ["entropy.json": Array(lines.joined(separator: "\n").utf8)]),
                      file: "entropy.json", location: "$.y_tables[3]", mentions: ["frequency"])
        assertRefused(try variant { $0.replacingOccurrences(of: "\"precision\": 16,", with: "") },
                      file: "entropy.json", location: "$", mentions: ["\"precision\" is missing"])
        assertRefused(try variant { $0.replacingOccurrences(of: "\"precision\": 16,", with: "\"precision\": 17,") },
                      file: "entropy.json", location: "$.precision", mentions: ["1…16"])
        assertRefused(try variant { $0.replacingOccurrences(of: "\"format_version\": 1,", with: "\"format_version\": 2,") },
                      file: "entropy.json", location: "$.format_version", mentions: ["not supported"])
        assertRefused(try variant { s in
            var done = false
            return s.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                guard !done, line.contains("\"offset\"") else { return String(line) }
                done = true
                return line.replacingOccurrences(of: "\"cdf\": [0, ", with: "\"cdf\": [0, \"x\", ")
            }.joined(separator: "\n")
        }, file: "entropy.json", mentions: ["$.z_tables[0].cdf[1]", "integer"])
        assertRefused(try variant { $0.replacingOccurrences(of: "{\"offset\": -", with: "{\"offset\": 9999999999, \"unused\": -") },
                      file: "entropy.json", location: "$.z_tables[0].offset", mentions: ["int32"])
        assertRefused(try variant { String($0.dropLast(8)) }, file: "entropy.json", mentions: ["not valid JSON"])
        // One z table fewer than h_s has channels.
        let fewer = try IntHyperEntropyModel(precision: 16, zTables: Array(set.entropy.zTables.dropLast()),
                                             yTables: set.entropy.yTables)
        assertRefused(try folder(set, replacing: ["entropy.json": fewer.serialized()]),
                      file: "h_s.whm", mentions: ["8 channels", "7 z_tables"])
    }

    /// h_s must clamp to the table range: with fewer scale tables than its certified output
    /// interval covers, the set is refused before any payload could index past the tables.
    func testScaleIndexRangeMustFitTheTables() throws {
        let set = try IntHyperTestSupport.small()
        let fewer = try IntHyperEntropyModel(precision: 16, zTables: set.entropy.zTables,
                                             yTables: Array(set.entropy.yTables.prefix(10)))
        XCTAssertThrowsError(try IntHyperModelSet(name: "x", version: "1", entropy: fewer, hyperSynthesis: set.hyperSynthesis,
                                                  synthesis: set.synthesis, analysis: nil)) { e in
            guard let m = e as? ModelSetError else { return XCTFail("\(e)") }
            XCTAssertEqual(m.file, "h_s.whm")
            XCTAssertTrue(m.problem.contains("0…9"), m.problem)
        }
        // Graphs in each other's place.
        XCTAssertThrowsError(try IntHyperModelSet(name: "x", version: "1", entropy: set.entropy, hyperSynthesis: set.synthesis,
                                                  synthesis: set.hyperSynthesis, analysis: nil)) { e in
            XCTAssertTrue(e is ModelSetError, "\(e)")
        }
        // An analysis side whose y can leave g_s's contract.
        let a = try XCTUnwrap(set.analysis)
        XCTAssertThrowsError(try IntHyperModelSet(name: "x", version: "1", entropy: set.entropy, hyperSynthesis: set.hyperSynthesis,
                                                  synthesis: set.synthesis,
                                                  analysis: .init(latent: a.latent, hyper: set.hyperSynthesis))) { e in
            guard let m = e as? ModelSetError else { return XCTFail("\(e)") }
            XCTAssertEqual(m.file, "h_a.whm")
        }
    }

    func testManifestErrors() throws {
        let set = try IntHyperTestSupport.small()
        let good = String(decoding: IntHyperManifest(name: set.name, version: set.version, files: set.fileSHA256).serialized(),
                          as: UTF8.self)
        assertRefused(try folder(set, replacing: [:], manifest: good.replacingOccurrences(of: "int_hyper\"", with: "int_synth\"")),
                      file: "manifest.json", location: "$.capability", mentions: ["int_synth"])
        assertRefused(try folder(set, replacing: [:], manifest: good.replacingOccurrences(of: "\"g_s.whm\"", with: "\"g_x.whm\"")),
                      file: "manifest.json", location: "$.files", mentions: ["g_x.whm"])
        assertRefused(try folder(set, replacing: [:],
                                 manifest: good.replacingOccurrences(of: set.fileSHA256["h_s.whm"] ?? "?", with: "abc")),
                      file: "manifest.json", location: "$.files[\"h_s.whm\"]", mentions: ["hex"])
        assertRefused(try folder(set, replacing: [:], manifest: good.replacingOccurrences(of: "\"name\": ", with: "\"nome\": ")),
                      file: "manifest.json", location: "$", mentions: ["\"name\""])
        assertRefused(try folder(set, replacing: [:], manifest: good.replacingOccurrences(of: set.name, with: "a b")),
                      file: "manifest.json", location: "$.name", mentions: ["characters"])
        let missing = IntHyperTestSupport.samples + "/does-not-exist"
        XCTAssertThrowsError(try IntHyperModelSet.load(directory: missing)) { e in
            XCTAssertTrue("\(e)".contains("not a folder"), "\(e)")
        }
        let empty = try IntHyperTestSupport.temporaryDirectory("empty")
        assertRefused(empty, file: "manifest.json", mentions: ["cannot open"])
    }

    func testDecoderOnlySetCannotEncode() throws {
        let full = try IntHyperTestSupport.small()
        let decoderOnly = try IntHyperModelSet(name: "decoder-only", version: "1", entropy: full.entropy,
                                               hyperSynthesis: full.hyperSynthesis, synthesis: full.synthesis, analysis: nil)
        XCTAssertEqual(decoderOnly.id, full.id, "the id covers the decoder's files only")
        let dir = try IntHyperTestSupport.temporaryDirectory("decoder-only")
        try decoderOnly.write(to: dir)
        XCTAssertNoThrow(try IntHyperModelSet.load(directory: dir))
        assertRefused(dir, needsAnalysis: true, file: "manifest.json", mentions: ["analysis side"])
        XCTAssertThrowsError(try IntHyperEncoder(modelSet: decoderOnly).encode(try SamplePicture.make(width: 8, height: 8),
                                                                             runner: HostGraphRunner.reference())) { e in
            XCTAssertTrue("\(e)".contains("analysis side"), "\(e)")
        }
    }

    func testGeneratorRefusesChannelCountsOutOfRange() {
        XCTAssertThrowsError(try SampleModelGenerator.generate(seed: 1, n: 3, m: 12))
        XCTAssertThrowsError(try SampleModelGenerator.generate(seed: 1, n: 8, m: 513))
    }

    /// The deterministic math behind the tables, against known values.
    func testDeterministicMath() {
        XCTAssertEqual(DeterministicMath.exp(0), 1)
        XCTAssertEqual(DeterministicMath.exp(1), 2.718281828459045, accuracy: 1e-15)
        XCTAssertEqual(DeterministicMath.exp(-20), 2.061153622438558e-09, accuracy: 1e-23)
        XCTAssertEqual(DeterministicMath.erf(0.5), 0.5204998778130465, accuracy: 1e-15)
        XCTAssertEqual(DeterministicMath.normalCDF(-3), 0.0013498980316301, accuracy: 1e-15)
        XCTAssertEqual(DeterministicMath.twoToThe(sixths: 6), 2)
        XCTAssertEqual(DeterministicMath.twoToThe(sixths: -18), 0.125)
        XCTAssertEqual(SampleModelGenerator.scale(ofIndex: 0), 0.125)
        XCTAssertEqual(SampleModelGenerator.scale(ofIndex: 63), 181.01933598375618, accuracy: 1e-12)
    }
}
