/// That a model set's files fit together (docs/capabilities/int_hyper.md §2.3). Each check
/// names the file and the tensor, so a hand-made model set can be fixed.
enum IntHyperModelSetChecks {
    static func check(_ set: IntHyperModelSet) throws {
        let hs = set.hyperSynthesis, gs = set.synthesis
        try oneInOneOut(hs, "h_s.whm")
        try oneInOneOut(gs, "g_s.whm")
        let n = hs.tensors[hs.inputs[0]].shape.channels
        let scaleCount = set.entropy.yTables.count
        guard n == set.entropy.zTables.count else {
            throw ModelSetError(file: "h_s.whm", location: "input tensor '\(hs.tensors[hs.inputs[0]].name)'",
                                problem: "has \(n) channels, but entropy.json has \(set.entropy.zTables.count) z_tables (one per z channel)")
        }
        let scales = try output(hs, "h_s.whm")
        guard Interval(lo: 0, hi: Int64(scaleCount - 1)).contains(scales.interval) else {
            throw ModelSetError(file: "h_s.whm", location: "output tensor '\(scales.name)'",
                                problem: "certified interval \(scales.interval) is not inside the scale indices 0…\(scaleCount - 1) "
                                    + "of entropy.json's \(scaleCount) y_tables: h_s must clamp its output to the table range")
        }
        let m = gs.tensors[gs.inputs[0]].shape.channels
        guard scales.shape.channels == m else {
            throw ModelSetError(file: "h_s.whm", location: "output tensor '\(scales.name)'",
                                problem: "has \(scales.shape.channels) channels, g_s.whm's input has \(m) (one scale index per y element)")
        }
        let rgb = try output(gs, "g_s.whm")
        guard rgb.shape.channels == 3, IntHyperModelSet.pictureInterval.contains(rgb.interval) else {
            throw ModelSetError(file: "g_s.whm", location: "output tensor '\(rgb.name)'",
                                problem: "is \(rgb.shape.channels) channels in \(rgb.interval); 3 channels inside [0, 255] (RGB8) required")
        }
        // The spatial factors at two sizes: ×4 for h_s, ×16 for g_s.
        try factor(hs, "h_s.whm", from: [(1, 1), (2, 3)], scale: IntHyperGeometry.hyperFactor)
        try factor(gs, "g_s.whm", from: [(1, 1), (2, 3)], scale: IntHyperGeometry.latentFactor)

        guard let a = set.analysis else { return }
        try oneInOneOut(a.latent, "g_a.whm")
        try oneInOneOut(a.hyper, "h_a.whm")
        let picture = a.latent.tensors[a.latent.inputs[0]]
        guard picture.shape.channels == 3, picture.interval.contains(IntHyperModelSet.pictureInterval) else {
            throw ModelSetError(file: "g_a.whm", location: "input tensor '\(picture.name)'",
                                problem: "is \(picture.shape.channels) channels with contract \(picture.interval); "
                                    + "3 channels accepting [0, 255] (RGB8) required")
        }
        let y = try output(a.latent, "g_a.whm")
        let coded = IntHyperEncoder.codedLatentInterval(y.interval, shift: a.latentShift)
        guard y.shape.channels == m, set.latentContract.contains(coded) else {
            throw ModelSetError(file: "g_a.whm", location: "output tensor '\(y.name)'",
                                problem: "is \(y.shape.channels) channels in \(y.interval) (y in \(coded) after analysis_shift "
                                    + "\(a.latentShift)); g_s.whm's input takes "
                                    + "\(m) channels in \(set.latentContract): every y the encoder makes must be decodable")
        }
        let yIn = a.hyper.tensors[a.hyper.inputs[0]]
        guard yIn.shape.channels == m, yIn.interval.contains(y.interval) else {
            throw ModelSetError(file: "h_a.whm", location: "input tensor '\(yIn.name)'",
                                problem: "is \(yIn.shape.channels) channels with contract \(yIn.interval); g_a.whm's output is "
                                    + "\(m) channels in \(y.interval)")
        }
        let z = try output(a.hyper, "h_a.whm")
        guard z.shape.channels == n, set.hyperContract.contains(z.interval) else {
            throw ModelSetError(file: "h_a.whm", location: "output tensor '\(z.name)'",
                                problem: "is \(z.shape.channels) channels in \(z.interval); h_s.whm's input takes "
                                    + "\(n) channels in \(set.hyperContract): every z the encoder makes must be decodable")
        }
        for (h, w) in [(1, 1), (2, 3)] {
            try maps(a.latent, "g_a.whm", (h * 16, w * 16), to: (h, w))
        }
        for (h, w) in [(4, 4), (5, 9)] {
            try maps(a.hyper, "h_a.whm", (h, w), to: ((h + 3) / 4, (w + 3) / 4))
        }
    }

    static func oneInOneOut(_ g: IntegerGraph, _ file: String) throws {
        guard g.inputs.count == 1, g.outputs.count == 1 else {
            throw ModelSetError(file: file, problem: "has \(g.inputs.count) inputs and \(g.outputs.count) outputs; exactly one of each required")
        }
    }

    static func output(_ g: IntegerGraph, _ file: String) throws -> TensorSpec {
        g.tensors[g.outputs[0]]
    }

    static func factor(_ g: IntegerGraph, _ file: String, from sizes: [(Int, Int)], scale: Int) throws {
        for (h, w) in sizes { try maps(g, file, (h, w), to: (h * scale, w * scale)) }
    }

    static func maps(_ g: IntegerGraph, _ file: String, _ input: (Int, Int), to expected: (Int, Int)) throws {
        let r: IntegerGraph
        do { r = try GraphResizing.resized(g, height: input.0, width: input.1) } catch {
            throw ModelSetError(file: file, problem: "cannot run at input size \(input.0)×\(input.1): \(error)")
        }
        guard let out = GraphResizing.outputShape(r), out.height == expected.0, out.width == expected.1 else {
            let got = GraphResizing.outputShape(r).map { "\($0.height)×\($0.width)" } ?? "nothing"
            throw ModelSetError(file: file, problem: "maps input \(input.0)×\(input.1) to \(got); "
                + "\(expected.0)×\(expected.1) required (docs/capabilities/int_hyper.md §2.3)")
        }
    }
}
