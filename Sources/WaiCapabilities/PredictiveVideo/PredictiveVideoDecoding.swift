/// What one frame's decode gives: the image, its last graph run, the run that gave its
/// latents' tables, and its timings.
typealias PredictiveVideoDecodedFrame = (image: RGB8Image, report: RunReport, hyper: RunReport, timings: IntHyperDecoder.Timings)

/// The GOP decode both predictive capabilities share (each spec's §6): the model-set and
/// frame-range checks, intra frames by `IntHyperDecoder`, and the loop from the intra frame at
/// or before the first asked-for frame, each P-frame on the previous reconstruction. The
/// capability gives only its P-frame decode.
enum PredictiveVideoDecoding {
    static func open<P: PredictiveVideoPayloadCoding>(_ bytes: [UInt8], capability: String) throws -> PredictiveVideoOpened<P> {
        let opened = try CapabilityRegistry.open(bytes, expecting: capability)
        return PredictiveVideoOpened(payload: try P.parsed(opened.payload), enveloped: opened.enveloped, inputBytes: bytes.count)
    }

    /// Decodes frames `range` (default all) in order, handing each asked-for frame to `each` as
    /// soon as it is decoded. `prepare` runs once the checks pass (it instantiates the P-frame
    /// graphs) and gives the decode of P-frame i on its reference.
    static func decode<P: PredictiveVideoPayloadCoding>(
        _ opened: PredictiveVideoOpened<P>, intraSet: IntHyperModelSet, set: some PredictiveModelSet, runner: GraphRunner,
        frames range: ClosedRange<Int>?, each: (PredictiveVideoFrame) throws -> Void,
        prepare: () throws -> (_ frame: Int, _ reference: RGB8Image) throws -> PredictiveVideoDecodedFrame
    ) throws {
        typealias E = PredictiveVideoPayloadError<P>
        let p = opened.payload
        guard p.intraModelSetID == intraSet.id else {
            throw E.modelSetMismatch(which: "intra", payload: Hex.encode(p.intraModelSetID), modelSet: intraSet.idHex,
                                     name: intraSet.name, version: intraSet.version)
        }
        guard p.predictedModelSetID == set.id else {
            throw E.modelSetMismatch(which: "predicted", payload: Hex.encode(p.predictedModelSetID), modelSet: set.idHex,
                                     name: set.name, version: set.version)
        }
        let all = 0...(p.frames.count - 1)
        let wanted = range ?? all
        guard all.contains(wanted.lowerBound), all.contains(wanted.upperBound) else {
            throw E.frameRange(first: wanted.lowerBound, last: wanted.upperBound, frameCount: p.frames.count)
        }
        do {
            try IntHyperSizeLimit.check(intraSet, width: p.width, height: p.height, encoding: false)
        } catch let e as IntHyperPayloadError {
            throw E.tooLarge(width: p.width, height: p.height, reason: "its intra frames: \(e)")
        }
        let predicted = try prepare()
        let intraDecoder = IntHyperDecoder(modelSet: intraSet)
        var reference: RGB8Image?
        for i in p.intraFrame(before: wanted.lowerBound)...wanted.upperBound {
            let at = p.frames[i].range.lowerBound
            let decoded: PredictiveVideoDecodedFrame
            switch p.frames[i].kind {
            case .intra:
                let r = try intra(p, frame: i, decoder: intraDecoder, runner: runner)
                decoded = (r.image, r.synthesisReport, r.hyperSynthesisReport, r.timings)
            case .predicted:
                // The index puts an intra frame at the start of every GOP, and decoding starts there.
                guard let ref = reference else {
                    throw E.frameMismatch(frame: i, offset: at, problem: "a P-frame with no decoded reference")
                }
                decoded = try predicted(i, ref)
            }
            reference = decoded.image
            guard wanted.contains(i) else { continue }
            let (planes, colorMs) = Stopwatch.time { YCbCrBT601.planes(decoded.image, chroma: p.chroma.y4m) }
            try each(PredictiveVideoFrame(frame: VideoIntHyperCodec.Frame(index: i, image: decoded.image, planes: planes,
                                                                          pictureBytes: p.frames[i].range.count, report: decoded.report,
                                                                          hyperReport: decoded.hyper, timings: decoded.timings,
                                                                          colorMs: colorMs),
                                          kind: p.frames[i].kind))
        }
    }

    static func intra<P: PredictiveVideoPayloadCoding>(_ p: P, frame i: Int, decoder: IntHyperDecoder,
                                                       runner: GraphRunner) throws -> IntHyperDecoder.Result {
        typealias E = PredictiveVideoPayloadError<P>
        let at = p.frames[i].range.lowerBound
        do {
            let picture = try IntHyperPayload.parse(p.frame(i))
            guard picture.width == p.width, picture.height == p.height else {
                throw E.frameMismatch(frame: i, offset: at,
                                      problem: "the picture is \(picture.width)×\(picture.height), the sequence \(p.width)×\(p.height)")
            }
            return try decoder.decode(picture, runner: runner)
        } catch let e as IntHyperPayloadError {
            throw E.framePicture(frame: i, offset: at, part: "intra picture", error: e)
        }
    }
}
