/// How the int_motion and int_cond decode vectors of the exactness probe are made
/// (docs/probe.md §1): a two-frame pan at int_hyper's vector's odd size (the second frame the
/// sample picture two columns and one row further on), encoded with GOP 2 on the reference
/// interpreter, and the graph runs the decode of its P-frame makes, recorded in order.
enum PredictiveProbeVector {
    struct Recorded {
        var payload: [UInt8]
        var graphs: [(name: String, graph: IntegerGraph, inputs: [TensorValue])]
        /// SHA-256 of the decoded P-frame's RGB8 rows on the reference interpreter.
        var pFrameSHA256: String
    }

    /// `format` names the vector in errors (`int_motion`); `names` are the P-frame's runs' names.
    static func record(format: String, names: [String],
                       encode: (_ frames: [RGB8Image], _ width: Int, _ height: Int, _ runner: GraphRunner) throws -> [UInt8],
                       decode: (_ payload: [UInt8], _ runner: GraphRunner, _ each: (PredictiveVideoFrame) throws -> Void) throws -> Void)
        throws -> Recorded {
        let (width, height) = (IntHyperProbeVector.width, IntHyperProbeVector.height)
        let wide = try SamplePicture.make(width: width + 2, height: height + 1)
        func view(_ dx: Int, _ dy: Int) throws -> RGB8Image {
            var pixels: [UInt8] = []
            pixels.reserveCapacity(width * height * 3)
            for i in 0..<height {
                let row = ((i + dy) * wide.width + dx) * 3
                pixels.append(contentsOf: wide.pixels[row..<(row + width * 3)])
            }
            return try RGB8Image(width: width, height: height, pixels: pixels)
        }
        let reference = HostGraphRunner.reference()
        let payload = try encode([try view(0, 0), try view(2, 1)], width, height, reference)
        let recorder = RecordingRunner(reference)
        var marks: [Int] = [], decoded: [RGB8Image] = []
        try decode(payload, recorder) { frame in
            marks.append(recorder.runs.count)
            decoded.append(frame.frame.image)
        }
        let pRuns = Array(recorder.runs[marks[0]..<marks[1]])
        guard pRuns.count == names.count, decoded.count == 2 else {
            throw GraphError.graph(problem: "the \(format) probe vector's P-frame made \(pRuns.count) graph runs, \(names.count) expected")
        }
        return Recorded(payload: payload, graphs: zip(names, pRuns).map { ($0, $1.graph, $1.inputs) }, pFrameSHA256: decoded[1].sha256)
    }
}
