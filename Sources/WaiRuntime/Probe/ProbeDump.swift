/// Failing probe cases on disk, for a plugin author to replay (docs/probe.md §2, "Dumps"):
/// `<name>.whm` is the graph as the probe ran it with every tensor observed (a model
/// container, docs/model-container.md), `<name>.input<k>.i32` its inputs and
/// `<name>.expected<k>.i32` the reference's outputs, each raw little-endian int32 in CHW
/// order, of the shape the graph gives that input or output.
public enum ProbeDump {
    /// The probe case a mismatch came from, rebuilt from the deterministic suite; nil for a
    /// graph that is not one of the suite's (a runtime demotion).
    public static func probeCase(for m: ProbeMismatch, codecVectors: CodecProbeVectors) throws -> ProbeCase? {
        guard let stage = m.stage.probeStage else { return nil }
        return try ProbeSuite.cases(stage, codecVectors: codecVectors).first { $0.name == m.graph }
    }

    /// Writes the case into `directory` under `prefix` + its name; returns the .whm path.
    @discardableResult
    public static func write(_ c: ProbeCase, prefix: String, directory: String) throws -> String {
        try LocalFile.makeDirectories(directory)
        let graph = c.everyTensorObserved
        let base = directory + "/" + prefix + c.name
        try LocalFile.write(ModelContainer.encode(graph), to: base + ".whm")
        for (k, v) in c.inputs.enumerated() { try LocalFile.write(Int32LE.bytes(v.values), to: base + ".input\(k).i32") }
        let expected = try ReferenceInterpreter.run(graph, inputs: c.inputs)
        for (k, v) in expected.enumerated() { try LocalFile.write(Int32LE.bytes(v.values), to: base + ".expected\(k).i32") }
        return base + ".whm"
    }

    /// A dumped case: the graph from `whmPath`, inputs and expected outputs beside it.
    public static func read(whmPath: String) throws -> (graph: IntegerGraph, inputs: [TensorValue], expected: [TensorValue]) {
        let graph = try ModelContainer.load(path: whmPath)
        let base = whmPath.hasSuffix(".whm") ? String(whmPath.dropLast(4)) : whmPath
        func tensor(_ path: String, _ shape: Shape) throws -> TensorValue {
            let raw = try LocalFile.read(path, limit: shape.count * 4)
            guard raw.count == shape.count * 4 else {
                throw ProbeDumpError(path: path, problem: "has \(raw.count) bytes; shape \(shape) needs \(shape.count * 4)")
            }
            return TensorValue(shape: shape, values: Int32LE.values(raw))
        }
        let inputs = try graph.inputs.enumerated().map { k, t in try tensor(base + ".input\(k).i32", graph.tensors[t].shape) }
        let expected = try graph.outputs.enumerated().map { k, t in try tensor(base + ".expected\(k).i32", graph.tensors[t].shape) }
        return (graph, inputs, expected)
    }

    /// The replay's verdict: nil when `got` equals the dumped reference outputs.
    public static func compare(_ graph: IntegerGraph, name: String, expected: [TensorValue], got: [TensorValue]) -> ProbeOutcome? {
        ExactnessProbe.compare(graph: graph, caseName: name, stage: .replay, expected: expected, got: got)
    }
}

public struct ProbeDumpError: Error, CustomStringConvertible {
    public var path: String
    public var problem: String
    public var description: String { "\(path): \(problem)" }
}
