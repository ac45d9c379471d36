// Shared by the payload fuzz harness and its corpus generator (scripts/fuzz-payload.sh):
// a tiny model set generated in memory, and a runner on the reference interpreter that
// refuses pictures too large to decode at fuzzing speed.

enum PayloadFixture {
    static let seed: UInt64 = 0x4655_5A5A   // "FUZZ"
    /// N = M = 4: the smallest model set, so each accepted payload decodes in microseconds.
    static func modelSet() throws -> IntHyperModelSet {
        try SampleModelGenerator.generate(seed: seed, n: 4, m: 4, name: "fuzz")
    }
    /// Graph runs beyond this many output elements are skipped (a valid payload of a huge
    /// picture is not a bug, only slow).
    static let maximumElements = 1 << 16
}

struct SkippedLargeRun: Error {}

struct ReferenceRunner: GraphRunner {
    func run(_ graph: IntegerGraph, inputs: [TensorValue]) throws -> (outputs: [TensorValue], report: RunReport) {
        for t in graph.outputs where graph.tensors[t].shape.count > PayloadFixture.maximumElements { throw SkippedLargeRun() }
        return (try ReferenceInterpreter.run(graph, inputs: inputs),
                RunReport(unit: "cpu", backend: "reference", device: "fuzz", driver: "fuzz", dispatch: .forced,
                          reason: "fuzzing", rank: nil))
    }
}
