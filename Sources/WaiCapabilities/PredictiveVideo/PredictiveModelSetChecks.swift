extension IntHyperModelSetChecks {
    /// A P-frame set's graph that gives y's scale indices against its entropy file (int_motion's
    /// h_s, int_cond's cond_prior; each spec's §2.3): input `zInput` has one channel per z
    /// table, the output's certified interval is inside the y tables' indices.
    static func scaleIndexGraph(_ g: IntegerGraph, _ file: String, zInput: Int, entropy: IntHyperEntropyModel,
                                entropyFile: String) throws {
        let z = g.tensors[g.inputs[zInput]]
        guard z.shape.channels == entropy.zTables.count else {
            throw ModelSetError(file: file, location: "input tensor '\(z.name)'",
                                problem: "has \(z.shape.channels) channels, but \(entropyFile) has \(entropy.zTables.count) z_tables (one per z channel)")
        }
        let scales = g.tensors[g.outputs[0]]
        let count = entropy.yTables.count
        guard Interval(lo: 0, hi: Int64(count - 1)).contains(scales.interval) else {
            throw ModelSetError(file: file, location: "output tensor '\(scales.name)'",
                                problem: "certified interval \(scales.interval) is not inside the scale indices 0…\(count - 1) of \(entropyFile)'s y_tables")
        }
    }
}
